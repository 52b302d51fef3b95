import type { ProviderError, ProviderErrorCode, StreamEvent } from './types';
import { parseRetryAfter } from './retry-after';

/**
 * Turning failures into `ProviderError`s. The SDK-specific class checks live in each adapter; what is
 * here works on plain shapes (status, headers, JSON body) so it serves both SDKs and hand-made errors.
 */

export function providerError(
  code: ProviderErrorCode,
  message: string,
  extra: { status?: number; retryable?: boolean; retryAfterMs?: number } = {},
): ProviderError {
  const error: ProviderError = {
    code,
    message,
    retryable: extra.retryable ?? RETRYABLE_BY_DEFAULT.has(code),
  };
  if (extra.status !== undefined) error.status = extra.status;
  if (extra.retryAfterMs !== undefined) error.retryAfterMs = extra.retryAfterMs;
  return error;
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<ProviderErrorCode> = new Set([
  'rate_limit',
  'overloaded',
  'server',
  'network',
]);

export function errorEvent(error: ProviderError): StreamEvent {
  return { type: 'error', error };
}

export const abortedError = (): ProviderError =>
  providerError('aborted', 'The request was aborted.', { retryable: false });

export type JsonRecord = { [key: string]: unknown };

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null ? (value as JsonRecord) : undefined;
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * What an error body says, whichever API sent it. Anthropic: `{type:'error', error:{type, message}}`;
 * OpenAI: `{error:{message, type, code}}`, and the SDKs sometimes hand us only the inner object.
 */
export function describeErrorBody(body: unknown): {
  message?: string;
  type?: string;
  code?: string;
} {
  const outer = asRecord(body);
  const inner = asRecord(outer?.error) ?? outer;
  return {
    message: asString(inner?.message) ?? asString(outer?.message),
    type: asString(inner?.type) ?? asString(outer?.type),
    code: asString(inner?.code) ?? asString(outer?.code),
  };
}

export interface HttpFailure {
  /** Absent for an error event inside a 200 stream. */
  status?: number;
  headers?: Headers | null;
  body?: unknown;
  /** Used when the body carries no message. */
  fallbackMessage: string;
}

/**
 * Classifies an HTTP error (or an in-stream error event) by status and the provider's error type.
 * The provider's own message is kept: it is what tells a user that the key or the model is wrong.
 */
export function httpFailureToError(failure: HttpFailure): ProviderError {
  const { status } = failure;
  const described = describeErrorBody(failure.body);
  const kind = `${described.type ?? ''} ${described.code ?? ''}`;
  const message = described.message ?? failure.fallbackMessage;
  const retryAfterMs = failure.headers ? parseRetryAfter(failure.headers) : undefined;
  const extra = { status, retryAfterMs };

  if (status === 529 || /overloaded/.test(kind)) return providerError('overloaded', message, extra);
  // Out of credit: a 429 that no amount of waiting within a run will fix.
  if (/insufficient_quota|billing/.test(kind)) {
    return providerError('rate_limit', message, { ...extra, retryable: false });
  }
  if (status === 429 || /rate_limit/.test(kind)) return providerError('rate_limit', message, extra);
  if (status === 401 || status === 403 || /authentication|permission|invalid_api_key/.test(kind)) {
    return providerError('auth', message, extra);
  }
  // 408 / 409 are what both SDKs retry by default: a timeout or a lock conflict on their side.
  if (status === 408 || status === 409) return providerError('server', message, extra);
  if (status !== undefined && status >= 500) return providerError('server', message, extra);
  if (status !== undefined && status >= 400) return providerError('bad_request', message, extra);
  if (/api_error|server_error|internal/.test(kind)) return providerError('server', message, extra);
  return providerError('stream', message, { ...extra, retryable: false });
}

/**
 * Errors that are not HTTP errors: a TypeError from fetch is a network failure; a SyntaxError is a
 * malformed stream; anything else is reported as a stream failure with its message. (Callers check
 * their AbortSignal first: after an abort every failure is an abort.)
 */
export function unknownFailureToError(err: unknown): ProviderError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof SyntaxError)
    return providerError('stream', `Malformed stream data: ${message}`);
  if (err instanceof TypeError) return providerError('network', message || 'Network error.');
  return providerError('stream', message || 'Unknown provider failure.');
}

const REDACTED = '[redacted]';

/**
 * Removes secrets from a message. Besides the exact key we also mask anything shaped like a key
 * (`sk-…`, `sk-ant-…`, long bearer tokens), because a proxy may echo a different key than ours.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(/\bsk-[A-Za-z0-9_-]{12,}/g, REDACTED)
    .replace(/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi, `$1${REDACTED}`);
}

export function scrubError(error: ProviderError, secrets: readonly string[]): ProviderError {
  return { ...error, message: scrubSecrets(error.message, secrets) };
}
