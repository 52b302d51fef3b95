import { describe, expect, it } from 'vitest';
import { KNOWN_DEFECTS, knownDefect } from './known-defects';
import { generate } from './plan';
import { runHistory } from './run-history';

/**
 * The simulation in CI: 3,000 seeded histories, each checked after every step and at quiescence,
 * in two files (this one and sim-2.test.ts, 1,500 each) so that vitest runs them on both cores.
 * SIM_SEED shifts the seeds (default 1); SIM_RUNS changes the count per file.
 * A violation fails the batch with the seed to replay (`npm run test:sim -- --runs 1 --seed S`),
 * except violations of defects listed in known-defects.ts (issue 12's, fixed by the engine work):
 * those are counted and printed, and the list is emptied when the fixes land.
 */
const BASE = Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_RUNS ?? 1500);
const BATCH = 150;

describe('engine simulation', () => {
  it('is deterministic: the same seed plays the same history with the same result', async () => {
    for (let seed = BASE; seed < BASE + 25; seed++) {
      const [a, b] = [await runHistory(generate(seed)), await runHistory(generate(seed))];
      expect([seed, b.trace, b.kills, b.violations]).toEqual([seed, a.trace, a.kills, a.violations]);
    }
  }, 60_000);

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
