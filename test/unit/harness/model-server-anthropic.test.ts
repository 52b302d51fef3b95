import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../e2e/harness/model-server';
import type { ModelServer, ScriptStep } from '../../e2e/harness/model-server';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[]) {
  server = await startModelServer({ script });
  return new Anthropic({
    baseURL: server.baseURL('anthropic'),
    apiKey: 'sk-keel-test',
    maxRetries: 0,
  });
}

const tools: Anthropic.Tool[] = [
  {
    name: 'browser_navigate',
    input_schema: { type: 'object', properties: { url: { type: 'string' } } },
  },
  {
    name: 'browser_click',
    input_schema: { type: 'object', properties: { ref: { type: 'string' } } },
  },
];
const ask = {
  model: 'claude-test',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'hello' }],
};

describe('model server: Anthropic Messages', () => {
  it('streams text deltas, end_turn and usage that the SDK accumulates', async () => {
    const usage = { inputTokens: 20, outputTokens: 9, cacheReadTokens: 4, cacheWriteTokens: 2 };
    const client = await setup([{ text: 'Hello from the scripted model.', usage }]);
    const stream = client.messages.stream(ask);
    const deltas: string[] = [];
    stream.on('text', (d) => deltas.push(d));
    const message = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the scripted model.');
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Hello from the scripted model.' },
    ]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe('claude-test');
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 9 });
    expect(message.usage).toMatchObject({
      cache_read_input_tokens: 4,
      cache_creation_input_tokens: 2,
    });
    expect(server!.requests[0]).toMatchObject({
      api: 'anthropic',
      path: '/v1/messages',
      stream: true,
    });
  });

  it('streams thinking then text then parallel tool_use blocks with input_json_delta fragments', async () => {
    const client = await setup([
      {
        thinking: 'The user wants two things.',
        text: 'Doing both.',
        toolCalls: [
          { name: 'browser_navigate', args: { url: 'https://example.com/' } },
          { name: 'browser_click', args: { ref: 'e41' } },
        ],
      },
    ]);
    const stream = client.messages.stream({
      ...ask,
      tools,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    let jsonFragments = 0;
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta')
        jsonFragments++;
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
    const [thinking, text, nav, click] = message.content;
    expect(thinking.type === 'thinking' && thinking.thinking).toBe('The user wants two things.');
    expect(thinking.type === 'thinking' && thinking.signature.length).toBeGreaterThan(0);
    expect(text.type === 'text' && text.text).toBe('Doing both.');
    expect(nav.type === 'tool_use' && [nav.name, nav.input]).toEqual([
      'browser_navigate',
      { url: 'https://example.com/' },
    ]);
    expect(click.type === 'tool_use' && [click.name, click.input]).toEqual([
      'browser_click',
      { ref: 'e41' },
    ]);
    expect(nav.type === 'tool_use' && click.type === 'tool_use' && nav.id !== click.id).toBe(true);
    expect(jsonFragments).toBeGreaterThan(4);
  });

  it('maps stop reasons: max_tokens, refusal', async () => {
    const client = await setup([
      { text: 'cut off', stop: 'max_tokens' },
      { text: 'I will not.', stop: 'refusal' },
    ]);
    expect((await client.messages.stream(ask).finalMessage()).stop_reason).toBe('max_tokens');
    expect((await client.messages.stream(ask).finalMessage()).stop_reason).toBe('refusal');
  });

  it('answers a non-streaming request with a message object', async () => {
    const client = await setup([
      { text: 'A title', toolCalls: [{ name: 'browser_click', args: { ref: 'e9' } }] },
    ]);
    const message = await client.messages.create(ask);
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'A title' });
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'browser_click',
      input: { ref: 'e9' },
    });
    expect(message.stop_reason).toBe('tool_use');
  });
});
