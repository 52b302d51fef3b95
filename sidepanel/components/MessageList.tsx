import { PlanCard } from './PlanCard';
import { TakeoverCard } from './TakeoverCard';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { JSX } from 'preact';
import type { BranchPoint, Item } from '../../src/protocol';
import { t } from '../i18n';
import { buildRows, type Row } from '../state/rows';
import { foldReads } from '../summaries/read-fold';
import { ApprovalCard } from './ApprovalCard';
import { Icon } from './icons';
import { InteractionCard } from './InteractionCard';
import { ItemRow } from './ItemRow';
import { useThread, useUi } from './panel-context';

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
  const compact = useUi((u) => u.compactReads);
  const shown = rows.slice(first.start);
  // The last row stays unfolded: it carries the running turn's live usage.
  const display =
    compact && shown.length > 1
      ? [...foldReads(shown.slice(0, -1)), { kind: 'row' as const, row: shown[shown.length - 1] }]
      : shown.map((row) => ({ kind: 'row' as const, row }));
  const last = rows[rows.length - 1];

  const renderRow = (row: Row) => {
    // The running turn's usage comes live from token.usage, ahead of the committed items.
    const usage =
      row === last && liveUsage
        ? { usage: liveUsage.turnUsage, costUsd: liveUsage.turnCostUsd }
        : row.turnUsage;
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
  };

  return (
    <div class="messages" data-thread-id={threadId}>
      {first.start > 0 && <EarlierLoader count={first.start} onLoad={first.loadEarlier} />}
      {display.map((d) =>
        d.kind === 'row' ? (
          renderRow(d.row)
        ) : (
          <ReadsFold
            key={`fold-${d.rows[0].item.id}`}
            rows={d.rows}
            count={d.count}
            render={renderRow}
          />
        ),
      )}
      <TurnError threadId={threadId} />
      {approval && <ApprovalCard key={approval.approvalId} request={approval} />}
      {interaction &&
        (interaction.kind === 'takeover' ? (
          <TakeoverCard key={interaction.interactionId} request={interaction} />
        ) : interaction.kind === 'plan' ? (
          <PlanCard key={interaction.interactionId} request={interaction} />
        ) : (
          <InteractionCard key={interaction.interactionId} request={interaction} />
        ))}
    </div>
  );
}

/** A folded run of page reads: one line, each read's card one click away. */
function ReadsFold({
  rows,
  count,
  render,
}: {
  rows: Row[];
  count: number;
  render: (row: Row) => JSX.Element;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div class="row row-reads">
      <details
        class="reads-fold"
        open={open}
        onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
      >
        <summary class="tool-summary" title={t('foldReadsHint')}>
          <Icon name="check" class="tool-state-icon" />
          <span class="tool-line">{t('foldReads', String(count))}</span>
        </summary>
        {open && <div class="reads-fold-body">{rows.map(render)}</div>}
      </details>
    </div>
  );
}

/**
 * Which row the list starts at. A long thread opens with its newest rows only (opening a
 * 2,000-item thread must stay fast); the start is fixed while new rows arrive, and moves up in
 * steps when the user reaches the top. Scrolling position is kept when rows are added above.
 */
function useWindowStart(
  threadId: string,
  total: number,
): { start: number; loadEarlier: () => void } {
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
      const el = document
        .querySelector<HTMLElement>(`.messages[data-thread-id="${CSS.escape(threadId)}"]`)
        ?.closest<HTMLElement>('.scroller');
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
    const io = new IntersectionObserver(
      (entries) => entries.some((e) => e.isIntersecting) && onLoad(),
      { rootMargin: '200px 0px 0px 0px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [count]);
  return (
    <button type="button" ref={ref} class="btn small earlier-loader" onClick={onLoad}>
      {t('showEarlier', String(count))}
    </button>
  );
}
