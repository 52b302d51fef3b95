/**
 * How the engine's host retries transient tool failures (the options `EngineOptions.toolRetry` and
 * `sleep` default to): data and the real-timer sleep, with no engine logic, so the host layer
 * can name its defaults without importing the call layer. The decision that uses them is
 * call/tool-retry.ts; the simulation injects a virtual-clock sleep instead.
 */

export interface ToolRetryPolicy {
  /** Attempts in all, the first included (spec/004: 3). */
  maxAttempts: number;
  /** Delay before the 2nd attempt; doubled for each later one, capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_TOOL_RETRY: ToolRetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 300,
  maxDelayMs: 2_000,
};

/** The default sleep: resolves after `ms`, rejects at once when `signal` fires. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
