/**
 * Reconnect delays: fast first retries (a worker restart usually takes well under a second), then
 * exponential growth capped so the panel never waits long once the worker is back. Jitter spreads
 * several panels reconnecting at once.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0..1: the fraction of each delay that is randomized. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 5_000, jitter: 0.2 };

export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
  random = Math.random,
): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt));
  const spread = exp * opts.jitter;
  return Math.round(exp - spread + random() * spread);
}
