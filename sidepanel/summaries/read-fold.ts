/**
 * Compact mode: a run of consecutive page reads (snapshot, get text, find, screenshot…) folds
 * into one row, "Read the page 3 times". Pure over rows, so the list and its tests agree.
 *
 * Only finished, successful, visible reads fold: a read that failed, waits for approval or still
 * runs stays its own card, since that is where the user needs to look.
 */
import type { Row } from '../state/rows';

/** `reads`: the folded rows (reads and the empty model turns between them) and how many reads. */
export type DisplayRow = { kind: 'row'; row: Row } | { kind: 'reads'; rows: Row[]; count: number };

/**
 * The tools that read the page. Other read-only tools (ask_user, list tabs, MCP reads) are not
 * "reading the page" and keep their own cards.
 */
export const PAGE_READS: ReadonlySet<string> = new Set([
  'browser_snapshot',
  'browser_get_text',
  'browser_find',
  'browser_screenshot',
]);

/** A page read that finished well. */
export function isFoldableRead(row: Row): boolean {
  const item = row.item;
  if (item.kind !== 'tool_call' || !PAGE_READS.has(item.name) || item.visibility === 'skill')
    return false;
  return item.state === 'result' && row.result?.ok === true && !row.branch && !row.turnUsage;
}

/**
 * A model turn that said nothing (only requested the next call): invisible in the thread, so
 * it neither breaks a run of reads nor counts as one.
 */
export function isSilentTurn(row: Row): boolean {
  const item = row.item;
  if (item.kind !== 'assistant_message' || row.branch || row.turnUsage) return false;
  return !item.text.trim() && !item.thinking && item.providerStopReason === 'tool_use';
}

/**
 * Runs of at least `min` foldable reads become one `reads` entry (silent turns between them fold
 * with them); everything else passes as is, in order.
 */
export function foldReads(rows: Row[], min = 2): DisplayRow[] {
  const out: DisplayRow[] = [];
  let run: Row[] = [];
  let count = 0;
  const flush = () => {
    // Silent turns after the last read stay outside: they belong to what comes next.
    let end = run.length;
    while (end > 0 && !isFoldableRead(run[end - 1])) end--;
    if (count >= min) out.push({ kind: 'reads', rows: run.slice(0, end), count });
    else for (const row of run.slice(0, end)) out.push({ kind: 'row', row });
    for (const row of run.slice(end)) out.push({ kind: 'row', row });
    run = [];
    count = 0;
  };
  for (const row of rows) {
    if (isFoldableRead(row)) {
      run.push(row);
      count++;
    } else if (count > 0 && isSilentTurn(row)) run.push(row);
    else {
      flush();
      out.push({ kind: 'row', row });
    }
  }
  flush();
  return out;
}
