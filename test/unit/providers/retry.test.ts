import { describe, expect, it } from 'vitest';
import { providerError } from '../../../src/providers/errors';
import { guardStream } from '../../../src/providers/guard';
import { parseRetryAfter } from '../../../src/providers/retry-after';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  defaultSleep,
  streamWithRetry,
} from '../../../src/providers/retry';
import type { ProviderError, StreamEvent } from '../../../src/providers/types';
import { recordingSleep } from './helpers/harness';
import { drain } from './helpers/transcript';

async function* play(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  yield* events;
}

const usage: StreamEvent = { type: 'usage', usage: { inputTokens: 10, outputTokens: 1 } };
const hello: StreamEvent = { type: 'text_delta', text: 'hello' };
const stop: StreamEvent = { type: 'stop', reason: 'end' };
const fail = (error: ProviderError): StreamEvent => ({ type: 'error', error });
const overloaded = providerError('overloaded', 'Overloaded');

describe('streamWithRetry', () => {
  it('retries a retryable error before the first token and drops that attempt’s usage', async () => {
    const attempts = [
      [usage, fail(overloaded)],
      [{ ...usage, usage: { inputTokens: 11, outputTokens: 1 } }, hello, stop],
    ];
    const sleep = recordingSleep();
    const events = await drain(
      streamWithRetry((n) => play(attempts[n - 1]), {
        signal: new AbortController().signal,
        sleep,
        random: () => 0,
      }),
    );
    expect(events).toEqual([
      { type: 'usage', usage: { inputTokens: 11, outputTokens: 1 } },
      hello,
      stop,
    ]);
    expect(sleep.delays).toEqual([500]);
  });

  it('does not retry once a token has been yielded', async () => {
    let attempts = 0;
    const events = await drain(
      streamWithRetry(
        () => {
          attempts++;
          return play([usage, hello, fail(overloaded)]);
        },
        { signal: new AbortController().signal, sleep: recordingSleep() },
      ),
    );
    expect(attempts).toBe(1);
    expect(events).toEqual([usage, hello, fail(overloaded)]);
  });

  it('does not retry non-retryable errors', async () => {
    let attempts = 0;
    const auth = providerError('auth', 'bad key', { status: 401 });
    const events = await drain(
      streamWithRetry(
        () => {
          attempts++;
          return play([fail(auth)]);
        },
        { signal: new AbortController().signal, sleep: recordingSleep() },
      ),
    );
    expect(attempts).toBe(1);
    expect(events).toEqual([fail(auth)]);
  });

  it('stops after maxAttempts and reports the last error', async () => {
    const sleep = recordingSleep();
    let attempts = 0;
    const events = await drain(
      streamWithRetry(
        (n) => {
          attempts++;
          return play([fail(providerError('server', `boom ${n}`, { status: 500 }))]);
        },
        {
          signal: new AbortController().signal,
          sleep,
          random: () => 1,
          policy: { maxAttempts: 3 },
        },
      ),
    );
    expect(attempts).toBe(3);
    expect(sleep.delays).toEqual([1000, 2000]);
    expect(events).toEqual([fail(providerError('server', 'boom 3', { status: 500 }))]);
  });

  it('lets a stop with no content through (refusal with nothing to show)', async () => {
    const refusal: StreamEvent = { type: 'stop', reason: 'refusal' };
    expect(
      await drain(
        streamWithRetry(() => play([usage, refusal]), { signal: new AbortController().signal }),
      ),
    ).toEqual([usage, refusal]);
  });

  it('reports an abort that happens during the wait', async () => {
    const controller = new AbortController();
    const events = await drain(
      streamWithRetry(() => play([fail(overloaded)]), {
        signal: controller.signal,
        sleep: async () => controller.abort(),
      }),
    );
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
      },
    ]);
  });
});

describe('backoffDelay', () => {
  const policy = DEFAULT_RETRY_POLICY;
  it('doubles per attempt with equal jitter and a ceiling', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, overloaded, policy, () => 0))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, overloaded, policy, () => 0.999999))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(backoffDelay(10, overloaded, policy, () => 1)).toBe(30_000);
  });
  it('follows the server hint, capped', () => {
    expect(backoffDelay(1, { ...overloaded, retryAfterMs: 2500 }, policy, () => 0)).toBe(2500);
    expect(backoffDelay(1, { ...overloaded, retryAfterMs: 0 }, policy, () => 0)).toBe(0);
    expect(backoffDelay(1, { ...overloaded, retryAfterMs: 999_999 }, policy, () => 0)).toBe(60_000);
  });
});

describe('parseRetryAfter', () => {
  const headers = (init: Record<string, string>) => new Headers(init);
  it('reads retry-after-ms first, then seconds, then an HTTP date', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '1234.4', 'retry-after': '9' }))).toBe(1234);
    expect(parseRetryAfter(headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(headers({ 'retry-after': '0.5' }))).toBe(500);
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(
      parseRetryAfter(headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' }), () => now),
    ).toBe(30_000);
    expect(
      parseRetryAfter(headers({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }), () => now),
    ).toBe(0);
  });
  it('ignores missing or malformed hints', () => {
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': '-4' }))).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after-ms': 'x', 'retry-after': '2' }))).toBe(2000);
  });
});

describe('defaultSleep', () => {
  it('returns early when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = defaultSleep(10_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('guardStream', () => {
  const signal = new AbortController().signal;
  it('ends a stream that stopped without a terminal event with an error', async () => {
    expect(await drain(guardStream(play([hello]), { signal }))).toEqual([
      hello,
      {
        type: 'error',
        error: {
          code: 'stream',
          message: 'The stream ended without a stop reason.',
          retryable: false,
        },
      },
    ]);
  });
  it('drops anything after the terminal event', async () => {
    expect(await drain(guardStream(play([hello, stop, hello, stop]), { signal }))).toEqual([
      hello,
      stop,
    ]);
  });
  it('turns a throwing source into an error event, scrubbing secrets', async () => {
    async function* throwing(): AsyncGenerator<StreamEvent> {
      yield hello;
      throw new Error('boom with key-SECRET-123');
    }
    expect(await drain(guardStream(throwing(), { signal, secrets: ['key-SECRET-123'] }))).toEqual([
      hello,
      {
        type: 'error',
        error: { code: 'stream', message: 'boom with [redacted]', retryable: false },
      },
    ]);
  });
});
