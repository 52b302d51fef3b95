import type { Usage } from '../src/protocol';
import { currentLocale, t } from './i18n';

/** Compact token counts for a narrow panel: 950, 12.3k, 1.2M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Small costs need more digits than a currency formatter gives by default. */
export function formatCost(usd: number): string {
  const digits = usd === 0 ? 2 : usd < 0.01 ? 4 : usd < 1 ? 3 : 2;
  return `$${usd.toFixed(digits)}`;
}

/** Tokens in and out, the share of the input read from the provider's cache, and the cost (cache-priced). */
export function formatUsage(usage: Usage, costUsd?: number): string {
  const parts = [
    t('usageTokens', formatTokens(usage.inputTokens), formatTokens(usage.outputTokens)),
  ];
  const cached = usage.cacheReadTokens ?? 0;
  if (cached > 0 && usage.inputTokens > 0)
    parts.push(
      t('usageCached', Math.round((100 * Math.min(cached, usage.inputTokens)) / usage.inputTokens)),
    );
  // No price known for the model means no cost (a thread's total starts at 0, not "free").
  if (costUsd !== undefined && costUsd > 0) parts.push(formatCost(costUsd));
  return parts.join(' · ');
}

export function formatTime(ms: number): string {
  const d = new Date(ms);
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  const opts: Intl.DateTimeFormatOptions = sameDay
    ? { hour: '2-digit', minute: '2-digit' }
    : { month: 'short', day: 'numeric' };
  try {
    return new Intl.DateTimeFormat(currentLocale(), opts).format(d);
  } catch {
    return d.toLocaleString();
  }
}

/** Parameters as people read them: pretty JSON, never throwing on odd values. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
