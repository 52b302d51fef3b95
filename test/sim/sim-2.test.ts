import { describe, expect, it } from 'vitest';
import { knownDefect } from './known-defects';
import { generate } from './plan';
import { runHistory } from './run-history';

// The second half of the CI simulation (see sim.test.ts): seeds 100,001 on, 1,500 histories.
const BASE = 100_000 + Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_RUNS ?? 1500);
const BATCH = 150;

describe('engine simulation (second half)', () => {
  for (let start = 0; start < RUNS; start += BATCH) {
    const n = Math.min(BATCH, RUNS - start);
    it(`histories ${BASE + start}…${BASE + start + n - 1}`, async () => {
      const unknown: string[] = [];
      for (let seed = BASE + start; seed < BASE + start + n; seed++) {
        const r = await runHistory(generate(seed));
        for (const v of r.violations) if (!knownDefect(v.message)) unknown.push(`seed ${seed} step ${v.step}: ${v.message}`);
      }
      expect(unknown, 'replay with: npm run test:sim -- --runs 1 --seed <seed>').toEqual([]);
    }, 170_000);
  }
});
