// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import { cachedShare, costOf } from '../../../src/engine/usage';
import { lookupModel } from '../../../src/providers/catalog';
import { costUsd } from '../../../src/providers/cost';
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
      const usage = { inputTokens: input, outputTokens: Math.floor(r() * 4000), cacheReadTokens: read, cacheWriteTokens: write };
      expect(costOf(usage, sonnet), `seed 17 #${i}`).toBeCloseTo(costUsd({ pricing: sonnet }, usage)!, 12);
      // A read from the cache is never dearer than the same tokens uncached.
      expect(costOf(usage, sonnet)!).toBeLessThanOrEqual(costOf({ ...usage, cacheReadTokens: 0 }, sonnet)! + 1e-12);
    }
  });

  it('a cached prompt: 1,000 read, 50 written, 100 uncached, 10 out (Sonnet 4.5)', () => {
    const usage = { inputTokens: 1150, outputTokens: 10, cacheReadTokens: 1000, cacheWriteTokens: 50 };
    expect(costOf(usage, sonnet)).toBeCloseTo((100 * 3 + 1000 * 0.3 + 50 * 3.75 + 10 * 15) / 1e6, 12);
    expect(cachedShare(usage)).toBeCloseTo(1000 / 1150, 12);
    expect(costOf(usage, undefined)).toBeUndefined();
  });

  it('the usage line shows the cached share in both languages', () => {
    const usage = { inputTokens: 1150, outputTokens: 10, cacheReadTokens: 1000 };
    installBundles('en', en, en);
    expect(formatUsage(usage, 0.0009)).toBe('1.1k in · 10 out · cached 87% · $0.0009');
    expect(formatUsage({ inputTokens: 1150, outputTokens: 10 }, 0.0009)).toBe('1.1k in · 10 out · $0.0009');
    installBundles('zh-CN', zh, en);
    expect(formatUsage(usage)).toBe('输入 1.1k · 输出 10 · 缓存 87%');
    installBundles('en', en, en);
  });
});
