/**
 * Incremental snapshots: what changed since the previous snapshot of the same document.
 *
 * Common prefix and suffix are trimmed, then the middle is matched as a multiset in order. That
 * is exact for the usual cases (a dialog opened, a list grew, a value changed) and linear in
 * time, where a full LCS on thousands of lines would cost more than the snapshot itself.
 */

export type LineDiff =
  | { kind: 'unchanged' }
  | { kind: 'diff'; text: string; added: number; removed: number };

export function diffLines(prev: readonly string[], next: readonly string[]): LineDiff {
  let start = 0;
  while (start < prev.length && start < next.length && prev[start] === next[start]) start++;
  let endPrev = prev.length;
  let endNext = next.length;
  while (endPrev > start && endNext > start && prev[endPrev - 1] === next[endNext - 1]) {
    endPrev--;
    endNext--;
  }
  if (start === endPrev && start === endNext) return { kind: 'unchanged' };

  const pool = new Map<string, number>();
  for (let i = start; i < endPrev; i++) pool.set(prev[i], (pool.get(prev[i]) ?? 0) + 1);

  const out: string[] = [];
  let added = 0;
  let anchor = start > 0 ? next[start - 1] : null;
  let inHunk = false;
  for (let i = start; i < endNext; i++) {
    const line = next[i];
    const left = pool.get(line) ?? 0;
    if (left > 0) {
      pool.set(line, left - 1);
      anchor = line;
      inHunk = false;
      continue;
    }
    if (!inHunk) {
      out.push(anchor === null ? '@@ at the top' : `@@ after: ${anchor.trim()}`);
      inHunk = true;
    }
    out.push(`+ ${line}`);
    added++;
  }
  const removedLines: string[] = [];
  for (let i = start; i < endPrev; i++) {
    const left = pool.get(prev[i]) ?? 0;
    if (left > 0) {
      pool.set(prev[i], left - 1);
      removedLines.push(`- ${prev[i]}`);
    }
  }
  if (removedLines.length) out.push('@@ removed:', ...removedLines);
  if (!added && !removedLines.length) return { kind: 'unchanged' };
  return { kind: 'diff', text: out.join('\n'), added, removed: removedLines.length };
}
