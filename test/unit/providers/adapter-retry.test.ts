import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sleep } from '../../../src/providers/retry';
import type { StreamEvent } from '../../../src/providers/types';
import { corpusPath, responseFixture, responseForFile, sseFixture } from './helpers/corpus';
import { providerFor, recordingSleep, testRequest } from './helpers/harness';
import { JSON_HEADERS, startMockServer, type MockServer } from './helpers/mock-server';
import { drain, transcript } from './helpers/transcript';

/**
 * Retries, aborts and the gap fixtures, through the real SDK adapters against 127.0.0.1.
 * With random() = 0.5 and the default policy, backoff waits are 750, 1500, 3000 ms.
 */

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());
afterEach(() => server.reset());

const serverError = (status: number, message = 'Internal server error') => ({
  status,
  headers: JSON_HEADERS,
  body: JSON.stringify({ error: { message, type: 'server_error' } }),
});

const terminal = (events: StreamEvent[]) => events[events.length - 1];

describe('retries before the first token', () => {
  it('retries an in-stream overloaded_error that arrives before any content (Anthropic)', async () => {
    server.plan(
      sseFixture('anthropic-overloaded-before-content.sse'),
      responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')),
    );
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('anthropic', server, { deps: { sleep } }).stream(testRequest()),
    );
    expect(server.requests).toHaveLength(2);
    expect(sleep.delays).toEqual([750]);
    // The failed attempt's usage (message_start) is dropped with it.
    expect(transcript(events)).toEqual([
      { type: 'usage', usage: { inputTokens: 11, outputTokens: 1 } },
      { type: 'text', text: 'Hello there!' },
      { type: 'usage', usage: { inputTokens: 11, outputTokens: 6 } },
      { type: 'stop', reason: 'end', providerReason: 'end_turn' },
    ]);
  });

  it('honours retry-after on an Anthropic 429, then succeeds', async () => {
    server.plan(
      responseFixture('anthropic-429-retry-after.response.json'),
      responseForFile(corpusPath('anthropic', 'a13-usage-in-message-delta.chunks.jsonl')),
    );
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('anthropic', server, { deps: { sleep } }).stream(testRequest()),
    );
    expect(sleep.delays).toEqual([7000]);
    expect(terminal(events)).toEqual({ type: 'stop', reason: 'end', providerReason: 'end_turn' });
  });

  it('reports an exhausted Anthropic 429 with the provider message and the hint', async () => {
    const planned = responseFixture('anthropic-429-retry-after.response.json');
    server.plan(planned, planned);
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('anthropic', server, { deps: { sleep, retry: { maxAttempts: 2 } } }).stream(
        testRequest(),
      ),
    );
    expect(server.requests).toHaveLength(2);
    expect(events).toEqual([
      {
        type: 'error',
        error: {
          code: 'rate_limit',
          status: 429,
          retryable: true,
          retryAfterMs: 7000,
          message:
            'This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.',
        },
      },
    ]);
  });

  it('retries HTTP 529 overloaded', async () => {
    server.plan(
      responseFixture('anthropic-529-overloaded.response.json'),
      responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')),
    );
    const events = await drain(providerFor('anthropic', server).stream(testRequest()));
    expect(server.requests).toHaveLength(2);
    expect(terminal(events)).toMatchObject({ type: 'stop', reason: 'end' });
  });

  it('prefers retry-after-ms on an OpenAI 429 (Chat Completions)', async () => {
    server.plan(
      responseFixture('openai-429-retry-after.response.json'),
      responseForFile(corpusPath('openai', 'o02-chat-single-tool-call.sse')),
    );
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('openai', server, { deps: { sleep } }).stream(testRequest()),
    );
    expect(sleep.delays).toEqual([1500]);
    expect(terminal(events)).toEqual({
      type: 'stop',
      reason: 'tool_use',
      providerReason: 'tool_calls',
    });
  });

  it('honours retry-after on a 429 from the Responses API', async () => {
    server.plan(
      responseFixture('openai-429-retry-after.response.json'),
      responseForFile(corpusPath('openai', 'o10-responses-single-function-call.sse')),
    );
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('openai-responses', server, { deps: { sleep } }).stream(testRequest()),
    );
    expect(sleep.delays).toEqual([1500]);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    expect(terminal(events)).toMatchObject({ type: 'stop', reason: 'tool_use' });
  });

  it('caps a long retry-after at 60 s', async () => {
    server.plan(
      {
        status: 429,
        headers: { ...JSON_HEADERS, 'retry-after': '3600' },
        body: '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}',
      },
      responseForFile(corpusPath('openai', 'o08-chat-long-text.chunks.jsonl')),
    );
    const sleep = recordingSleep();
    await drain(providerFor('openai', server, { deps: { sleep } }).stream(testRequest()));
    expect(sleep.delays).toEqual([60_000]);
  });

  it('backs off exponentially on 5xx and gives up after maxAttempts', async () => {
    server.plan(
      serverError(500),
      serverError(502),
      serverError(503),
      serverError(500, 'still broken'),
    );
    const sleep = recordingSleep();
    const events = await drain(
      providerFor('openai', server, { deps: { sleep } }).stream(testRequest()),
    );
    expect(server.requests).toHaveLength(4);
    expect(sleep.delays).toEqual([750, 1500, 3000]);
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'server', status: 500, retryable: true, message: 'still broken' },
      },
    ]);
  });

  it('uses its own retries only: the SDK does not retry behind our back', async () => {
    server.plan(serverError(500), serverError(500));
    const events = await drain(
      providerFor('anthropic', server, { deps: { retry: { maxAttempts: 1 } } }).stream(
        testRequest(),
      ),
    );
    expect(server.requests).toHaveLength(1);
    expect(terminal(events)).toMatchObject({
      type: 'error',
      error: { code: 'server', status: 500 },
    });
  });

  it('does not retry 401', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o09-http401-invalid-api-key.json')));
    const events = await drain(providerFor('openai', server).stream(testRequest()));
    expect(server.requests).toHaveLength(1);
    expect(terminal(events)).toMatchObject({
      type: 'error',
      error: { code: 'auth', retryable: false },
    });
  });

  it('maps 400 to bad_request with the provider message, without retrying', async () => {
    server.plan({
      status: 400,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'model: not found' },
      }),
    });
    const events = await drain(providerFor('anthropic', server).stream(testRequest()));
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'bad_request', status: 400, retryable: false, message: 'model: not found' },
      },
    ]);
  });

  it('retries a network failure', async () => {
    let calls = 0;
    const flakyFetch: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    server.plan(responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')));
    const events = await drain(
      providerFor('anthropic', server, { deps: { fetch: flakyFetch } }).stream(testRequest()),
    );
    expect(calls).toBe(2);
    expect(terminal(events)).toMatchObject({ type: 'stop', reason: 'end' });
  });

  it('reports a network failure when attempts run out', async () => {
    const deadFetch: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const events = await drain(
      providerFor('openai', server, {
        deps: { fetch: deadFetch, retry: { maxAttempts: 2 } },
      }).stream(testRequest()),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: { code: 'network', retryable: true } });
  });

  it('retries a stream cut before any content', async () => {
    server.plan(
      {
        body: 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
      },
      responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')),
    );
    const events = await drain(providerFor('anthropic', server).stream(testRequest()));
    expect(server.requests).toHaveLength(2);
    expect(terminal(events)).toMatchObject({ type: 'stop', reason: 'end' });
  });
});

