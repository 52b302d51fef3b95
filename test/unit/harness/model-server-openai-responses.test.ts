import OpenAI from 'openai';
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
  return new OpenAI({
    baseURL: server.baseURL('openai-responses'),
    apiKey: 'sk-keel-test',
    maxRetries: 0,
  });
}

const objectOf = (key: string) => ({ type: 'object', properties: { [key]: { type: 'string' } } });
const tools: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'browser_navigate', parameters: objectOf('url'), strict: false },
  { type: 'function', name: 'browser_click', parameters: objectOf('ref'), strict: false },
];

describe('model server: OpenAI Responses', () => {
  it('streams output_text deltas and completes with usage', async () => {
    const usage = { inputTokens: 30, outputTokens: 8, reasoningTokens: 2 };
    const client = await setup([{ text: 'Hello from the scripted model.', usage }]);
    const stream = client.responses.stream({ model: 'gpt-test', input: 'hello' });
    const deltas: string[] = [];
    const types = new Set<string>();
    stream.on('event', (ev) => types.add(ev.type));
    stream.on('response.output_text.delta', (ev) => deltas.push(ev.delta));
    const response = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the scripted model.');
    expect(response.output_text).toBe('Hello from the scripted model.');
    expect(response.status).toBe('completed');
    expect(response.usage).toMatchObject({
      input_tokens: 30,
      output_tokens: 8,
      output_tokens_details: { reasoning_tokens: 2 },
    });
    for (const type of [
      'response.created',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]) {
      expect(types).toContain(type);
    }
    expect(server!.requests[0]).toMatchObject({
      api: 'openai-responses',
      path: '/v1/responses',
      stream: true,
    });
  });

  it('streams reasoning summary, text and parallel function calls with argument deltas', async () => {
    const client = await setup([
      {
        thinking: 'Two steps needed.',
        text: 'On it.',
        toolCalls: [
          { name: 'browser_navigate', args: { url: 'https://example.com/' } },
          { name: 'browser_click', args: { ref: 'e41' } },
        ],
      },
    ]);
    const stream = client.responses.stream({ model: 'm', input: 'go', tools });
    const args = new Map<number, string>();
    let summary = '';
    stream.on('response.function_call_arguments.delta', (ev) => {
      args.set(ev.output_index, (args.get(ev.output_index) ?? '') + ev.delta);
    });
    stream.on('response.reasoning_summary_text.delta', (ev) => (summary += ev.delta));
    const response = await stream.finalResponse();
    expect(summary).toBe('Two steps needed.');
    expect(response.output.map((o) => o.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'function_call',
    ]);
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [o] : []));
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['browser_navigate', { url: 'https://example.com/' }],
      ['browser_click', { ref: 'e41' }],
    ]);
    expect([...args.values()].map((a) => JSON.parse(a))).toEqual([
      { url: 'https://example.com/' },
      { ref: 'e41' },
    ]);
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
    expect(response.output_text).toBe('On it.');
  });

  it('ends a max_tokens reply with response.incomplete', async () => {
    const client = await setup([{ text: 'cut off', stop: 'max_tokens' }]);
    const stream = client.responses.stream({ model: 'm', input: 'x' });
    let incomplete: OpenAI.Responses.Response | undefined;
    stream.on('response.incomplete', (ev) => (incomplete = ev.response));
    for await (const _ of stream) {
      // drain
    }
    expect(incomplete?.status).toBe('incomplete');
    expect(incomplete?.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('answers a non-streaming request with a response object', async () => {
    const client = await setup([{ text: 'A title' }]);
    const response = await client.responses.create({ model: 'm', input: 'x' });
    expect(response.output_text).toBe('A title');
    expect(response.status).toBe('completed');
  });
});
