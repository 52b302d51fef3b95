import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderKind } from '../../../src/protocol';
import {
  at,
  concatPayloads,
  corpusFiles,
  corpusPath,
  payloads,
  responseForFile,
} from './helpers/corpus';
import { providerFor, testRequest } from './helpers/harness';
import { startMockServer, type MockServer } from './helpers/mock-server';
import { drain, transcript, type TranscriptEntry } from './helpers/transcript';

/**
 * Every recorded OpenAI stream of test/fixtures/sse/openai (Chat Completions and Responses),
 * replayed over HTTP from 127.0.0.1 through the real `openai` SDK adapters.
 */

const usage = (
  inputTokens: number,
  outputTokens: number,
  reasoningTokens: number,
  cacheReadTokens = 0,
) => ({
  type: 'usage' as const,
  usage: { inputTokens, outputTokens, cacheReadTokens, reasoningTokens },
});
const text = (value: string) => ({ type: 'text' as const, text: value });
const thinking = (value: string) => ({ type: 'thinking' as const, text: value });
const stop = (reason: string, providerReason: string) =>
  ({ type: 'stop', reason, providerReason }) as TranscriptEntry;
const start = (index: number, id: string, name: string) => ({
  type: 'tool_call_start' as const,
  index,
  id,
  name,
});
const args = (index: number, value: string) => ({ type: 'args' as const, index, args: value });
const end = (index: number) => ({ type: 'tool_call_end' as const, index });

const chatField = (file: string, field: string) =>
  concatPayloads('openai', file, (p) => at(p, 'choices', 0, 'delta', field));

/** A Responses reasoning item as the stream finally reported it (output_item.done). */
function reasoningItemDone(file: string): { id: string; summary: string; encrypted?: string } {
  const done = payloads('openai', file).find(
    (p) => p.type === 'response.output_item.done' && at(p, 'item', 'type') === 'reasoning',
  );
  const summary = (at(done, 'item', 'summary') as { text: string }[])
    .map((part) => part.text)
    .join('\n\n');
  const encrypted = at(done, 'item', 'encrypted_content');
  return {
    id: at(done, 'item', 'id') as string,
    summary,
    encrypted: typeof encrypted === 'string' ? encrypted : undefined,
  };
}

const INVALID_KEY_MESSAGE =
  'Incorrect API key provided: invalid-*****2345. You can find your API key at https://platform.openai.com/account/api-keys.';

