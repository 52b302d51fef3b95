import type { Usage } from '../protocol';

export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const out: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  const cr = sum(a.cacheReadTokens, b.cacheReadTokens);
  const cw = sum(a.cacheWriteTokens, b.cacheWriteTokens);
  const rt = sum(a.reasoningTokens, b.reasoningTokens);
  if (cr !== undefined) out.cacheReadTokens = cr;
  if (cw !== undefined) out.cacheWriteTokens = cw;
  if (rt !== undefined) out.reasoningTokens = rt;
  return out;
}

export function totalTokens(u: Usage): number {
  return u.inputTokens + u.outputTokens;
}

/** USD cost of one call's usage at per-million-token prices; undefined when prices are unknown. */
export function costOf(usage: Usage, pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number }): number | undefined {
  if (!pricing) return undefined;
  const m = 1_000_000;
  return (
    (usage.inputTokens * pricing.input) / m +
    (usage.outputTokens * pricing.output) / m +
    ((usage.cacheReadTokens ?? 0) * (pricing.cacheRead ?? pricing.input)) / m +
    ((usage.cacheWriteTokens ?? 0) * (pricing.cacheWrite ?? pricing.input)) / m
  );
}
