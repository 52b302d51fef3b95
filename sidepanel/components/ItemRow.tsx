import type { ComponentChildren } from 'preact';
import type { BranchPoint, Item, ToolResultItem } from '../../src/protocol';
import { formatUsage } from '../format';
import { t } from '../i18n';
import { AssistantMessage } from './AssistantMessage';
import { BranchSwitcher } from './BranchSwitcher';
import { memo } from './memo';
import { MessageActions } from './MessageActions';
import { NoticeRow } from './NoticeRow';
import { SkillCard } from './SkillCard';
import { ToolCard } from './ToolCard';
import { UserMessageRow } from './UserMessageRow';

export interface ItemRowProps {
  threadId: string;
  item: Item;
  parentId: string | null;
  result?: ToolResultItem;
  branch?: BranchPoint;
  /** The turn's usage, on the turn's last row only. Primitives, so memo comparison stays cheap. */
  usageIn?: number;
  usageOut?: number;
  /** Input tokens of the turn read from the provider's cache. */
  usageCached?: number;
  usageCost?: number;
}

function ItemRowImpl({
  threadId,
  item,
  parentId,
  result,
  branch,
  usageIn,
  usageOut,
  usageCached,
  usageCost,
}: ItemRowProps) {
  let body: ComponentChildren;
  switch (item.kind) {
    case 'user_message':
      body = <UserMessageRow threadId={threadId} item={item} parentId={parentId} />;
      break;
    case 'assistant_message':
      body = <AssistantMessage item={item} />;
      break;
    case 'tool_call':
      body =
        item.visibility === 'skill' ? (
          <SkillCard item={item} result={result} />
        ) : (
          <ToolCard item={item} result={result} />
        );
      break;
    case 'tool_result':
      // A result whose call is not on the path (should not happen): show it as a bare card.
      body = (
        <div class={`tool-card state-result${item.ok ? '' : ' failed'}`} data-item-id={item.id}>
          <div class="tool-summary">
            <span class="tool-name">{item.name ?? t('toolResult')}</span>
            <span class="tool-state">{item.ok ? t('toolDone') : t('toolFailed')}</span>
          </div>
        </div>
      );
      break;
    case 'notice':
      body = <NoticeRow item={item} />;
      break;
  }

  return (
    <div class={`row row-${item.kind}`}>
      {branch && <BranchSwitcher threadId={threadId} branch={branch} />}
      {body}
      {item.kind === 'assistant_message' && <MessageActions threadId={threadId} item={item} />}
      {usageIn !== undefined && usageOut !== undefined && (
        <p class="turn-usage" role="note" aria-label={t('turnUsageLabel')}>
          {formatUsage(
            {
              inputTokens: usageIn,
              outputTokens: usageOut,
              ...(usageCached ? { cacheReadTokens: usageCached } : {}),
            },
            usageCost,
          )}
        </p>
      )}
    </div>
  );
}

/** Memoized: a new item or a delta elsewhere leaves this row untouched. */
export const ItemRow = memo(ItemRowImpl);
