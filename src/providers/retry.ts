import { abortedError, errorEvent } from './errors';
import type { ProviderError, StreamEvent } from './types';

/**
 * Retries before the first token (ARCHITECTURE.md "Providers").
 *
 * An attempt may be retried only while nothing the engine would render has been yielded: leading
 * `usage` events (Anthropic's message_start) are held back, so an `overloaded_error` that arrives
 * right after message_start is still retried. Once a text / thinking / tool / stop event has been
 * yielded, a failure ends the stream with `error` and the engine resumes from its checkpoint —
 * replaying half a message would duplicate deltas the UI has already shown.
 */

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  /** Delay before the second attempt; doubled for each further attempt. */
  baseDelayMs: number;
  /** Upper bound of the exponential delay. */
  maxDelayMs: number;
  /** Upper bound of a server's retry-after hint, so a "retry in an hour" does not park a run. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** Resolves after `ms`, or as soon as `signal` aborts (it never rejects). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;
/** A number in [0, 1), like Math.random. */
export type Random = () => number;

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Delay before attempt `attempt + 1`. A server hint wins (capped); otherwise exponential backoff
 * with "equal jitter": half the step is fixed, half random, so clients that failed together spread
 * out without any of them retrying immediately.
 */
export function backoffDelay(
  attempt: number,
  error: ProviderError,
  policy: RetryPolicy,
  random: Random,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxRetryAfterMs);
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

export interface RetryOptions {
  signal: AbortSignal;
  policy?: Partial<RetryPolicy>;
  sleep?: Sleep;
  random?: Random;
  /** Observes each scheduled retry (for logs and tests). */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

/**
 * Runs `attempt(n)` (n = 1, 2, …) until one succeeds, fails after its first token, fails with a
 * non-retryable error, or attempts run out. Each attempt must be a normalized stream that never
 * throws and ends with one terminal event.
 */
export async function* streamWithRetry(
  attempt: (n: number) => AsyncIterable<StreamEvent>,
  options: RetryOptions,
): AsyncGenerator<StreamEvent> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const { signal } = options;

  for (let n = 1; ; n++) {
    if (signal.aborted) {
      yield errorEvent(abortedError());
      return;
    }
    const held: StreamEvent[] = [];
    let committed = false;
    let failure: ProviderError | undefined;

    for await (const event of attempt(n)) {
      if (!committed) {
        if (event.type === 'usage') {
          held.push(event);
          continue;
        }
        if (event.type === 'error') {
          failure = event.error;
          break;
        }
        committed = true;
        yield* held;
      }
      yield event;
      if (event.type === 'stop' || event.type === 'error') return;
    }

    // An attempt that ended without a terminal event is the guard's business, not ours.
    if (failure === undefined) return;
    const canRetry = failure.retryable && failure.code !== 'aborted' && n < policy.maxAttempts;
    if (!canRetry || signal.aborted) {
      yield errorEvent(signal.aborted ? abortedError() : failure);
      return;
    }
    const delayMs = backoffDelay(n, failure, policy, random);
    options.onRetry?.({ attempt: n, delayMs, error: failure });
    await sleep(delayMs, signal);
  }
}
