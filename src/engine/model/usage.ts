import type { Usage } from '../../protocol';
import { costUsd } from '../../providers/cost';

export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (x?: number, y?: number) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const out: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
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

/**
 * USD cost of one call's usage at per-million-token prices; undefined when prices are unknown.
 * `inputTokens` is the whole prompt, cache reads and writes included (the adapters' convention):
 * those parts are billed at their own rates, not on top (cost.ts).
 */
export function costOf(
  usage: Usage,
  pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number },
): number | undefined {
  return costUsd({ pricing }, usage);
}

/** Share of the prompt read from the provider's cache (0–1); undefined with no input. */
export function cachedShare(usage: Usage): number | undefined {
  if (usage.inputTokens <= 0) return undefined;
  return Math.min(1, (usage.cacheReadTokens ?? 0) / usage.inputTokens);
}
