import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { createAnthropicNormalizer } from '../../../src/providers/anthropic/normalize';
import { createChatNormalizer } from '../../../src/providers/openai-chat/normalize';
import { createResponsesNormalizer } from '../../../src/providers/openai-responses/normalize';
import type { StreamNormalizer } from '../../../src/providers/run-attempt';
import type { StreamEvent } from '../../../src/providers/types';
import { providerFor, testRequest } from './helpers/harness';
import { startMockServer } from './helpers/mock-server';
import { drain, transcript } from './helpers/transcript';

/**
 * Shapes the corpus does not contain but real servers send, fed straight into the normalizers.
 * Raw events are written as plain JSON (as they arrive on the wire), hence the casts.
 */

/** Feeds raw events like runAttempt does: up to the first terminal event, else through end(). */
function run<Raw>(normalizer: StreamNormalizer<Raw>, raw: unknown[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const event of raw) {
    for (const normalized of normalizer.push(event as Raw)) {
      out.push(normalized);
      if (normalized.type === 'stop' || normalized.type === 'error') return out;
    }
  }
  return [...out, ...normalizer.end()];
}

const chunk = (delta: object, finish: string | null = null, usage: object | null = null) =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage,
  }) as unknown as ChatCompletionChunk;

describe('Anthropic normalizer', () => {
  it('treats a stream closed after message_delta as complete', () => {
    const events = run(createAnthropicNormalizer(), [
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    ] satisfies unknown[]);
    expect(transcript(events).slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 2 } },
      { type: 'stop', reason: 'end', providerReason: 'end_turn' },
    ]);
  });

  it('reports a stream closed before any stop reason as a (retryable) network error', () => {
    const events = run(createAnthropicNormalizer(), [
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
    ]);
    expect(events[events.length - 1]).toEqual({
      type: 'error',
      error: {
        code: 'network',
        message: 'The connection closed before the message was complete.',
        retryable: true,
      },
    });
  });

  it('uses a tool input sent whole in content_block_start when no fragments follow', () => {
    const events = run(createAnthropicNormalizer(), [
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't1', name: 'click', input: { ref: 'e1' } },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
    expect(transcript(events).slice(1, 4)).toEqual([
      { type: 'tool_call_start', index: 0, id: 't1', name: 'click' },
      { type: 'args', index: 0, args: '{"ref":"e1"}' },
      { type: 'tool_call_end', index: 0 },
    ]);
  });

  it('maps every documented stop reason', () => {
    const reasons = [
      'end_turn',
      'stop_sequence',
      'pause_turn',
      'tool_use',
      'max_tokens',
      'model_context_window_exceeded',
      'refusal',
      'something_new',
    ];
    const mapped = reasons.map((reason) => {
      const events = run(createAnthropicNormalizer(), [
        { type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 1 } } },
        { type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 1 } },
        { type: 'message_stop' },
      ]);
      const last = events[events.length - 1];
      return last.type === 'stop' ? last.reason : last.type;
    });
    expect(mapped).toEqual([
      'end',
      'end',
      'end',
      'tool_use',
      'max_tokens',
      'max_tokens',
      'refusal',
      'end',
    ]);
  });

  it('ignores deltas for blocks it never saw', () => {
    const normalizer = createAnthropicNormalizer();
    expect(
      normalizer.push({
        type: 'content_block_delta',
        index: 7,
        delta: { type: 'text_delta', text: 'x' },
      } as RawMessageStreamEvent),
    ).toEqual([]);
  });
});

describe('Chat Completions normalizer', () => {
  it('maps a tool-calling message that finished with "stop" (older compatible servers) to tool_use', () => {
    const events = run(createChatNormalizer(), [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'f', arguments: '{"a":1}' },
          },
        ],
      }),
      chunk({}, 'stop'),
    ]);
    expect(transcript(events)).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'f' },
      { type: 'args', index: 0, args: '{"a":1}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'stop', reason: 'tool_use', providerReason: 'stop' },
    ]);
  });

  it('separates parallel calls that a server sends at the same index with different ids', () => {
    const events = run(createChatNormalizer(), [
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{"x":2}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(transcript(events)).toEqual([
      { type: 'tool_call_start', index: 0, id: 'a', name: 'f' },
      { type: 'args', index: 0, args: '{}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'b', name: 'g' },
      { type: 'args', index: 1, args: '{"x":2}' },
      { type: 'tool_call_end', index: 1 },
      { type: 'stop', reason: 'tool_use', providerReason: 'tool_calls' },
    ]);
  });

  it('assembles interleaved fragments of parallel calls by index, and invents a missing id', () => {
    const events = run(createChatNormalizer(), [
      chunk({
        tool_calls: [
          { index: 0, function: { name: 'f', arguments: '{"a"' } },
          { index: 1, id: 'b', function: { name: 'g', arguments: '{"b"' } },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 1, function: { arguments: ':2}' } },
          { index: 0, function: { arguments: ':1}' } },
        ],
      }),
      chunk({}, 'tool_calls'),
    ]);
    const starts = events.filter((e) => e.type === 'tool_call_start');
    expect(starts).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_0', name: 'f' },
      { type: 'tool_call_start', index: 1, id: 'b', name: 'g' },
    ]);
    const argsOf = (index: number) =>
      events
        .flatMap((e) => (e.type === 'tool_call_delta' && e.index === index ? [e.argsFragment] : []))
        .join('');
    expect([argsOf(0), argsOf(1)]).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reads DeepSeek usage (prompt_cache_hit_tokens) and usage sent with the finish chunk', () => {
    const events = run(createChatNormalizer(), [
      chunk({ content: 'hi' }, 'stop', {
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 64,
      }),
    ]);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 100, outputTokens: 5, cacheReadTokens: 64 } },
      { type: 'stop', reason: 'end', providerReason: 'stop' },
    ]);
  });
});

