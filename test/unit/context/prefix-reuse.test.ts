import { describe, expect, it } from 'vitest';
import {
  clippedResults,
  clipPolicyFor,
  DEFAULT_CLIP_POLICY,
  type ClipCandidate,
} from '../../../src/engine/context/context-clipping';
import { lookupModel } from '../../../src/providers/catalog';
import { prefixReuse } from '../../../scripts/bench/cost-measure';
import {
  realPrompt,
  requestBodies,
  rng,
  SHAPE_MODELS,
  taskPaths,
  type RequestShape,
} from '../../../scripts/bench/cost-task';

/**
 * Issue 17: most steps of a turn are append-only, and the context is edited rarely, in batches.
 * Measured on the serialized request bodies the real builders produce (what the SDKs send).
 */

const SEEDS = [1, 2, 3, 4, 5, 6];

function longTurn(seed: number) {
  const r = rng(seed * 7919);
  // Long turns of a browser task: 16–40 steps, a page snapshot every third step of 1.5–4k tokens
  // (the pages of the measurement gave about 2k), finds, text, clicks and typing between.
  const steps = 16 + Math.floor(r() * 25);
  const lo = 6_000 + Math.floor(r() * 4_000);
  return {
    steps,
    seed,
    snapshotChars: [lo, lo + 2_000 + Math.floor(r() * 4_000)] as [number, number],
  };
}

describe('prefix reuse under Keel’s clipping policy', () => {
  for (const shape of ['anthropic', 'openai', 'openai-responses'] as RequestShape[]) {
    it(`mean prefix reuse over long turns is at least 98 % (${shape} request bodies)`, async () => {
      const prompt = await realPrompt();
      const policy = clipPolicyFor(lookupModel(SHAPE_MODELS[shape]).contextWindow);
      for (const seed of SEEDS) {
        const task = longTurn(seed);
        const bodies = requestBodies(
          taskPaths(task),
          shape,
          { vision: true, providerKind: shape, truncate: policy },
          prompt,
        );
        const reuse = prefixReuse(bodies);
        expect(reuse.mean, `seed ${seed}: ${JSON.stringify(task)}`).toBeGreaterThanOrEqual(0.98);
        // Append-only steps change nothing but the closing bytes of the previous body.
        expect(reuse.shares.filter((s) => s < 0.99).length, `seed ${seed}`).toBeLessThanOrEqual(1);
      }
    });
  }

  it('the policy before (clip one more result every step) stays far below, on the same turns', async () => {
    const prompt = await realPrompt();
    const task = longTurn(SEEDS[0]);
    const bodies = requestBodies(
      taskPaths(task),
      'anthropic',
      {
        vision: true,
        providerKind: 'anthropic',
        truncate: { ...DEFAULT_CLIP_POLICY, batchTokens: 0 },
      },
      prompt,
    );
    expect(prefixReuse(bodies).mean).toBeLessThan(0.8);
  });
});

describe('clippedResults', () => {
  const candidates = (seed: number, n: number): ClipCandidate[] => {
    const r = rng(seed);
    return Array.from({ length: n }, (_, i) => ({
      id: `r${i}`,
      savings: r() < 0.4 ? Math.floor(r() * 8000) : 0,
      clippable: r() > 0.05,
    }));
  };

  it('only grows as the path grows, and changes only at a batch that saves at least batchTokens', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const all = candidates(seed, 120);
      const policy = { ...DEFAULT_CLIP_POLICY, batchTokens: 4000 + (seed % 5) * 6000 };
      let before = new Set<string>();
      for (let n = 0; n <= all.length; n++) {
        const now = clippedResults(all.slice(0, n), policy);
        for (const id of before) expect(now.has(id), `seed ${seed}, n ${n}`).toBe(true);
        const added = [...now].filter((id) => !before.has(id));
        if (added.length) {
          const saved = all.filter((c) => added.includes(c.id)).reduce((s, c) => s + c.savings, 0);
          expect(saved, `seed ${seed}, n ${n}`).toBeGreaterThanOrEqual(policy.batchTokens);
        }
        // The newest keepRecent results stay whole; whitelisted ones are never clipped.
        for (const c of all.slice(Math.max(0, n - policy.keepRecent), n))
          expect(now.has(c.id)).toBe(false);
        for (const c of all.slice(0, n)) if (!c.clippable) expect(now.has(c.id)).toBe(false);
        before = now;
      }
    }
  });

  it('with batchTokens 0 it is the old policy: all but the newest keepRecent', () => {
    const all = candidates(9, 20).map((c) => ({ ...c, clippable: true }));
    const clipped = clippedResults(all, { ...DEFAULT_CLIP_POLICY, batchTokens: 0 });
    expect([...clipped]).toEqual(all.slice(0, 14).map((c) => c.id));
  });

  it('the batch never waits for more than half of a small window', () => {
    expect(clipPolicyFor(1_000_000).batchTokens).toBe(80_000);
    expect(clipPolicyFor(200_000).batchTokens).toBe(80_000);
    expect(clipPolicyFor(100_000).batchTokens).toBe(50_000);
    expect(clipPolicyFor(8_000).batchTokens).toBe(4_000);
  });
});
