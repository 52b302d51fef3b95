import { describe, expect, it } from 'vitest';
import { KNOWN_DEFECTS, knownDefect } from './known-defects';
import { generate } from './plan';
import { runHistory } from './run-history';

/**
 * The simulation in CI: 3,000 seeded histories (20 batches of 150), each checked after every
 * step and at quiescence. SIM_SEED shifts the seeds (default 1); SIM_RUNS changes the count.
 * A violation fails the batch with the seed to replay (`npm run test:sim -- --runs 1 --seed S`),
 * except violations of defects listed in known-defects.ts (issue 12's, fixed by the engine work):
 * those are counted and printed, and the list is emptied when the fixes land.
 */
const BASE = Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_RUNS ?? 3000);
const BATCH = 150;

describe('engine simulation', () => {
  for (let start = 0; start < RUNS; start += BATCH) {
    const n = Math.min(BATCH, RUNS - start);
    it(`histories ${BASE + start}…${BASE + start + n - 1}`, async () => {
      const unknown: string[] = [];
      const known: string[] = [];
      for (let i = start; i < start + n; i++) {
        const seed = BASE + i;
        const r = await runHistory(generate(seed));
        for (const v of r.violations) {
          const line = `seed ${seed} step ${v.step}: ${v.message}`;
          (knownDefect(v.message) ? known : unknown).push(line);
        }
      }
      if (known.length) console.warn(`${known.length} violations of known defects (${KNOWN_DEFECTS.length} listed), e.g. ${known[0]}`);
      expect(unknown, 'replay with: npm run test:sim -- --runs 1 --seed <seed>').toEqual([]);
    }, 170_000);
  }
});