describe('Responses normalizer', () => {
  it('handles the documented error event shape (no nested error object)', () => {
    const events = run(createResponsesNormalizer(), [
      {
        type: 'error',
        code: 'server_error',
        message: 'The server had an error.',
        param: null,
        sequence_number: 1,
      },
    ] satisfies unknown[]);
    expect(events).toEqual([
      {
        type: 'error',
        error: { code: 'server', message: 'The server had an error.', retryable: true },
      },
    ]);
  });

  it('turns response.failed into an error with the provider message', () => {
    const events = run(createResponsesNormalizer(), [
      {
        type: 'response.failed',
        response: {
          status: 'failed',
          error: { code: 'rate_limit_exceeded', message: 'Slow down.' },
        },
      },
    ]);
    expect(events).toEqual([
      { type: 'error', error: { code: 'rate_limit', message: 'Slow down.', retryable: true } },
    ]);
  });

  it('emits the whole arguments when a server sends only function_call_arguments.done', () => {
    const events = run(createResponsesNormalizer(), [
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '' },
      },
      {
        type: 'response.function_call_arguments.done',
        item_id: 'fc_1',
        output_index: 0,
        arguments: '{"q":1}',
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'f',
          arguments: '{"q":1}',
        },
      },
      {
        type: 'response.completed',
        response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 4 } },
      },
    ] as unknown as ResponseStreamEvent[]);
    expect(transcript(events)).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'f' },
      { type: 'args', index: 0, args: '{"q":1}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
      { type: 'stop', reason: 'tool_use', providerReason: 'completed' },
    ]);
  });

  it('streams raw reasoning text of open-weight models as thinking', () => {
    const events = run(createResponsesNormalizer(), [
      {
        type: 'response.reasoning_text.delta',
        item_id: 'rs',
        output_index: 0,
        content_index: 0,
        delta: 'think',
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          type: 'reasoning',
          id: 'rs',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'think' }],
        },
      },
      {
        type: 'response.refusal.delta',
        item_id: 'm',
        output_index: 1,
        content_index: 0,
        delta: 'No.',
      },
      { type: 'response.completed', response: { status: 'completed' } },
    ] as unknown as ResponseStreamEvent[]);
    expect(transcript(events)).toEqual([
      { type: 'thinking', text: 'think' },
      {
        type: 'thinking_block',
        part: { text: 'think', itemId: 'rs', providerKind: 'openai-responses' },
      },
      { type: 'text', text: 'No.' },
      { type: 'stop', reason: 'refusal', providerReason: 'completed' },
    ]);
  });

  it('reports a stream that ends without a terminal event', () => {
    const events = run(createResponsesNormalizer(), [
      {
        type: 'response.output_text.delta',
        item_id: 'm',
        output_index: 0,
        content_index: 0,
        delta: 'x',
      },
    ]);
    expect(events[events.length - 1]).toMatchObject({ type: 'error', error: { code: 'network' } });
  });
});

describe('malformed events through the real adapter', () => {
  it('end the attempt as a stream error instead of throwing', async () => {
    const server = await startMockServer();
    try {
      server.plan({
        body:
          'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
          'event: content_block_start\ndata: {"type":"content_block_start","index":0}\n\n',
      });
      const events = await drain(providerFor('anthropic', server).stream(testRequest()));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'error',
        error: { code: 'stream', retryable: false },
      });
      expect(events[0].type === 'error' && events[0].error.message).toMatch(
        /^Malformed stream event/,
      );
    } finally {
      await server.close();
    }
  });
});
