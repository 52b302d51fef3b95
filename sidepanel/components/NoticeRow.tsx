import type { NoticeItem } from '../../src/protocol';
import { Icon } from './icons';

/** Engine notes in the conversation (tool-failure breaker, budget pause, interruption…). */
export function NoticeRow({ item }: { item: NoticeItem }) {
  return (
    <p
      class={`notice notice-${item.code.replace(/[^\w-]/g, '')}`}
      data-item-id={item.id}
      role="note"
    >
      <Icon name="info" />
      <span>{item.text}</span>
    </p>
  );
}
