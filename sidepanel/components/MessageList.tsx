import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { BranchPoint, Item } from '../../src/protocol';
import { t } from '../i18n';
import { buildRows } from '../state/rows';
import { ApprovalCard } from './ApprovalCard';
import { Icon } from './icons';
import { InteractionCard } from './InteractionCard';
import { ItemRow } from './ItemRow';
import { useThread } from './panel-context';

const NO_ITEMS: Item[] = [];
/** Rows rendered when a thread opens; earlier ones load in steps as the user scrolls up. */
export const INITIAL_ROWS = 150;
const MORE_ROWS = 150;
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
  const first = useWindowStart(threadId, rows.length);

  return (
    <div class="messages" data-thread-id={threadId}>
      {first.start > 0 && <EarlierLoader count={first.start} onLoad={first.loadEarlier} />}
      {rows.slice(first.start).map((row, j) => {
        const i = first.start + j;
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
            usageCached={usage?.usage.cacheReadTokens}
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

/**
 * Which row the list starts at. A long thread opens with its newest rows only (opening a
 * 2,000-item thread must stay fast); the start is fixed while new rows arrive, and moves up in
 * steps when the user reaches the top. Scrolling position is kept when rows are added above.
 */
function useWindowStart(threadId: string, total: number): { start: number; loadEarlier: () => void } {
  const [start, setStart] = useState(() => Math.max(0, total - INITIAL_ROWS));
  const anchor = useRef<{ el: HTMLElement; fromBottom: number } | null>(null);
  useEffect(() => setStart(Math.max(0, total - INITIAL_ROWS)), [threadId]);
  useLayoutEffect(() => {
    const a = anchor.current;
    if (!a) return;
    anchor.current = null;
    a.el.scrollTop = a.el.scrollHeight - a.fromBottom;
  }, [start]);
  const clamped = Math.min(start, Math.max(0, total - INITIAL_ROWS));
  return {
    start: clamped,
    loadEarlier: () => {
      const el = document.querySelector<HTMLElement>(`.messages[data-thread-id="${CSS.escape(threadId)}"]`)?.closest<HTMLElement>('.scroller');
      if (el) anchor.current = { el, fromBottom: el.scrollHeight - el.scrollTop };
      setStart(Math.max(0, clamped - MORE_ROWS));
    },
  };
}

/** The top of a partly rendered thread: loads earlier messages when it scrolls into view, or on click. */
function EarlierLoader({ count, onLoad }: { count: number; onLoad: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onLoad(), { rootMargin: '200px 0px 0px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [count]);
  return (
    <button type="button" ref={ref} class="btn small earlier-loader" onClick={onLoad}>
      {t('showEarlier', String(count))}
    </button>
  );
}
