/**
 * What a task's model requests cost, counted the same way for both agents: each request is the
 * whole context the model is sent (tool definitions, system prompt, every message so far, in the
 * OpenAI Chat Completions shape both agents' requests are written in), tokenized with one
 * tokenizer (o200k_base). Prompt caching: each request reads from the cache the longest token
 * prefix it shares with the previous request (Anthropic's rules: nothing under 1,024 tokens; the
 * rest is written), priced at the catalog's prices of one model for both agents.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { lookupModel } from '../../../src/providers/catalog';

export const PRICED_MODEL = 'claude-sonnet-4-5';

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: unknown[];
}

const contentText = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c
          .map((b) =>
            b && typeof b === 'object' && 'text' in b ? String(b.text) : JSON.stringify(b),
          )
          .join('\n')
      : c === undefined || c === null
        ? ''
        : JSON.stringify(c);

/** The request as the model reads it, in one canonical order: tools, then messages. */
export function requestText(r: ChatRequest): string {
  const parts = [JSON.stringify(r.tools ?? [])];
  for (const m of r.messages) {
    parts.push(`<${m.role}>`, contentText(m.content));
    for (const t of m.tool_calls ?? []) parts.push(`${t.function.name} ${t.function.arguments}`);
  }
  return parts.join('\n');
}

export function tokens(text: string): number[] {
  return encode(text);
}

/** Tokens of an assistant reply that calls `name` with `args` (what the model writes). */
export function outputTokens(name: string, args: unknown): number {
  return encode(`${name} ${JSON.stringify(args)}`).length;
}

export interface RequestFigures {
  input: number;
  /** Tokens read from the cache (prefix shared with the previous request). */
  cacheRead: number;
}

const MIN_CACHED = 1024;

/** Per request: its input tokens and the prefix it shares with the one before. */
export function requestFigures(requests: readonly ChatRequest[]): RequestFigures[] {
  let prev: number[] = [];
  return requests.map((r) => {
    const t = tokens(requestText(r));
    let n = 0;
    const max = Math.min(prev.length, t.length);
    while (n < max && prev[n] === t[n]) n++;
    prev = t;
    return { input: t.length, cacheRead: n >= MIN_CACHED ? n : 0 };
  });
}

export interface CostFigures {
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  usdNoCache: number;
  usdCached: number;
}

export function cost(per: readonly RequestFigures[], output: number): CostFigures {
  const p = lookupModel(PRICED_MODEL).pricing!;
  let input = 0;
  let read = 0;
  for (const r of per) {
    input += r.input;
    read += r.cacheRead;
  }
  const write = input - read;
  const usd = (micros: number) => micros / 1_000_000;
  return {
    inputTokens: input,
    cacheReadTokens: read,
    outputTokens: output,
    usdNoCache: usd(input * p.input + output * p.output),
    usdCached: usd(
      read * (p.cacheRead ?? p.input) + write * (p.cacheWrite ?? p.input) + output * p.output,
    ),
  };
}
