import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../e2e/harness/model-server';
import type { ModelServer, ScriptStep } from '../../e2e/harness/model-server';

// The official SDK parsing the scripted streams is the proof that the wire format is right.

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[]) {
  server = await startModelServer({ script });
  return new OpenAI({ baseURL: server.baseURL('openai'), apiKey: 'sk-keel-test', maxRetries: 0 });
}

const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };
const objectOf = (key: string) => ({ type: 'object', properties: { [key]: { type: 'string' } } });
const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'browser_navigate', parameters: objectOf('url') } },
  { type: 'function', function: { name: 'browser_click', parameters: objectOf('ref') } },
];

describe('model server: OpenAI Chat Completions', () => {
  it('streams text in several deltas, then finish_reason stop and a usage chunk', async () => {
    const usage = { inputTokens: 12, outputTokens: 7, cacheReadTokens: 3 };
    const client = await setup([{ text: 'Hello from the scripted model.', usage }]);
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let finish: string | null = null;
    let reported: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) reported = chunk.usage;
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the scripted model.');
    expect(finish).toBe('stop');
    expect(reported).toMatchObject({ prompt_tokens: 15, completion_tokens: 7, total_tokens: 22 });
    expect(reported?.prompt_tokens_details?.cached_tokens).toBe(3);
    const request = server!.requests[0];
    expect(request).toMatchObject({
      api: 'openai-chat',
      path: '/v1/chat/completions',
      stream: true,
      status: 200,
    });
    expect(request.body.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('omits the usage chunk unless stream_options.include_usage is set', async () => {
    const client = await setup([{ text: 'hi' }]);
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('streams parallel tool calls with fragmented arguments that the SDK reassembles', async () => {
    const client = await setup([
      {
        text: 'Opening both.',
        toolCalls: [
          { name: 'browser_navigate', args: { url: 'https://example.com/a?q=1' } },
          { name: 'browser_click', args: { ref: 'e41' } },
        ],
      },
    ]);
    const stream = client.chat.completions.stream({
      ...ask,
      tools,
      stream_options: { include_usage: true },
    });
    const argFragments: string[] = [];
    stream.on('chunk', (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (call.function?.arguments) argFragments.push(call.function.arguments);
      }
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Opening both.');
    const calls = choice.message.tool_calls!.map((c) => (c.type === 'function' ? c : undefined)!);
    expect(calls.map((c) => c.function.name)).toEqual(['browser_navigate', 'browser_click']);
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([
      { url: 'https://example.com/a?q=1' },
      { ref: 'e41' },
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(argFragments.length).toBeGreaterThan(2);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('keeps a scripted tool-call id verbatim, even an empty one', async () => {
    const client = await setup([
      { toolCalls: [{ name: 'browser_click', args: { ref: 'e1' }, id: '' }] },
    ]);
    const stream = await client.chat.completions.create({ ...ask, tools, stream: true });
    const ids: (string | undefined)[] = [];
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        if (call.id !== undefined) ids.push(call.id);
    }
    expect(ids).toEqual(['']);
  });

  it('maps stop reasons: max_tokens → length, content_filter, refusal in delta.refusal', async () => {
    const client = await setup([
      { text: 'cut off mid', stop: 'max_tokens' },
      { text: '', stop: 'content_filter' },
      { text: 'I cannot help with that.', stop: 'refusal' },
    ]);
    const run = () => client.chat.completions.stream(ask).finalChatCompletion();
    expect((await run()).choices[0].finish_reason).toBe('length');
    expect((await run()).choices[0].finish_reason).toBe('content_filter');
    const refusal = (await run()).choices[0];
    expect(refusal.finish_reason).toBe('stop');
    expect(refusal.message.refusal).toBe('I cannot help with that.');
    expect(refusal.message.content).toBeNull();
  });

  it('streams thinking as reasoning_content deltas', async () => {
    const client = await setup([{ thinking: 'Let me think.', text: 'Done.' }]);
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string }
        | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    expect(reasoning).toBe('Let me think.');
    expect(text).toBe('Done.');
  });

  it('answers a non-streaming request with a chat.completion object', async () => {
    const client = await setup([
      { text: 'A short title', toolCalls: [{ name: 'browser_click', args: { ref: 'e2' } }] },
    ]);
    const completion = await client.chat.completions.create(ask);
    expect(completion.choices[0].message.content).toBe('A short title');
    const call = completion.choices[0].message.tool_calls![0];
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ ref: 'e2' });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(server!.requests[0].stream).toBe(false);
  });
});
