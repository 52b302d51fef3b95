import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectStream, parseToolArgs } from '../../../src/providers/accumulate';
import { corpusPath, responseForFile } from './helpers/corpus';
import { providerFor, testRequest } from './helpers/harness';
import { startMockServer, type MockServer } from './helpers/mock-server';

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());

describe('collectStream', () => {
  it('assembles parallel tool calls with parsed arguments (o01)', async () => {
    server.plan(responseForFile(corpusPath('openai', 'o01-chat-parallel-tool-calls.sse')));
    const message = await collectStream(providerFor('openai', server).stream(testRequest()));
    expect(
      message.toolCalls.map(({ id, name, args, ended }) => ({ id, name, args, ended })),
    ).toEqual([
      {
        id: 'call_M26z19sncd7b4LBgzKRRbaUE',
        name: 'secret_retrieval_tool',
        args: { password: 'mellon' },
        ended: true,
      },
      {
        id: 'call_KPXe5NX7IcKkaBUhc6dto2QV',
        name: 'secret_retrieval_tool',
        args: { password: 'radiance' },
        ended: true,
      },
    ]);
    expect(message.stop).toEqual({ reason: 'tool_use', providerReason: 'tool_calls' });
    expect(message.usage).toEqual({
      inputTokens: 75,
      outputTokens: 53,
      cacheReadTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('keeps truncated arguments raw (a03: max_tokens mid tool JSON)', async () => {
    server.plan(responseForFile(corpusPath('anthropic', 'a03-max-tokens-mid-tool-json.sse')));
    const message = await collectStream(providerFor('anthropic', server).stream(testRequest()));
    expect(message.stop?.reason).toBe('max_tokens');
    expect(message.toolCalls).toHaveLength(1);
    expect(message.toolCalls[0].args).toEqual({});
    expect(message.toolCalls[0].rawArgs).toMatch(/^\{"filename": "taxes.txt"/);
  });

  it('collects thinking text and the block to replay (a08)', async () => {
    server.plan(responseForFile(corpusPath('anthropic', 'a08-thinking-text.sse')));
    const message = await collectStream(providerFor('anthropic', server).stream(testRequest()));
    expect(message.thinking).toMatch(/^The user is asking me to recall/);
    expect(message.thinkingParts).toHaveLength(1);
    expect(message.thinkingParts[0].signature).toMatch(/^Ep0DCkYICxgCKkAe/);
    expect(message.text).toBe('The primes were: 79, 179, and 379.');
  });
});

describe('parseToolArgs', () => {
  it('treats empty as no arguments and keeps anything but an object raw', () => {
    expect(parseToolArgs('')).toEqual({ args: {} });
    expect(parseToolArgs('{"a":1}')).toEqual({ args: { a: 1 } });
    expect(parseToolArgs('[1]')).toEqual({ args: {}, rawArgs: '[1]' });
    expect(parseToolArgs('{"a":')).toEqual({ args: {}, rawArgs: '{"a":' });
  });
});
