import { describe, expect, it } from 'vitest';
import {
  httpFailureToError,
  scrubSecrets,
  unknownFailureToError,
} from '../../../src/providers/errors';

describe('httpFailureToError', () => {
  const classify = (status: number | undefined, body: unknown, headers?: Record<string, string>) =>
    httpFailureToError({
      status,
      body,
      headers: headers ? new Headers(headers) : undefined,
      fallbackMessage: 'fallback',
    });

  it('maps statuses to codes and retryability', () => {
    const table: [number, string, boolean][] = [
      [400, 'bad_request', false],
      [401, 'auth', false],
      [403, 'auth', false],
      [404, 'bad_request', false],
      [408, 'server', true],
      [409, 'server', true],
      [413, 'bad_request', false],
      [422, 'bad_request', false],
      [429, 'rate_limit', true],
      [500, 'server', true],
      [502, 'server', true],
      [503, 'server', true],
      [529, 'overloaded', true],
    ];
    for (const [status, code, retryable] of table) {
      expect(classify(status, undefined), String(status)).toMatchObject({
        code,
        retryable,
        status,
        message: 'fallback',
      });
    }
  });

  it('uses the error type when there is no status (in-stream errors)', () => {
    expect(
      classify(undefined, {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      }),
    ).toEqual({
      code: 'overloaded',
      message: 'Overloaded',
      retryable: true,
    });
    expect(
      classify(undefined, { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } }),
    ).toMatchObject({ code: 'rate_limit', retryable: true });
    expect(
      classify(undefined, { type: 'error', error: { type: 'api_error', message: 'oops' } }),
    ).toMatchObject({ code: 'server', retryable: true });
    expect(
      classify(undefined, {
        message: 'odd',
        type: 'invalid_request_error',
        code: 'tool_use_failed',
      }),
    ).toMatchObject({ code: 'stream', retryable: false });
  });

  it('treats an exhausted quota as a rate limit that waiting will not fix', () => {
    expect(
      classify(429, {
        error: { message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' },
      }),
    ).toMatchObject({
      code: 'rate_limit',
      retryable: false,
    });
  });

  it('keeps the retry-after hint', () => {
    expect(classify(429, {}, { 'retry-after': '2' })).toMatchObject({ retryAfterMs: 2000 });
  });
});

describe('unknownFailureToError', () => {
  it('classifies fetch and parse failures', () => {
    expect(unknownFailureToError(new TypeError('terminated'))).toMatchObject({
      code: 'network',
      retryable: true,
    });
    expect(unknownFailureToError(new SyntaxError('Unexpected token'))).toMatchObject({
      code: 'stream',
      retryable: false,
    });
    expect(unknownFailureToError('weird')).toMatchObject({ code: 'stream', message: 'weird' });
  });
});

describe('scrubSecrets', () => {
  it('removes the key and anything key-shaped', () => {
    expect(scrubSecrets('bad key abcd-SECRET-99 here', ['abcd-SECRET-99'])).toBe(
      'bad key [redacted] here',
    );
    expect(scrubSecrets('got sk-ant-api03-AAAAAAAAAAAAAAAA and sk-proj-BBBBBBBBBBBBBBBB', [])).toBe(
      'got [redacted] and [redacted]',
    );
    expect(scrubSecrets('Authorization: Bearer abcdefghijklmnop', [])).toBe(
      'Authorization: Bearer [redacted]',
    );
    // Masked keys as providers print them stay readable.
    expect(scrubSecrets('Incorrect API key provided: invalid-*****2345.', [])).toBe(
      'Incorrect API key provided: invalid-*****2345.',
    );
    // Short or empty secrets are not scrubbed (an empty key would erase everything).
    expect(scrubSecrets('abc', [''])).toBe('abc');
  });
});