const EXPECTED: Record<string, { kinds: ProviderKind[]; events: () => TranscriptEntry[] }> = {
  'o01-chat-parallel-tool-calls.sse': {
    kinds: ['openai'],
    events: () => [
      start(0, 'call_M26z19sncd7b4LBgzKRRbaUE', 'secret_retrieval_tool'),
      args(0, '{"password": "mellon"}'),
      start(1, 'call_KPXe5NX7IcKkaBUhc6dto2QV', 'secret_retrieval_tool'),
      args(1, '{"password": "radiance"}'),
      end(0),
      end(1),
      usage(75, 53, 0),
      stop('tool_use', 'tool_calls'),
    ],
  },
  'o02-chat-single-tool-call.sse': {
    kinds: ['openai'],
    events: () => [
      start(0, 'call_ZR5UUuTt3pf61kjwAJIYdVMj', 'get_capital'),
      args(0, '{"country":"UK"}'),
      end(0),
      usage(53, 15, 0),
      stop('tool_use', 'tool_calls'),
    ],
  },
  'o03-chat-finish-length.sse': {
    kinds: ['openai'],
    events: () => [
      text(
        'Here is a list of all 50 U.S. states:\n\n1. Alabama\n2. Alaska\n3. Arizona\n4. Arkansas\n5. California\n6. Colorado\n7. Connecticut\n8. Delaware\n9. Florida\n10',
      ),
      usage(14, 50, 0),
      stop('max_tokens', 'length'),
    ],
  },
  'o04-chat-length-no-content.sse': {
    kinds: ['openai'],
    events: () => [usage(13, 50, 50), stop('max_tokens', 'length')],
  },
  'o05-chat-refusal.sse': {
    kinds: ['openai'],
    events: () => [
      text("I'm very sorry, but I can't assist with that request."),
      usage(64, 13, 0),
      stop('refusal', 'stop'),
    ],
  },
  // Groq-compatible: `delta.reasoning` is shown (not replayed), then an in-stream error event.
  'o06-chat-midstream-error-event.sse': {
    kinds: ['openai'],
    events: () => [
      thinking(chatField('o06-chat-midstream-error-event.sse', 'reasoning')),
      {
        type: 'error',
        error: {
          code: 'stream',
          message:
            "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]",
          retryable: false,
        },
      },
    ],
  },
  // DeepSeek: reasoning_content becomes a thinking block (replayed to the same kind later).
  'o07-chat-compat-reasoning-tool-call.chunks.jsonl': {
    kinds: ['openai'],
    events: () => {
      const thought =
        'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".';
      return [
        thinking(thought),
        { type: 'thinking_block', part: { text: thought, providerKind: 'openai' } },
        start(0, 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'weather'),
        args(0, '{"location": "San Francisco"}'),
        end(0),
        usage(339, 83, 39, 320),
        stop('tool_use', 'tool_calls'),
      ];
    },
  },
  'o08-chat-long-text.chunks.jsonl': {
    kinds: ['openai'],
    events: () => [
      text(chatField('o08-chat-long-text.chunks.jsonl', 'content')),
      usage(16, 300, 0),
      stop('end', 'stop'),
    ],
  },
  'o09-http401-invalid-api-key.json': {
    kinds: ['openai', 'openai-responses'],
    events: () => [
      {
        type: 'error',
        error: { code: 'auth', message: INVALID_KEY_MESSAGE, retryable: false, status: 401 },
      },
    ],
  },
  'o10-responses-single-function-call.sse': {
    kinds: ['openai-responses'],
    events: () => [
      start(0, 'call_kL0PCQV7M2WMoVX8V8OtYSAL', 'get_capital'),
      args(0, '{"country":"France"}'),
      end(0),
      usage(255, 16, 0),
      stop('tool_use', 'completed'),
    ],
  },
  'o11-responses-parallel-function-calls.sse': {
    kinds: ['openai-responses'],
    events: () => [
      start(0, 'call_sKC7OABqf2A2PTLCm0CLeRWV', 'secret_retrieval_tool'),
      args(0, '{"password":"mellon"}'),
      end(0),
      start(1, 'call_OdR3s3xop0vtgkDyWRMLafuH', 'secret_retrieval_tool'),
      args(1, '{"password":"radiance"}'),
      end(1),
      usage(36, 54, 0),
      stop('tool_use', 'completed'),
    ],
  },
  'o12-responses-incomplete-max-output-tokens.sse': {
    kinds: ['openai-responses'],
    events: () => [
      text(
        'Sure! Here is a list of all 50 U.S. states:\n\n1. Alabama\n2. Alaska\n3. Arizona\n4. Arkansas\n5. California\n6. Colorado\n7. Connecticut\n8. Delaware\n9. Florida',
      ),
      usage(14, 50, 0),
      stop('max_tokens', 'max_output_tokens'),
    ],
  },
  // Three summary parts stream as one thinking text, parts separated by a blank line.
  'o13-responses-reasoning-summary.sse': {
    kinds: ['openai-responses'],
    events: () => {
      const item = reasoningItemDone('o13-responses-reasoning-summary.sse');
      return [
        thinking(item.summary),
        {
          type: 'thinking_block',
          part: { text: item.summary, itemId: item.id, providerKind: 'openai-responses' },
        },
        text('3'),
        usage(32, 839, 832),
        stop('end', 'completed'),
      ];
    },
  },
  'o14-responses-midstream-error-quota.chunks.jsonl': {
    kinds: ['openai-responses'],
    events: () => [
      {
        type: 'error',
        error: {
          code: 'rate_limit',
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
          retryable: false,
        },
      },
    ],
  },
  // Encrypted reasoning without a summary; the final encrypted_content (output_item.done) is kept.
  'o15-responses-reasoning-text-then-function-call.sse': {
    kinds: ['openai-responses'],
    events: () => {
      const item = reasoningItemDone('o15-responses-reasoning-text-then-function-call.sse');
      return [
        {
          type: 'thinking_block',
          part: {
            text: '',
            itemId: item.id,
            providerKind: 'openai-responses',
            encryptedContent: item.encrypted ?? '',
          },
        },
        text('I’ll check the capital lookup tool for “PotatoLand.”'),
        start(0, 'call_LabG58Uhrq9kZvR52BYKjToD', 'get_capital'),
        args(0, '{"country":"PotatoLand"}'),
        end(0),
        usage(63, 69, 26),
        stop('tool_use', 'completed'),
      ];
    },
  },
};

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());

describe('OpenAI corpus replay', () => {
  it('has an expectation for every recorded file', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(corpusFiles('openai'));
  });

  for (const file of corpusFiles('openai')) {
    for (const kind of EXPECTED[file]?.kinds ?? ['openai']) {
      it(`${file} (${kind})`, async () => {
        server.plan(responseForFile(corpusPath('openai', file)));
        const events = await drain(providerFor(kind, server).stream(testRequest()));
        expect(transcript(events)).toEqual(EXPECTED[file]?.events());
        expect(events.filter((e) => e.type === 'stop' || e.type === 'error')).toHaveLength(1);
        const path = server.requests[server.requests.length - 1].path;
        expect(path).toBe(kind === 'openai' ? '/v1/chat/completions' : '/v1/responses');
      });
    }
  }

  it('o15 keeps the final encrypted_content, not the one announced in output_item.added', () => {
    const added = payloads('openai', 'o15-responses-reasoning-text-then-function-call.sse').find(
      (p) => p.type === 'response.output_item.added' && at(p, 'item', 'type') === 'reasoning',
    );
    const done = reasoningItemDone('o15-responses-reasoning-text-then-function-call.sse');
    expect(done.encrypted).toBeTruthy();
    expect(at(added, 'item', 'encrypted_content')).not.toBe(done.encrypted);
  });
});
