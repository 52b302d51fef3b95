/**
 * One page of a long log (console messages, requests): entries carry an increasing `seq`, the
 * caller passes the last `seq` it saw as `after`, and gets at most `limit` entries and at most
 * `maxChars` of rendered text. Pure. The result says plainly what was left out, so the model never
 * mistakes a truncated log for the whole one.
 */

/** Characters of entry lines in one console or network result (a page's bound besides `limit`). */
export const MAX_LOG_RESULT_CHARS = 24_000;

export interface LogPageRequest {
  /** Only entries with a larger seq (the previous page's `next`). */
  after?: number;
  limit: number;
  /** Budget for the rendered lines together; the first entry is always shown. */
  maxChars: number;
}

export interface LogPage {
  lines: string[];
  /** seq of the first and last entry shown. */
  first?: number;
  last?: number;
  /** Matching entries after the last one shown (0 = the page reaches the end). */
  remaining: number;
  /** The `after` to pass for the next page, when entries remain. */
  next?: number;
  /** Whether the character budget (rather than `limit`) cut the page. */
  cutByChars: boolean;
}

export function logPage<T extends { seq: number }>(
  matching: readonly T[],
  req: LogPageRequest,
  render: (entry: T) => string,
): LogPage {
  const from = matching.filter((e) => req.after === undefined || e.seq > req.after);
  const lines: string[] = [];
  let used = 0;
  let shown = 0;
  let cutByChars = false;
  for (const entry of from) {
    if (shown >= req.limit) break;
    const line = render(entry);
    if (shown > 0 && used + line.length > req.maxChars) {
      cutByChars = true;
      break;
    }
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  const remaining = from.length - shown;
  const page: LogPage = { lines, remaining, cutByChars };
  if (shown) {
    page.first = from[0].seq;
    page.last = from[shown - 1].seq;
  }
  if (remaining > 0 && page.last !== undefined) page.next = page.last;
  return page;
}

/** A case-insensitive substring test (a literal: a model-supplied regex could take forever). */
export function matchesPattern(pattern: string | undefined, ...fields: (string | undefined)[]) {
  if (!pattern) return true;
  const p = pattern.toLowerCase();
  return fields.some((f) => f?.toLowerCase().includes(p));
}

/** `text` cut to `max` characters with a marker saying how much was cut. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more chars]`;
}
