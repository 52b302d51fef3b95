/**
 * Reads how long the server asked us to wait. `retry-after-ms` (OpenAI, Anthropic) is more precise
 * than `retry-after`, which is either delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns undefined when there is no usable hint; the caller applies its own cap.
 */
export function parseRetryAfter(
  headers: Headers,
  now: () => number = Date.now,
): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}
