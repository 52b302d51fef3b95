import type { Usage } from '../protocol';
import type { ModelInfo } from './types';

/**
 * Cost of one model call in USD, or undefined when the model has no price (unknown models: the UI
 * shows no cost rather than a wrong one).
 *
 * `usage.inputTokens` is the whole prompt (see the adapters); cache reads and writes are parts of it
 * billed at their own rates, the rest at the input rate. A missing cache rate falls back to the
 * input rate, the conservative choice. Reasoning tokens are already counted in `outputTokens`.
 */
export function costUsd(model: Pick<ModelInfo, 'pricing'>, usage: Usage): number | undefined {
  const pricing = model.pricing;
  if (!pricing) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const micros =
    uncached * pricing.input +
    cacheRead * (pricing.cacheRead ?? pricing.input) +
    cacheWrite * (pricing.cacheWrite ?? pricing.input) +
    usage.outputTokens * pricing.output;
  return micros / 1_000_000;
}
