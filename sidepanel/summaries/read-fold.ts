/**
 * Compact mode: a run of consecutive page reads (snapshot, get text, find, screenshot…) folds
 * into one row, "Read the page 3 times". Pure over rows, so the list and its tests agree.
 *
 * Only finished, successful, visible reads fold: a read that failed, waits for approval or still
 * runs stays its own card, since that is where the user needs to look.
 */
import type { Row } from '../state/rows';

export type DisplayRow = { kind: 'row'; row: Row } | { kind: 'reads'; rows: Row[] };

/** A read that finished well. `effects` comes from the tool; unknown effects never fold. */
export function isFoldableRead(row: Row): boolean {
  const item = row.item;
  if (item.kind !== 'tool_call' || item.effects !== 'read' || item.visibility === 'skill') return false;
  return item.state === 'result' && row.result?.ok === true && !row.branch && !row.turnUsage;
}

/** Runs of at least `min` foldable reads become one `reads` entry; everything else passes as is. */
export function foldReads(rows: Row[], min = 2): DisplayRow[] {
  const out: DisplayRow[] = [];
  let run: Row[] = [];
  const flush = () => {
    if (run.length >= min) out.push({ kind: 'reads', rows: run });
    else for (const row of run) out.push({ kind: 'row', row });
    run = [];
  };
  for (const row of rows) {
    if (isFoldableRead(row)) run.push(row);
    else {
      flush();
      out.push({ kind: 'row', row });
    }
  }
  flush();
  return out;
}
