import type { ToolRecovery } from '../../tools/types';
import type { ToolRetryPolicy } from '../host/retry-policy';

/**
 * Retries of retry-safe tools (spec/004 "工具执行重试"): a transient failure — the content script
 * not injected yet, the tab still loading, the frame detached under the call — is retried with
 * bounded backoff before the model sees an error. Only `retry-safe` tools: running them twice is
 * harmless by their declaration; `inspect-first` and `never-retry` calls are never repeated here.
 */

export { DEFAULT_TOOL_RETRY, type ToolRetryPolicy } from '../host/retry-policy';

/** Host and page error codes that say "not ready yet" rather than "this failed". */
const TRANSIENT_CODES = new Set(['no_receiver', 'no_content_script', 'port_closed', 'no_frame']);

const TRANSIENT_MESSAGES = [
  /receiving end does not exist/i,
  /could not establish connection/i,
  /message port closed/i,
  /frame (?:with id \d+ )?(?:was )?(?:removed|detached)/i,
  /no frame with id/i,
  /tab is (?:still )?loading/i,
  /content script (?:is )?not (?:yet )?(?:injected|ready)/i,
];

/** Whether a thrown tool error is transient: by an explicit flag, a known code, or a known browser message. */
export function isTransientToolError(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const x = e as { transient?: unknown; code?: unknown; message?: unknown };
  if (x.transient === true) return true;
  if (typeof x.code === 'string' && TRANSIENT_CODES.has(x.code)) return true;
  return (
    typeof x.message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(x.message as string))
  );
}

export type RetryDecision =
  | { kind: 'retry'; delayMs: number; nextAttempt: number }
  | { kind: 'give_up' };

/** After attempt `attempt` (1-based) threw `error`: retry after a delay, or report the error. */
export function retryDecision(f: {
  recovery: ToolRecovery;
  attempt: number;
  error: unknown;
  policy: ToolRetryPolicy;
}): RetryDecision {
  if (
    f.recovery !== 'retry-safe' ||
    f.attempt >= f.policy.maxAttempts ||
    !isTransientToolError(f.error)
  )
    return { kind: 'give_up' };
  const delayMs = Math.min(f.policy.maxDelayMs, f.policy.baseDelayMs * 2 ** (f.attempt - 1));
  return { kind: 'retry', delayMs, nextAttempt: f.attempt + 1 };
}
