import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/providers/create-provider';
import { isOpenAIPlatform } from '../../../src/providers/openai-chat/provider';
import { corpusPath, responseForFile } from './helpers/corpus';
import { baseURLFor, providerFor, TEST_API_KEY, testRequest } from './helpers/harness';
import { JSON_HEADERS, startMockServer, type MockServer } from './helpers/mock-server';
import { drain } from './helpers/transcript';

/** What goes over the wire: paths, auth headers, injected fetch, and keys kept out of errors. */

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());
afterEach(() => server.reset());

describe('Anthropic transport', () => {
  it('sends the key as x-api-key, no Authorization, and the direct-browser-access header', async () => {
    server.plan(responseForFile(corpusPath('anthropic', 'a01-text-basic.sse')));
    await drain(
      providerFor('anthropic', server).stream(testRequest({ model: 'claude-sonnet-5-5' })),
    );
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe(TEST_API_KEY);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.headers['x-stainless-retry-count']).toBe('0');
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ model: 'claude-sonnet-5-5', stream: true, max_tokens: 16_384 });
  });
});

describe('OpenAI transport', () => {
  it('sends Bearer auth and stream_options.include_usage to /chat/completions', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o02-chat-single-tool-call.sse')));
    await drain(providerFor('openai', server).stream(testRequest({ model: 'gpt-4o' })));
    const [request] = server.requests;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(JSON.parse(request.body)).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'Hello' },
      ],
    });
  });

  it('sends no Authorization header to a keyless local server', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o02-chat-single-tool-call.sse')));
    await drain(providerFor('openai', server, { apiKey: '' }).stream(testRequest()));
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  it('uses max_tokens on compatible servers and max_completion_tokens on OpenAI', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o02-chat-single-tool-call.sse')));
    await drain(providerFor('openai', server).stream(testRequest({ maxOutputTokens: 321 })));
    expect(JSON.parse(server.requests[0].body)).toMatchObject({ max_tokens: 321 });
    expect(isOpenAIPlatform(undefined)).toBe(true);
    expect(isOpenAIPlatform('https://api.openai.com/v1')).toBe(true);
    expect(isOpenAIPlatform('http://localhost:11434/v1')).toBe(false);
    expect(isOpenAIPlatform('not a url')).toBe(false);
  });

  it('posts the Responses API to /responses', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o10-responses-single-function-call.sse')));
    await drain(providerFor('openai-responses', server).stream(testRequest({ model: 'gpt-5' })));
    const [request] = server.requests;
    expect(request.path).toBe('/v1/responses');
    expect(JSON.parse(request.body)).toMatchObject({
      model: 'gpt-5',
      stream: true,
      store: false,
      instructions: 'You are a test.',
    });
  });
});

describe('injected fetch', () => {
  for (const kind of ['anthropic', 'openai', 'openai-responses'] as const) {
    it(`is the only fetch used (${kind})`, async () => {
      const urls: string[] = [];
      const spy: typeof fetch = (input, init) => {
        urls.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      server.plan(
        responseForFile(
          kind === 'anthropic'
            ? corpusPath('anthropic', 'a01-text-basic.sse')
            : kind === 'openai'
              ? corpusPath('openai', 'o02-chat-single-tool-call.sse')
              : corpusPath('openai', 'o10-responses-single-function-call.sse'),
        ),
      );
      const provider = createProvider(
        { id: 'p', kind, baseURL: baseURLFor(kind, server), apiKey: TEST_API_KEY },
        { fetch: spy },
      );
      const events = await drain(provider.stream(testRequest()));
      expect(events[events.length - 1].type).toBe('stop');
      expect(urls).toHaveLength(1);
      expect(urls[0].startsWith(server.origin)).toBe(true);
    });
  }
});

describe('secrets', () => {
  const echoKey = (status: number) => ({
    status,
    headers: JSON_HEADERS,
    body: JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `Key ${TEST_API_KEY} is not valid; also sk-another-1234567890abcdef`,
      },
    }),
  });

  for (const kind of ['anthropic', 'openai', 'openai-responses'] as const) {
    it(`never puts the API key in an error message (${kind})`, async () => {
      server.plan(echoKey(401));
      const events = await drain(providerFor(kind, server).stream(testRequest()));
      expect(events).toHaveLength(1);
      const error = events[0].type === 'error' ? events[0].error : undefined;
      expect(error?.code).toBe('auth');
      expect(error?.message).not.toContain(TEST_API_KEY);
      expect(error?.message).not.toContain('sk-another');
      expect(error?.message).toContain('[redacted]');
    });
  }

  it('keeps the key out of network error messages too', async () => {
    const leakyFetch: typeof fetch = async () => {
      throw new TypeError(`connect failed for ${TEST_API_KEY}`);
    };
    const provider = createProvider(
      { id: 'p', kind: 'openai', baseURL: baseURLFor('openai', server), apiKey: TEST_API_KEY },
      { fetch: leakyFetch, retry: { maxAttempts: 1 } },
    );
    const events = await drain(provider.stream(testRequest()));
    expect(JSON.stringify(events)).not.toContain(TEST_API_KEY);
  });
});
