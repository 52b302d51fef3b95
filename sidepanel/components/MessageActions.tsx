import { useState } from 'preact/hooks';
import type { Item } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { usePanel } from './panel-context';

/** Per-message actions: copy, edit & resend (user messages), fork a thread ending at this message. */
export function MessageActions({
  threadId,
  item,
  onEdit,
}: {
  threadId: string;
  item: Item;
  onEdit?: () => void;
}) {
  const panel = usePanel();
  const [copied, setCopied] = useState(false);
  const text = item.kind === 'user_message' || item.kind === 'assistant_message' ? item.text : '';
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <div class="msg-actions">
      {text && (
        <button
          type="button"
          class="icon-btn"
          aria-label={copied ? t('copied') : t('copyMessage')}
          title={t('copyMessage')}
          onClick={copy}
        >
          <Icon name={copied ? 'check' : 'copy'} />
        </button>
      )}
      {onEdit && (
        <button
          type="button"
          class="icon-btn"
          aria-label={t('editMessage')}
          title={t('editMessage')}
          data-action="edit"
          onClick={onEdit}
        >
          <Icon name="edit" />
        </button>
      )}
      <button
        type="button"
        class="icon-btn"
        aria-label={t('forkFromHere')}
        title={t('forkFromHere')}
        data-action="fork"
        onClick={() => void panel.forkFrom(threadId, item.id)}
      >
        <Icon name="fork" />
      </button>
    </div>
  );
}
