import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planReply } from '../../e2e/harness/model-script';
import type { ScriptedReply } from '../../e2e/harness/model-script';
import { anthropicWire } from '../../e2e/harness/wire-anthropic';
import { openaiChatWire } from '../../e2e/harness/wire-openai-chat';
import { openaiResponsesWire } from '../../e2e/harness/wire-openai-responses';
import type { WireFormat } from '../../e2e/harness/wire';
import { CORPUS_DIR, corpusDir } from '../providers/helpers/corpus';

/**
 * SDKs are lenient parsers, so the scripted streams are also held against the recorded ones in
 * test/fixtures/sse: every field path the server emits for an event type must occur in a real
 * recording of that event type. The recordings are part of the repository: a missing file fails.
 */

interface SseEvent {
  type: string;
  data: unknown;
}

function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const event = /^event: ?(.*)$/m.exec(block)?.[1]?.trim();
    const data = /^data: ?(.*)$/m.exec(block)?.[1];
    if (!data || data === '[DONE]') continue;
    const parsed = JSON.parse(data) as { type?: string };
    events.push({ type: event ?? parsed.type ?? 'data', data: parsed });
  }
  return events;
}

function readCorpus(file: string): SseEvent[] {
  const [vendor] = file.split('/') as ['anthropic' | 'openai'];
  corpusDir(vendor);
  const text = readFileSync(resolve(CORPUS_DIR, file), 'utf8');
  if (!file.endsWith('.jsonl')) return parseSse(text);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const data = JSON.parse(line) as { type?: string };
      return { type: data.type ?? 'data', data };
    });
}

/** Field paths down to depth 4; array elements are `[]`. Free-form payloads are not descended. */
function paths(value: unknown, prefix = '', depth = 0, out = new Set<string>()): Set<string> {
  if (depth > 4 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const el of value) paths(el, `${prefix}[]`, depth + 1, out);
    return out;
  }
  for (const [key, v] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.add(path);
    if (!['tools', 'input', 'metadata', 'reasoning', 'text', 'usage'].includes(key))
      paths(v, path, depth + 1, out);
  }
  return out;
}

function pathsByType(events: SseEvent[]): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>();
  for (const ev of events) {
    const set = byType.get(ev.type) ?? new Set<string>();
    paths(ev.data, '', 0, set);
    byType.set(ev.type, set);
  }
  return byType;
}

function render(
  wire: WireFormat,
  reply: ScriptedReply,
  body: Record<string, unknown> = {},
): SseEvent[] {
  const plan = planReply(reply, wire.toolIdPrefix, 100);
  const renderer = wire.stream(plan, { model: 'm', seq: 1, body });
  const frames = [
    ...renderer.open(),
    ...plan.parts.flatMap((p) => renderer.part(p)),
    ...renderer.close(),
  ];
  return parseSse(frames.join(''));
}

function expectShapesFromCorpus(
  ours: SseEvent[],
  corpusFiles: string[],
  notRecorded: string[] = [],
) {
  const recorded = pathsByType(corpusFiles.flatMap(readCorpus));
  for (const [type, ourPaths] of pathsByType(ours)) {
    if (notRecorded.includes(type)) continue;
    expect(recorded.has(type), `event type ${type} occurs in the corpus`).toBe(true);
    const unknown = [...ourPaths].filter((p) => !recorded.get(type)!.has(p));
    expect(unknown, `fields of ${type} not seen in the corpus`).toEqual([]);
  }
}

const tools = [
  { name: 'browser_navigate', args: { url: 'https://example.com/' } },
  { name: 'browser_click', args: { ref: 'e41' } },
];

describe('model server streams match the recorded corpus shapes', () => {
  it('OpenAI Chat Completions', () => {
    const body = { stream_options: { include_usage: true } };
    expectShapesFromCorpus(
      render(openaiChatWire, { text: 'Some text here.', toolCalls: tools }, body),
      ['openai/o01-chat-parallel-tool-calls.sse', 'openai/o03-chat-finish-length.sse'],
    );
    expectShapesFromCorpus(
      render(openaiChatWire, { thinking: 'Hmm, let me see.', toolCalls: tools.slice(0, 1) }, body),
      ['openai/o07-chat-compat-reasoning-tool-call.chunks.jsonl'],
    );
  });

  it('Anthropic Messages', () => {
    const reply = { thinking: 'Hmm, let me see.', text: 'Some text here.', toolCalls: tools };
    expectShapesFromCorpus(render(anthropicWire, reply), [
      'anthropic/a06-parallel-tool-use.sse',
      'anthropic/a08-thinking-text.sse',
    ]);
  });

  it('OpenAI Responses', () => {
    const corpus = [
      'openai/o11-responses-parallel-function-calls.sse',
      'openai/o13-responses-reasoning-summary.sse',
      'openai/o12-responses-incomplete-max-output-tokens.sse',
    ];
    const reply = { thinking: 'Hmm, let me see.', text: 'Some text here.', toolCalls: tools };
    expectShapesFromCorpus(render(openaiResponsesWire, reply), corpus);
    expectShapesFromCorpus(
      render(openaiResponsesWire, { text: 'cut', stop: 'max_tokens' }),
      corpus,
    );
  });
});
