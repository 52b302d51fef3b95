/**
 * The scripted task of the cost benchmark and of the prefix-reuse property test: one long turn of
 * a browser agent (snapshots, finds, clicks, typing), built as the node path the engine stores,
 * then sent through the engine's context builder and the real request builders of each provider
 * kind, step by step. Deterministic for a seed.
 */
import { buildContext, type ContextOptions } from '../../src/engine/context/context-builder';
import { buildSystemPrompt } from '../../src/engine/env/system-prompt';
import type { ContentBlock } from '../../src/protocol';
import { buildAnthropicRequest } from '../../src/providers/anthropic/request';
import { lookupModel } from '../../src/providers/catalog';
import type { RequestInput } from '../../src/providers/content';
import { buildChatRequest } from '../../src/providers/openai-chat/request';
import { buildResponsesRequest } from '../../src/providers/openai-responses/request';
import type { ToolSpec } from '../../src/providers/types';
import type { NodeRecord } from '../../src/store/records';
import { createBrowserTools } from '../../src/tools/browser';
import type { BrowserHost } from '../../src/tools/browser/host';
import { catalogOf, ToolRegistry, toolSpecs } from '../../src/tools/registry';

/** A small seeded PRNG (mulberry32): the same seed, the same task. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'cable',
  'USB-C',
  'price',
  'cart',
  'shipping',
  'review',
  'stars',
  'add',
  'compare',
  'brand',
  'length',
  'color',
  'black',
  'white',
  'in stock',
  'deal',
  'menu',
  'search',
  'filter',
  'sort',
];
const ROLES = ['link', 'button', 'heading', 'text', 'listitem', 'img', 'textbox', 'checkbox'];

function words(r: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
}

/** Page-snapshot-like text of about `chars` characters. */
function snapshotText(r: () => number, chars: number, page: number): string {
  const lines = [`Page: https://shop${page}.example/list?p=${page}`, 'Title: Results'];
  let size = 60;
  let ref = page * 1000;
  while (size < chars) {
    const line = `${'  '.repeat(Math.floor(r() * 4))}- ${ROLES[Math.floor(r() * ROLES.length)]} "${words(r, 2 + Math.floor(r() * 6))}" [ref=e${ref++}]`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** The task's tool steps: a cycle like a shopping comparison. Result sizes in characters. */
export interface TaskShape {
  steps: number;
  seed: number;
  /** Characters of a snapshot result (uniform in this range). */
  snapshotChars: [number, number];
}

export const BENCH_TASK: TaskShape = { steps: 30, seed: 17, snapshotChars: [12_000, 28_000] };

interface Step {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

function taskSteps(shape: TaskShape): Step[] {
  const r = rng(shape.seed);
  const out: Step[] = [];
  const [lo, hi] = shape.snapshotChars;
  for (let i = 0; i < shape.steps; i++) {
    const page = Math.floor(i / 3) + 1;
    switch (i % 6) {
      case 0:
      case 3:
        out.push({
          name: 'browser_snapshot',
          args: { tabId: 7 },
          result: snapshotText(r, lo + Math.floor(r() * (hi - lo)), page),
        });
        break;
      case 1:
        out.push({
          name: 'browser_click',
          args: { tabId: 7, ref: `e${page * 1000 + 12}` },
          result: `Clicked link "${words(r, 3)}". The page navigated to https://shop${page}.example/item/${i}.`,
        });
        break;
      case 2:
        out.push({
          name: 'browser_type',
          args: {
            tabId: 7,
            ref: `e${page * 1000 + 3}`,
            text: words(r, 40 + Math.floor(r() * 200)),
          },
          result: 'Typed into textbox "Search". The value is now set.',
        });
        break;
      case 4:
        out.push({
          name: 'browser_find',
          args: { tabId: 7, query: words(r, 3) },
          result: snapshotText(r, 600 + Math.floor(r() * 1800), page),
        });
        break;
      default:
        out.push({
          name: 'browser_get_text',
          args: { tabId: 7 },
          result: words(r, 300 + Math.floor(r() * 600)),
        });
    }
  }
  return out;
}

function nodeOf(id: string, seq: number, item: NodeRecord['item']): NodeRecord {
  return {
    v: 1,
    id,
    threadId: 'th_bench',
    parentId: null,
    seq,
    createdAt: 0,
    item,
  } as unknown as NodeRecord;
}

/**
 * The path before each model call of the turn: call k sees the user message and the first k
 * steps (assistant message with its call, then the result).
 */
export function taskPaths(shape: TaskShape): NodeRecord[][] {
  const steps = taskSteps(shape);
  const path: NodeRecord[] = [
    nodeOf('n_user', 0, {
      kind: 'user_message',
      id: 'n_user',
      createdAt: 0,
      text: 'Find the cheapest 2 m USB-C cable across these shops and put it in my cart.',
    }),
  ];
  const out: NodeRecord[][] = [[...path]];
  steps.forEach((s, i) => {
    const callId = `toolu_${i}`;
    path.push(
      nodeOf(`n_a${i}`, path.length, {
        kind: 'assistant_message',
        id: `n_a${i}`,
        createdAt: 0,
        text: i % 4 === 0 ? `Step ${i + 1}: ${words(rng(i), 8)}.` : '',
        providerStopReason: 'tool_use',
        toolCalls: [{ id: callId, name: s.name, args: s.args }],
      }),
    );
    const content: ContentBlock[] = [{ type: 'text', text: s.result }];
    path.push(
      nodeOf(`n_r${i}`, path.length, {
        kind: 'tool_result',
        id: `n_r${i}`,
        createdAt: 0,
        toolCallId: callId,
        name: s.name,
        ok: true,
        content,
        untrusted: true,
      }),
    );
    out.push([...path]);
  });
  return out;
}

/** The real tool catalog and system prompt of a run (browser tools over an inert host). */
let promptCache: Promise<{ system: string; tools: ToolSpec[] }> | undefined;

export function realPrompt(): Promise<{ system: string; tools: ToolSpec[] }> {
  promptCache ??= buildRealPrompt();
  return promptCache;
}

async function buildRealPrompt(): Promise<{ system: string; tools: ToolSpec[] }> {
  const registry = new ToolRegistry();
  // Only the descriptors are read: every host method is an inert no-op.
  const inert = new Proxy({}, { get: () => () => undefined }) as BrowserHost;
  for (const tool of createBrowserTools(inert).tools) registry.register(tool);
  const catalog = await catalogOf(registry.list());
  const system = buildSystemPrompt({
    now: Date.UTC(2026, 11, 1),
    locale: 'en',
    toolNames: catalog.map((t) => t.name),
    skills: [],
  });
  return { system, tools: toolSpecs(catalog) };
}

export type RequestShape = 'anthropic' | 'openai' | 'openai-responses';

export const SHAPE_MODELS: Record<RequestShape, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-5',
  'openai-responses': 'gpt-5',
};

/** The serialized request bodies of every model call of the turn, as the SDK sends them. */
export function requestBodies(
  paths: NodeRecord[][],
  shape: RequestShape,
  context: ContextOptions,
  prompt: { system: string; tools: ToolSpec[] },
): string[] {
  const model = SHAPE_MODELS[shape];
  const info = lookupModel(model);
  return paths.map((path) => {
    const input: RequestInput = {
      model,
      system: prompt.system,
      messages: buildContext(path, context),
      tools: prompt.tools,
      maxOutputTokens: 32_000,
      cacheKey: 'th_bench',
    };
    const body =
      shape === 'anthropic'
        ? buildAnthropicRequest(input, info)
        : shape === 'openai'
          ? buildChatRequest(input, info, {
              maxTokensField: 'max_completion_tokens',
              replayReasoningContent: false,
              promptCacheKey: true,
            })
          : buildResponsesRequest(input, info, { promptCacheKey: true });
    return JSON.stringify(body);
  });
}
