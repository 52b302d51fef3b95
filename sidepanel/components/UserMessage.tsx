import type { UserMessageItem } from '../../src/protocol';
import { t } from '../i18n';

/** What the user typed, shown as typed (plain text, never markdown), with attached images. */
export function UserMessage({ item }: { item: UserMessageItem }) {
  return (
    <div class="msg user" data-item-id={item.id}>
      {item.steered && <span class="badge steered">{t('steeredBadge')}</span>}
      {item.text && <p class="user-text">{item.text}</p>}
      {item.images && item.images.length > 0 && (
        <div class="thumbs">
          {item.images.map((img, i) => (
            <img
              key={i}
              class="thumb"
              src={`data:${img.mimeType};base64,${img.dataBase64}`}
              alt={t('imageAttachment', i + 1)}
              loading="lazy"
            />
          ))}
        </div>
      )}
    </div>
  );
}
