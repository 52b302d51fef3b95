import { useMemo } from 'preact/hooks';
import type { BranchPoint, Item } from '../../src/protocol';
import { t } from '../i18n';
import { buildRows } from '../state/rows';
import { ApprovalCard } from './ApprovalCard';
import { Icon } from './icons';
import { InteractionCard } from './InteractionCard';
import { ItemRow } from './ItemRow';
import { useThread } from './panel-context';

const NO_ITEMS: Item[] = [];
const NO_BRANCHES: BranchPoint[] = [];

/** The turn's error, when it ended in one (stop-reason warnings sit on their messages instead). */
function TurnError({ threadId }: { threadId: string }) {
  const last = useThread(threadId, (th) => th?.lastTurn ?? null);
  if (!last || (last.stopReason !== 'error' && !last.error)) return null;
  return (
    <p class="turn-error" role="alert">
      <Icon name="alert" />
      <span>{last.error?.message || t('turnFailed')}</span>
    </p>
  );
}

/**
 * The conversation. Rows are rebuilt only when the path changes (an item starts, completes or
 * changes state); streaming deltas never reach this component.
 */
export function MessageList({ threadId }: { threadId: string }) {
  const path = useThread(threadId, (th) => th?.path ?? NO_ITEMS);
  const branches = useThread(threadId, (th) => th?.branches ?? NO_BRANCHES);
  const liveUsage = useThread(threadId, (th) => th?.liveUsage ?? null);
  const approval = useThread(threadId, (th) => th?.approval ?? null);
  const interaction = useThread(threadId, (th) => th?.interaction ?? null);
  const rows = useMemo(() => buildRows(path, branches), [path, branches]);

  return (
    <div class="messages" data-thread-id={threadId}>
      {rows.map((row, i) => {
        // The running turn's usage comes live from token.usage, ahead of the committed items.
        const usage = i === rows.length - 1 && liveUsage ? { usage: liveUsage.turnUsage, costUsd: liveUsage.turnCostUsd } : row.turnUsage;
        return (
          <ItemRow
            key={row.item.id}
            threadId={threadId}
            item={row.item}
            parentId={row.parentId}
            result={row.result}
            branch={row.branch}
            usageIn={usage?.usage.inputTokens}
            usageOut={usage?.usage.outputTokens}
            usageCost={usage?.costUsd}
          />
        );
      })}
      <TurnError threadId={threadId} />
      {approval && <ApprovalCard key={approval.approvalId} request={approval} />}
      {interaction && <InteractionCard key={interaction.interactionId} request={interaction} />}
    </div>
  );
}
