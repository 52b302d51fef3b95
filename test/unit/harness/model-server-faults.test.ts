import Anthropic, { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import OpenAI, { type APIError as OpenAIAPIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../e2e/harness/model-server';
import type { ModelServer, ModelServerOptions } from '../../e2e/harness/model-server';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ModelServerOptions) {
  server = await startModelServer(options);
  return server;
}

const chatAsk = { model: 'm', messages: [{ role: 'user' as const, content: 'hello' }] };
const anthropicAsk = {
  model: 'claude-test',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'hello' }],
};

function openai(s: ModelServer, maxRetries = 0) {
  return new OpenAI({ baseURL: s.baseURL('openai'), apiKey: 'sk-keel-test', maxRetries });
}

describe('model server: fault injection', () => {
  it('answers 429 with retry-after, and the SDK retries into the next step', async () => {
    const s = await start({
      script: [{ httpStatus: 429, retryAfter: 0.3 }, { text: 'after the wait' }],
    });
    const started = Date.now();
    const completion = await openai(s, 1).chat.completions.create(chatAsk);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(completion.choices[0].message.content).toBe('after the wait');
    expect(s.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it('answers 500 with the API-specific error body', async () => {
    const s = await start({
      script: [{ httpStatus: 500, errorMessage: 'boom' }, { httpStatus: 529 }],
    });
    const client = new Anthropic({ baseURL: s.baseURL('anthropic'), apiKey: 'k', maxRetries: 0 });
    const err = await client.messages.create(anthropicAsk).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as AnthropicAPIError).error).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: 'boom' },
    });
    const overloaded = await client.messages.create(anthropicAsk).catch((e: unknown) => e);
    expect((overloaded as AnthropicAPIError).status).toBe(529);
    expect((overloaded as AnthropicAPIError).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
  });

  it('breaks a stream with an in-stream error event after the chosen number of deltas (all three APIs)', async () => {
    const reply = {
      text: 'one two three four',
      midStreamError: { afterDeltas: 2, message: 'Overloaded' },
    };
    const s = await start({ script: [reply, reply, reply] });

    const chatText: string[] = [];
    const chat = async () => {
      for await (const chunk of await openai(s).chat.completions.create({
        ...chatAsk,
        stream: true,
      })) {
        chatText.push(chunk.choices[0]?.delta.content ?? '');
      }
    };
    await expect(chat()).rejects.toThrow(/Overloaded/);
    expect(chatText.join('')).toBe('one two ');

    const anthropic = new Anthropic({
      baseURL: s.baseURL('anthropic'),
      apiKey: 'k',
      maxRetries: 0,
    });
    const err = await anthropic.messages
      .stream(anthropicAsk)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnthropicAPIError);
    expect((err as AnthropicAPIError).error).toMatchObject({ error: { type: 'overloaded_error' } });

    const responses = new OpenAI({
      baseURL: s.baseURL('openai-responses'),
      apiKey: 'k',
      maxRetries: 0,
    });
    await expect(
      responses.responses.stream({ model: 'm', input: 'x' }).finalResponse(),
    ).rejects.toThrow(/Overloaded/);
  });

  it('hangs mid-stream and records that the client went away', async () => {
    const s = await start({
      script: [{ text: 'first second third', hangMs: 5_000, hangAfterDeltas: 1 }],
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const started = Date.now();
    const stream = await openai(s).chat.completions.create(
      { ...chatAsk, stream: true },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (text) {
        seen.push(text);
        controller.abort();
      }
    }
    expect(seen).toEqual(['first ']);
    await expect.poll(() => s.requests[0].aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('waits delayMs before every delta', async () => {
    const s = await start({ script: [{ text: 'a b c d', delayMs: 60 }] });
    const started = Date.now();
    await openai(s).chat.completions.stream(chatAsk).finalChatCompletion();
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 60 - 20);
  });
});

describe('model server: script and recording', () => {
  it('passes the recorded request to function steps, and respond() answers without using a step', async () => {
    const s = await start({
      script: [
        (req) => ({
          text: `you said ${(req.body.messages as { content: string }[]).at(-1)?.content}`,
        }),
      ],
      respond: (req) => (req.body.stream ? undefined : { text: 'Title' }),
    });
    const client = openai(s);
    expect((await client.chat.completions.create(chatAsk)).choices[0].message.content).toBe(
      'Title',
    );
    expect(s.remaining).toBe(1);
    expect(
      (await client.chat.completions.stream(chatAsk).finalChatCompletion()).choices[0].message
        .content,
    ).toBe('you said hello');
    expect(s.remaining).toBe(0);
  });

  it('refuses a request beyond the script with a 400 and records a failure', async () => {
    const s = await start({ script: [] });
    const err = await openai(s)
      .chat.completions.create(chatAsk)
      .catch((e: unknown) => e);
    expect((err as OpenAIAPIError).status).toBe(400);
    expect(s.failures).toEqual([expect.stringContaining('script exhausted at request #1')]);
  });

  it('records headers without the key, and enforces apiKey when given', async () => {
    const s = await start({ apiKey: 'sk-right', script: [{ text: 'ok' }] });
    const wrong = new OpenAI({ baseURL: s.baseURL('openai'), apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(wrong.chat.completions.create(chatAsk)).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const right = new OpenAI({ baseURL: s.baseURL('openai'), apiKey: 'sk-right', maxRetries: 0 });
    expect((await right.chat.completions.create(chatAsk)).choices[0].message.content).toBe('ok');
    expect(s.requests.map((r) => [r.status, r.auth])).toEqual([
      [401, 'bearer'],
      [200, 'bearer'],
    ]);
    for (const r of s.requests) {
      expect(r.headers).not.toHaveProperty('authorization');
      expect(r.raw).not.toContain('sk-right');
    }
    expect(s.provider('openai')).toEqual({
      id: 'test-openai',
      kind: 'openai',
      baseURL: `${s.url}/v1`,
      apiKey: 'sk-right',
    });
  });

  it('answers CORS preflights and marks every response cross-origin readable', async () => {
    const s = await start({ script: [{ text: 'ok' }] });
    const preflight = await fetch(`${s.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'chrome-extension://abc',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-api-key, content-type');
    const post = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chatAsk),
    });
    expect(post.headers.get('access-control-allow-origin')).toBe('*');
    expect(s.requests).toHaveLength(1);
  });

  it('waitForRequest resolves when the n-th request arrives, and times out clearly', async () => {
    const s = await start({ script: [{ text: 'a' }, { text: 'b' }] });
    const second = s.waitForRequest(2);
    const client = openai(s);
    await client.chat.completions.create(chatAsk);
    await client.chat.completions.create({
      ...chatAsk,
      messages: [{ role: 'user', content: 'again' }],
    });
    expect((await second).raw).toContain('again');
    await expect(s.waitForRequest(3, 50)).rejects.toThrow(
      'request #3 did not arrive within 50 ms (got 2)',
    );
  });

  it('reports unknown paths as failures', async () => {
    const s = await start({});
    const res = await fetch(`${s.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(s.failures).toEqual(['model server: no route for POST /v1/embeddings']);
  });
});
