import { describe, expect, it } from 'vitest';
import {
  clipBoundary,
  clipScan,
  DEFAULT_CLIP_POLICY,
  type ClipCandidate,
  type ClipPolicy,
} from '../../../src/engine/context/context-clipping';
import { rng } from '../../../scripts/bench/cost-task';

/**
 * Issue 17: the clip replay continues over appended tool results instead of replaying the whole
 * thread (context-builder.ts keeps it between model calls). Property: on generated candidate
 * lists cut into random chunks, the replay continued chunk by chunk ends where one replay of the
 * whole list ends, at every chunk, for generated policies.
 */
describe('clipScan continued over appended candidates equals one replay', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    it(`seed ${seed}`, () => {
      const r = rng(seed);
      const policy: ClipPolicy = {
        ...DEFAULT_CLIP_POLICY,
        keepRecent: Math.floor(r() * 8),
        batchTokens: 1 + Math.floor(r() * 3000),
      };
      const all: ClipCandidate[] = [];
      let scan = clipScan(all, policy);
      let boundaries = 0;
      for (let chunk = 0; chunk < 60; chunk++) {
        const n = Math.floor(r() * 5);
        for (let i = 0; i < n; i++)
          all.push({
            id: `r${all.length}`,
            savings: Math.floor(r() * 900),
            clippable: r() < 0.85,
          });
        const before = scan.boundary;
        scan = clipScan(all, policy, scan);
        expect(scan, `seed ${seed}, chunk ${chunk}`).toEqual(clipScan(all, policy));
        expect(scan.boundary).toBe(clipBoundary(all, policy));
        if (scan.boundary !== before) boundaries += 1;
      }
      // Not vacuous: the boundary moved in most generated threads.
      if (policy.batchTokens < 1500) expect(boundaries).toBeGreaterThan(0);
    });
  }
});
