import { describe, expect, it } from 'vitest';
import { simulationBatches } from './ci-batches';
import { generate } from './plan';
import { runHistory } from './run-history';

/**
 * The simulation in CI: 3,000 seeded histories, each checked after every step and at quiescence,
 * in two files (this one and sim-2.test.ts, 1,500 each) so that vitest runs them on both cores.
 * SIM_SEED shifts the seeds (default 1); SIM_RUNS changes the count per file.
 */
const BASE = Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_RUNS ?? 1500);

describe('engine simulation', () => {
  it('is deterministic: the same seed plays the same history with the same result', async () => {
    for (let seed = BASE; seed < BASE + 25; seed++) {
      const [a, b] = [await runHistory(generate(seed)), await runHistory(generate(seed))];
      expect([seed, b.trace, b.kills, b.violations]).toEqual([
        seed,
        a.trace,
        a.kills,
        a.violations,
      ]);
    }
  }, 60_000);

  simulationBatches(BASE, RUNS);
});
