import { describe, expect, it } from 'vitest';
import { collectStream } from '../../../src/providers/accumulate';
import type { Sleep } from '../../../src/providers/retry';
import { ScriptedProvider } from '../../../src/providers/scripted';
import type { ProviderRequest, StreamEvent } from '../../../src/providers/types';
import { recordingSleep, testRequest } from './helpers/harness';
import { drain, transcript } from './helpers/transcript';

const request = (overrides: Partial<ProviderRequest> = {}) =>
  testRequest({ model: 'scripted-model', ...overrides });

describe('ScriptedProvider', () => {
  it('streams text, thinking, fragmented tool calls, usage and a stop', async () => {
    const provider = new ScriptedProvider([
      {
        thinking: 'Need the page first.',
        thinkingPart: { signature: 'sig', providerKind: 'anthropic' },
        text: 'Reading the page.',
        toolCalls: [
          { name: 'read_page', args: { tabId: 1 }, fragments: 4 },
          { id: 'fixed', name: 'screenshot' },
        ],
        usage: { inputTokens: 120, outputTokens: 30 },
      },
    ]);
    const events = await drain(provider.stream(request()));
    expect(events.filter((e) => e.type === 'tool_call_delta' && e.index === 0)).toHaveLength(4);
    expect(transcript(events)).toEqual([
      { type: 'thinking', text: 'Need the page first.' },
      {
        type: 'thinking_block',
        part: { text: 'Need the page first.', signature: 'sig', providerKind: 'anthropic' },
      },
      { type: 'text', text: 'Reading the page.' },
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'read_page' },
      { type: 'args', index: 0, args: '{"tabId":1}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'fixed', name: 'screenshot' },
      { type: 'args', index: 1, args: '{}' },
      { type: 'tool_call_end', index: 1 },
      { type: 'usage', usage: { inputTokens: 120, outputTokens: 30 } },
      { type: 'stop', reason: 'tool_use' },
    ]);
  });

  it('streams text token by token', async () => {
    const provider = new ScriptedProvider([{ text: 'one two three' }]);
    const events = await drain(provider.stream(request()));
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e.type === 'text_delta' ? e.text : '')),
    ).toEqual(['one ', 'two ', 'three']);
  });

  it('replies from a function of the request (e.g. the last tool result)', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'read_page', args: {} }] },
      (req) => {
        const last = req.messages[req.messages.length - 1];
        const result =
          last.role === 'tool' && last.content[0].type === 'text' ? last.content[0].text : '?';
        return { text: `The page says: ${result}` };
      },
    ]);
    await drain(provider.stream(request()));
    const second = await collectStream(
      provider.stream(
        request({
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'read it' }] },
            {
              role: 'assistant',
              text: '',
              toolCalls: [{ id: 'call_1', name: 'read_page', args: {} }],
            },
            {
              role: 'tool',
              toolCallId: 'call_1',
              toolName: 'read_page',
              content: [{ type: 'text', text: 'Hello world' }],
              isError: false,
            },
          ],
        }),
      ),
    );
    expect(second.text).toBe('The page says: Hello world');
    expect(second.stop).toEqual({ reason: 'end' });
  });

  it('records every request, deep-cloned and without the signal', async () => {
    const provider = new ScriptedProvider([{ text: 'a' }, { text: 'b' }]);
    const messages: ProviderRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
    ];
    await drain(provider.stream(request({ messages })));
    const first = messages[0];
    if (first.role === 'user' && first.content[0].type === 'text')
      first.content[0].text = 'mutated later';
    await drain(provider.stream(request({ system: 'second' })));
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[0].messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'first' }],
    });
    expect(provider.requests[1].system).toBe('second');
    expect('signal' in provider.requests[0]).toBe(false);
  });

  it('fails before the first token or after some tokens', async () => {
    const provider = new ScriptedProvider([
      { error: { code: 'overloaded', message: 'Overloaded' } },
      { text: 'partial answer here', error: { code: 'network', message: 'reset' }, failAfter: 2 },
    ]);
    expect(await drain(provider.stream(request()))).toEqual([
      { type: 'error', error: { code: 'overloaded', message: 'Overloaded', retryable: true } },
    ]);
    expect(transcript(await drain(provider.stream(request())))).toEqual([
      { type: 'text', text: 'partial answer ' },
      { type: 'error', error: { code: 'network', message: 'reset', retryable: true } },
    ]);
  });

  it('can retry like a real provider, each attempt consuming an entry', async () => {
    const sleep = recordingSleep();
    const provider = new ScriptedProvider(
      [{ error: { code: 'rate_limit', retryAfterMs: 2000 } }, { text: 'ok' }],
      {
        retry: { maxAttempts: 3 },
        sleep,
      },
    );
    const events = await drain(provider.stream(request()));
    expect(transcript(events)).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'stop', reason: 'end' },
    ]);
    expect(sleep.delays).toEqual([2000]);
  });

  it('plays raw events and stop reasons as given', async () => {
    const events: StreamEvent[] = [
      { type: 'text_delta', text: 'x' },
      { type: 'stop', reason: 'max_tokens', providerReason: 'length' },
    ];
    const provider = new ScriptedProvider([
      { events },
      { text: 'cut', stop: 'max_tokens', providerReason: 'max_tokens' },
    ]);
    expect(await drain(provider.stream(request()))).toEqual(events);
    expect((await drain(provider.stream(request()))).at(-1)).toEqual({
      type: 'stop',
      reason: 'max_tokens',
      providerReason: 'max_tokens',
    });
  });

  it('yields a clear error when the script is exhausted, and accepts more entries', async () => {
    const provider = new ScriptedProvider([{ text: 'only one' }]);
    await drain(provider.stream(request()));
    expect(provider.remaining).toBe(0);
    const events = await drain(provider.stream(request()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: { code: 'stream', retryable: false } });
    expect(events[0].type === 'error' && events[0].error.message).toContain('script is exhausted');
    provider.push({ text: 'more' });
    expect((await collectStream(provider.stream(request()))).text).toBe('more');
  });

  it('honours the AbortSignal between tokens (per-token delay through the injected sleep)', async () => {
    const controller = new AbortController();
    let sleeps = 0;
    const sleep: Sleep = async () => {
      sleeps++;
      if (sleeps === 3) controller.abort();
    };
    const provider = new ScriptedProvider([{ text: 'a b c d e f' }], { tokenDelayMs: 50, sleep });
    const events = await drain(provider.stream(request({ signal: controller.signal })));
    expect(events).toEqual([
      { type: 'text_delta', text: 'a ' },
      { type: 'text_delta', text: 'b ' },
      {
        type: 'error',
        error: { code: 'aborted', message: 'The request was aborted.', retryable: false },
      },
    ]);
  });

  it('waits for real with the default sleep and stops as soon as it is aborted', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: 'slow stream of many words' }], {
      tokenDelayMs: 10_000,
    });
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    const events = await drain(provider.stream(request({ signal: controller.signal })));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'aborted' } });
  });
});
