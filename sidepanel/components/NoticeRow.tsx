import type { NoticeItem } from '../../src/protocol';
import { t } from '../i18n';
import { noticeText } from '../summaries/notice-text';
import { Icon } from './icons';

/** Engine notes in the conversation (tool-failure breaker, budget pause, interruption…). */
export function NoticeRow({ item }: { item: NoticeItem }) {
  const shown = noticeText(item);
  if (shown.kind === 'hidden') return null;
  return (
    <p
      class={`notice notice-${item.code.replace(/[^\w-]/g, '')}`}
      data-item-id={item.id}
      role="note"
    >
      <Icon name="info" />
      <span>{shown.kind === 'localized' ? t(shown.key, ...shown.subs) : shown.text}</span>
    </p>
  );
}
