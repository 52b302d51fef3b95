import { describe, expect, it } from 'vitest';
import { simulationBatches } from './ci-batches';
import { generate } from './plan';
import { runHistory } from './run-history';

/**
 * The simulation on the Dexie store over fake-indexeddb (sim-store.ts): the engine's committed
 * caches, its transactions and a kill that aborts them, under the same histories and invariants
 * as the memory store. About 20 times slower than memory mode, so fewer histories: 150 from seed
 * 200,001 (SIM_SEED shifts them, SIM_DEXIE_RUNS changes the count), plus a determinism check.
 */
const BASE = 200_000 + Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_DEXIE_RUNS ?? 150);

describe('engine simulation on the Dexie store', () => {
  it('is deterministic: the same seed plays the same history with the same result', async () => {
    for (let seed = BASE; seed < BASE + 4; seed++) {
      const [a, b] = [
        await runHistory(generate(seed), { store: 'dexie' }),
        await runHistory(generate(seed), { store: 'dexie' }),
      ];
      expect([seed, b.trace, b.kills, b.violations]).toEqual([
        seed,
        a.trace,
        a.kills,
        a.violations,
      ]);
    }
  }, 60_000);

  simulationBatches(BASE, RUNS, { store: 'dexie' });
});
