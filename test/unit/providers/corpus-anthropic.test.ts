import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, concatPayloads, corpusFiles, corpusPath, responseForFile } from './helpers/corpus';
import { providerFor, testRequest } from './helpers/harness';
import { startMockServer, type MockServer } from './helpers/mock-server';
import { drain, transcript, type TranscriptEntry } from './helpers/transcript';

/**
 * Every recorded Anthropic stream of test/fixtures/sse/anthropic, replayed over HTTP from
 * 127.0.0.1 through the real @anthropic-ai/sdk adapter. Deltas are compared coalesced; ids, names,
 * arguments, signatures, usage and stop reasons exactly.
 */

const usage = (inputTokens: number, outputTokens: number, cached = true, extra: object = {}) => ({
  type: 'usage' as const,
  usage: {
    inputTokens,
    outputTokens,
    ...(cached ? { cacheReadTokens: 0, cacheWriteTokens: 0 } : {}),
    ...extra,
  },
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

const textOf = (file: string) =>
  concatPayloads('anthropic', file, (p) =>
    at(p, 'delta', 'type') === 'text_delta' ? at(p, 'delta', 'text') : undefined,
  );
const thinkingOf = (file: string) =>
  concatPayloads('anthropic', file, (p) =>
    at(p, 'delta', 'type') === 'thinking_delta' ? at(p, 'delta', 'thinking') : undefined,
  );
const signatureOf = (file: string) =>
  concatPayloads('anthropic', file, (p) => at(p, 'delta', 'signature'));
const redactedOf = (file: string) =>
  concatPayloads('anthropic', file, (p) =>
    at(p, 'content_block', 'type') === 'redacted_thinking'
      ? `${at(p, 'content_block', 'data')}|`
      : undefined,
  )
    .split('|')
    .filter(Boolean);

const EXPECTED: Record<string, () => TranscriptEntry[]> = {
  'a01-text-basic.sse': () => [
    usage(11, 1, false),
    text('Hello there!'),
    usage(11, 6, false),
    stop('end', 'end_turn'),
  ],
  'a02-tool-use-single.sse': () => [
    usage(377, 1),
    text("I'll check the current weather in Paris for you."),
    start(0, 'toolu_01NRLabsLyVHZPKxbKvkfSMn', 'get_weather'),
    args(0, '{"location": "Paris"}'),
    end(0),
    usage(377, 65),
    stop('tool_use', 'tool_use'),
  ],
  // max_tokens while the tool JSON is open: the call is closed with its truncated arguments.
  'a03-max-tokens-mid-tool-json.sse': () => [
    usage(450, 1),
    text(
      "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
    ),
    start(0, 'toolu_01EKqbqmZrGRXy18eN7m9kvY', 'make_file'),
    args(
      0,
      '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes',
    ),
    end(0),
    usage(450, 124),
    stop('max_tokens', 'max_tokens'),
  ],
  'a04-thinking-then-refusal.sse': () => {
    const thought =
      'Simple educational question about what a solar eclipse is. This is benign general knowledge — definitions are fine. Also the user called me "claudius" — I\'m Claude. Minor correction or just roll with it politely.';
    return [
      usage(28, 5),
      thinking(thought),
      {
        type: 'thinking_block',
        part: {
          text: thought,
          signature: 'c3ludGhldGljLXNpZ25hdHVyZS1maXh0dXJlLWEtbm90LWEtcmVhbC1zaWduYXR1cmU=',
          providerKind: 'anthropic',
        },
      },
      text('Hi'),
      usage(28, 106, true, { reasoningTokens: 67 }),
      stop('refusal', 'refusal'),
    ];
  },
  // The server-side web_search call and its result are not calls for the engine.
  'a05-server-tool-then-refusal.sse': () => [
    usage(612, 63),
    text("Here's a summary of this year's solar eclipses and how"),
    usage(28, 106, true, { reasoningTokens: 67 }),
    stop('refusal', 'refusal'),
  ],
  'a06-parallel-tool-use.sse': () => [
    usage(416, 1),
    text("I'll retrieve the secrets for both passwords you provided."),
    start(0, 'toolu_015cUijgET79LXjgeYQerN2h', 'secret_retrieval_tool'),
    args(0, '{"password": "mellon"}'),
    end(0),
    start(1, 'toolu_01XZTimPexA7h3EVKesnKt5T', 'secret_retrieval_tool'),
    args(1, '{"password": "radiance"}'),
    end(1),
    usage(416, 109),
    stop('tool_use', 'tool_use'),
  ],
  'a07-max-tokens-text.sse': () => [
    usage(15, 4),
    text(
      'Here are all 50 U.S. states in alphabetical order:\n\n1. Alabama\n2. Alaska\n3. Arizona\n4. Arkansas\n5. California\n6. Colorado\n7. Connecticut\n8. Delaware\n9',
    ),
    usage(15, 50),
    stop('max_tokens', 'max_tokens'),
  ],
  'a08-thinking-text.sse': () => {
    const thought =
      'The user is asking me to recall the primes I found that contain "79" as a substring below 400. In my previous response, I identified:\n- 79: Prime\n- 179: Prime  \n- 279: Not prime (divisible by 3)\n- 379: Prime\n\nSo the primes were 79, 179, and 379.';
    return [
      usage(171, 7),
      thinking(thought),
      {
        type: 'thinking_block',
        part: {
          text: thought,
          signature: signatureOf('a08-thinking-text.sse'),
          providerKind: 'anthropic',
        },
      },
      text('The primes were: 79, 179, and 379.'),
      usage(171, 107),
      stop('end', 'end_turn'),
    ];
  },
  'a09-redacted-thinking.sse': () => {
    const [first, second] = redactedOf('a09-redacted-thinking.sse');
    return [
      usage(92, 88),
      {
        type: 'thinking_block',
        part: { text: '', redactedData: first, providerKind: 'anthropic' },
      },
      {
        type: 'thinking_block',
        part: { text: '', redactedData: second, providerKind: 'anthropic' },
      },
      text(textOf('a09-redacted-thinking.sse')),
      usage(92, 189),
      stop('end', 'end_turn'),
    ];
  },
  'a10-thinking-long.sse': () => {
    const thought = thinkingOf('a10-thinking-long.sse');
    return [
      usage(43, 1),
      thinking(thought),
      {
        type: 'thinking_block',
        part: {
          text: thought,
          signature: signatureOf('a10-thinking-long.sse'),
          providerKind: 'anthropic',
        },
      },
      text(textOf('a10-thinking-long.sse')),
      usage(43, 282),
      stop('end', 'end_turn'),
    ];
  },
  'a11-http401-authentication-error.json': () => [
    {
      type: 'error',
      error: { code: 'auth', message: 'invalid x-api-key', retryable: false, status: 401 },
    },
  ],
  'a12-tool-no-args.chunks.jsonl': () => [
    usage(565, 7),
    text("I'll update the issue list for you."),
    start(0, 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', 'updateIssueList'),
    end(0),
    usage(565, 48),
    stop('tool_use', 'tool_use'),
  ],
  // message_delta's input_tokens (61) replaces message_start's (43).
  'a13-usage-in-message-delta.chunks.jsonl': () => [
    usage(43, 1, false),
    text('pong'),
    usage(61, 2, false),
    stop('end', 'end_turn'),
  ],
  'a14-refusal-no-content.chunks.jsonl': () => [
    usage(18, 1),
    usage(18, 5),
    stop('refusal', 'refusal'),
  ],
  'a15-duplicate-message-start.chunks.jsonl': () => [
    usage(17, 1, false),
    text('Hello, World!'),
    usage(17, 227, false),
    stop('end', 'end_turn'),
  ],
  'a16-text.chunks.jsonl': () => [
    usage(12, 1),
    text(
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    ),
    usage(12, 30),
    stop('end', 'end_turn'),
  ],
};

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer();
});
afterAll(() => server.close());

describe('Anthropic corpus replay', () => {
  it('has an expectation for every recorded file', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(corpusFiles('anthropic'));
  });

  for (const file of corpusFiles('anthropic')) {
    it(file, async () => {
      server.plan(responseForFile(corpusPath('anthropic', file)));
      const events = await drain(providerFor('anthropic', server).stream(testRequest()));
      expect(transcript(events)).toEqual(EXPECTED[file]?.());
      // Exactly one terminal event, and it is the last one.
      expect(events.filter((e) => e.type === 'stop' || e.type === 'error')).toHaveLength(1);
    });
  }

  it('streams many small deltas rather than one coalesced blob (a10)', async () => {
    server.plan(responseForFile(corpusPath('anthropic', 'a10-thinking-long.sse')));
    const events = await drain(providerFor('anthropic', server).stream(testRequest()));
    expect(events.filter((e) => e.type === 'thinking_delta').length).toBeGreaterThan(10);
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(10);
  });
});
