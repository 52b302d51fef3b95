/**
 * The snapshot cursor: a page larger than the token budget is read in pages, so nothing on it is
 * unreachable. Page N holds the lines after page N-1 that fit the budget; `afterRef` starts just
 * after the line carrying that ref (the last ref the model saw). The note at the end says how
 * to continue. Pure: lines in, one page out.
 */
import { estimateTokens } from '../dom/text';
import type { Budgeted } from './render';

export interface Cursor {
  /** 1-based page number (default 1). */
  page?: number;
  /** Continue after the line that carries this ref (`e41`, `f2e7`). */
  afterRef?: string;
}

export type PageOfLines = Budgeted & {
  page: number;
  /** Known page count; a walk cut short for time makes it a lower bound. */
  pages: number;
  /** `afterRef` was asked for and no line carries it. */
  refMissing?: boolean;
  /** The shown lines are `lines[from, to)` (their structure goes out beside the text). */
  from: number;
  to: number;
};

/** Room kept for the note, so the whole answer stays within the budget. */
const NOTE_TOKENS = 80;

/** Start indexes of each page of `lines` under `maxTokens`. */
export function pageStarts(lines: readonly string[], maxTokens: number, from = 0): number[] {
  const limit = Math.max(1, maxTokens - NOTE_TOKENS);
  const starts = [from];
  let used = 0;
  for (let i = from; i < lines.length; i++) {
    const t = estimateTokens(lines[i]) + 1;
    if (used + t > limit && i > starts[starts.length - 1]) {
      starts.push(i);
      used = 0;
    }
    used += t;
  }
  return starts;
}

export function pageOf(
  lines: readonly string[],
  maxTokens: number,
  walkStopped: boolean,
  cursor: Cursor,
): PageOfLines {
  let from = 0;
  let refMissing = false;
  if (cursor.afterRef) {
    const tag = `[ref=${cursor.afterRef}]`;
    const at = lines.findIndex((l) => l.includes(tag));
    if (at < 0) refMissing = true;
    else from = at + 1;
  }
  const starts = pageStarts(lines, maxTokens, from);
  const page = Math.max(1, cursor.page ?? 1);
  const index = Math.min(page, starts.length) - 1;
  const start = page > starts.length ? lines.length : starts[index];
  const end = page > starts.length ? lines.length : (starts[index + 1] ?? lines.length);
  const shown = lines.slice(start, end);
  const more = end < lines.length || walkStopped;
  const notes: string[] = [];
  if (refMissing)
    notes.push(`[ref ${cursor.afterRef} is not on the page now: showing from the top.]`);
  if (start > 0 && shown.length)
    notes.unshift(
      `[continued: lines ${start + 1}–${end} of ${lines.length}${walkStopped ? '+' : ''}]`,
    );
  if (page > starts.length)
    notes.push(
      `[no page ${page}: the snapshot has ${starts.length} page${starts.length === 1 ? '' : 's'} at this budget.]`,
    );
  if (more) {
    const lastRef = [...shown]
      .reverse()
      .map((l) => /\[ref=((?:f\d+)?e\d+)\]/.exec(l)?.[1])
      .find(Boolean);
    notes.push(
      `[truncated: the page is larger than the ${maxTokens}-token snapshot budget; page ${page} of ${starts.length}${walkStopped ? '+' : ''} ` +
        `(${end} of ${lines.length}${walkStopped ? '+' : ''} lines). Continue with browser_snapshot page ${page + 1}` +
        `${lastRef ? ` (or afterRef "${lastRef}")` : ''}; use browser_find to locate a specific element or text, ` +
        'or browser_scroll then browser_snapshot with mode "viewport".]',
    );
  }
  const head = notes.filter((n) => n.startsWith('[continued') || n.startsWith('[ref '));
  const tail = notes.filter((n) => !head.includes(n));
  const text = [...head, ...shown, ...tail].join('\n');
  return {
    text,
    truncated: more,
    estTokens: estimateTokens(text),
    page,
    pages: starts.length,
    ...(refMissing ? { refMissing } : {}),
    from: start,
    to: end,
  };
}