describe('after the first token', () => {
  it('ends the stream on an in-stream overloaded_error (Anthropic), no retry', async () => {
    server.plan(
      sseFixture('anthropic-overloaded-after-text.sse'),
      responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')),
    );
    const events = await drain(providerFor('anthropic', server).stream(testRequest()));
    expect(server.requests).toHaveLength(1);
    expect(transcript(events)).toEqual([
      {
        type: 'usage',
        usage: { inputTokens: 25, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { type: 'text', text: 'Let me look at the page' },
      { type: 'error', error: { code: 'overloaded', message: 'Overloaded', retryable: true } },
    ]);
  });

  it('ends with a network error when the connection drops mid-message', async () => {
    server.plan({
      chunks: [
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n',
      ],
    });
    const events = await drain(providerFor('openai', server).stream(testRequest()));
    expect(server.requests).toHaveLength(1);
    expect(transcript(events)).toEqual([
      { type: 'text', text: 'Hel' },
      {
        type: 'error',
        error: {
          code: 'network',
          message: 'The connection closed before the message was complete.',
          retryable: true,
        },
      },
    ]);
  });
});

describe('content filter (gap fixtures)', () => {
  it('Chat Completions finish_reason content_filter', async () => {
    server.plan(sseFixture('openai-chat-content-filter.sse'));
    const events = await drain(providerFor('openai', server).stream(testRequest()));
    expect(transcript(events)).toEqual([
      { type: 'text', text: 'Here is the story you' },
      {
        type: 'usage',
        usage: { inputTokens: 21, outputTokens: 4, cacheReadTokens: 0, reasoningTokens: 0 },
      },
      { type: 'stop', reason: 'content_filter', providerReason: 'content_filter' },
    ]);
  });

  it('Responses incomplete with reason content_filter', async () => {
    server.plan(sseFixture('openai-responses-content-filter.sse'));
    const events = await drain(providerFor('openai-responses', server).stream(testRequest()));
    expect(transcript(events)).toEqual([
      { type: 'text', text: 'Here is the story you' },
      {
        type: 'usage',
        usage: { inputTokens: 21, outputTokens: 4, cacheReadTokens: 0, reasoningTokens: 0 },
      },
      { type: 'stop', reason: 'content_filter', providerReason: 'content_filter' },
    ]);
  });
});

describe('abort', () => {
  it('before the call: no request is sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await drain(
      providerFor('anthropic', server).stream(testRequest({ signal: controller.signal })),
    );
    expect(server.requests).toHaveLength(0);
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
      },
    ]);
  });

  it('during the backoff wait', async () => {
    const controller = new AbortController();
    const sleep: Sleep = async (_ms, signal) => {
      controller.abort();
      expect(signal.aborted).toBe(true);
    };
    server.plan(serverError(503), serverError(503));
    const events = await drain(
      providerFor('openai', server, { deps: { sleep } }).stream(
        testRequest({ signal: controller.signal }),
      ),
    );
    expect(server.requests).toHaveLength(1);
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
      },
    ]);
  });

  for (const kind of ['anthropic', 'openai', 'openai-responses'] as const) {
    it(`while waiting for the response headers (${kind})`, async () => {
      server.plan({ silent: true });
      const closed = server.clientClosed();
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 30);
      const events = await drain(
        providerFor(kind, server).stream(testRequest({ signal: controller.signal })),
      );
      await closed;
      expect(events).toEqual([
        {
          type: 'error',
          error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
        },
      ]);
    });

    it(`during the stream (${kind})`, async () => {
      const chunk =
        kind === 'anthropic'
          ? 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","usage":{"input_tokens":3,"output_tokens":1}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n'
          : kind === 'openai'
            ? 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
            : 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg","output_index":0,"content_index":0,"delta":"Hi","sequence_number":1}\n\n';
      server.plan({ chunks: [chunk], hang: true });
      const closed = server.clientClosed();
      const controller = new AbortController();
      const events: StreamEvent[] = [];
      for await (const event of providerFor(kind, server).stream(
        testRequest({ signal: controller.signal }),
      )) {
        events.push(event);
        if (event.type === 'text_delta') controller.abort();
      }
      await closed;
      expect(transcript(events).slice(-2)).toEqual([
        { type: 'text', text: 'Hi' },
        {
          type: 'error',
          error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
        },
      ]);
    });
  }
});
