// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import { cachedShare, costOf } from '../../../src/engine/model/usage';
import { lookupModel } from '../../../src/providers/catalog';
import { costUsd } from '../../../src/providers/cost';
import { createAnthropicNormalizer } from '../../../src/providers/anthropic/normalize';
import { createChatNormalizer } from '../../../src/providers/openai-chat/normalize';
import { createResponsesNormalizer } from '../../../src/providers/openai-responses/normalize';
import type { StreamNormalizer } from '../../../src/providers/run-attempt';
import type { StreamEvent } from '../../../src/providers/types';
import { formatUsage } from '../../../sidepanel/format';
import { installBundles } from '../../../sidepanel/i18n';
import { rng } from '../../../scripts/bench/cost-task';

/**
 * Issue 17: a turn is priced with the cache rates. `inputTokens` is the whole prompt (the adapters'
 * convention); cache reads and writes are parts of it, never added on top (the engine's costOf
 * used to add them again, pricing a cached prompt above an uncached one).
 */
describe('cache-priced cost', () => {
  const sonnet = lookupModel('claude-sonnet-4-5').pricing!;

  it('the engine prices usage exactly as the provider cost does, for random usages', () => {
    const r = rng(17);
    for (let i = 0; i < 200; i++) {
      const input = Math.floor(r() * 200_000);
      const read = Math.floor(r() * input);
      const write = Math.floor(r() * (input - read));
      const usage = {
        inputTokens: input,
        outputTokens: Math.floor(r() * 4000),
        cacheReadTokens: read,
        cacheWriteTokens: write,
      };
      expect(costOf(usage, sonnet), `seed 17 #${i}`).toBeCloseTo(
        costUsd({ pricing: sonnet }, usage)!,
        12,
      );
      // A read from the cache is never dearer than the same tokens uncached.
      expect(costOf(usage, sonnet)!).toBeLessThanOrEqual(
        costOf({ ...usage, cacheReadTokens: 0 }, sonnet)! + 1e-12,
      );
    }
  });

  it('a cached prompt: 1,000 read, 50 written, 100 uncached, 10 out (Sonnet 4.5)', () => {
    const usage = {
      inputTokens: 1150,
      outputTokens: 10,
      cacheReadTokens: 1000,
      cacheWriteTokens: 50,
    };
    expect(costOf(usage, sonnet)).toBeCloseTo(
      (100 * 3 + 1000 * 0.3 + 50 * 3.75 + 10 * 15) / 1e6,
      12,
    );
    expect(cachedShare(usage)).toBeCloseTo(1000 / 1150, 12);
    expect(costOf(usage, undefined)).toBeUndefined();
  });

  it('the usage line shows the cached share in both languages', () => {
    const usage = { inputTokens: 1150, outputTokens: 10, cacheReadTokens: 1000 };
    installBundles('en', en, en);
    expect(formatUsage(usage, 0.0009)).toBe('1.1k in · 10 out · cached 87% · $0.0009');
    expect(formatUsage({ inputTokens: 1150, outputTokens: 10 }, 0.0009)).toBe(
      '1.1k in · 10 out · $0.0009',
    );
    installBundles('zh-CN', zh, en);
    expect(formatUsage(usage)).toBe('输入 1.1k · 输出 10 · 缓存 87%');
    installBundles('en', en, en);
  });
});

/** The last usage a normalizer reports for raw wire events (plain JSON, hence the casts). */
function lastUsage<Raw>(normalizer: StreamNormalizer<Raw>, raw: unknown[]) {
  const out: StreamEvent[] = [];
  for (const event of raw) out.push(...normalizer.push(event as Raw));
  return out.filter((e) => e.type === 'usage').at(-1);
}

describe('cache usage from both providers', () => {
  it('Anthropic: cache reads and writes are parts of the whole prompt', () => {
    const usage = lastUsage(createAnthropicNormalizer(), [
      {
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 100,
            output_tokens: 1,
            cache_read_input_tokens: 9000,
            cache_creation_input_tokens: 400,
          },
        },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } },
    ]);
    expect(usage).toEqual({
      type: 'usage',
      usage: { inputTokens: 9500, outputTokens: 20, cacheReadTokens: 9000, cacheWriteTokens: 400 },
    });
  });

  it('OpenAI Chat Completions and Responses: cached_tokens is the part of the prompt read from the cache', () => {
    const chat = lastUsage(createChatNormalizer(), [
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [],
        usage: {
          prompt_tokens: 5000,
          completion_tokens: 30,
          prompt_tokens_details: { cached_tokens: 4864 },
        },
      },
    ]);
    expect(chat).toEqual({
      type: 'usage',
      usage: { inputTokens: 5000, outputTokens: 30, cacheReadTokens: 4864 },
    });
    const responses = lastUsage(createResponsesNormalizer(), [
      {
        type: 'response.completed',
        sequence_number: 1,
        response: {
          id: 'r',
          status: 'completed',
          output: [],
          usage: {
            input_tokens: 5000,
            output_tokens: 30,
            input_tokens_details: { cached_tokens: 4864 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        },
      },
    ]);
    expect(responses).toMatchObject({
      type: 'usage',
      usage: { inputTokens: 5000, outputTokens: 30, cacheReadTokens: 4864 },
    });
  });
});
