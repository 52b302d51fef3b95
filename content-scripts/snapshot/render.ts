/** Lines → text, under a token budget that ends in a note telling the model how to see more. */
import { estimateTokens } from '../dom/text';
import type { SnapshotLine } from './walker';

export function renderLines(lines: readonly SnapshotLine[]): string[] {
  return lines.map((l) => (l.depth ? '  '.repeat(l.depth) : '') + l.text);
}

export interface Budgeted {
  text: string;
  truncated: boolean;
  estTokens: number;
}

export function truncationNote(maxTokens: number, shown: number, total: number): string {
  return (
    `[truncated: the page is larger than the ${maxTokens}-token snapshot budget; ` +
    `${shown} of ${total} lines shown. Use browser_find to locate a specific element or text, ` +
    `or browser_scroll then browser_snapshot with mode "viewport".]`
  );
}

export function applyBudget(
  rendered: readonly string[],
  maxTokens: number,
  walkStopped: boolean,
): Budgeted {
  // Room for the note itself, so the whole answer stays within the budget.
  const limit = maxTokens - 60;
  let used = 0;
  let i = 0;
  for (; i < rendered.length; i++) {
    const t = estimateTokens(rendered[i]) + 1;
    if (used + t > limit) break;
    used += t;
  }
  const truncated = i < rendered.length || walkStopped;
  let text = rendered.slice(0, i).join('\n');
  if (truncated) {
    const note = truncationNote(maxTokens, i, walkStopped ? i : rendered.length);
    text = text ? `${text}\n${note}` : note;
    used += estimateTokens(note);
  }
  return { text, truncated, estTokens: used };
}
