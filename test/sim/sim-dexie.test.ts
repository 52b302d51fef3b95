import { describe } from 'vitest';
import { determinismCheck, simulationBatches } from './ci-batches';

/**
 * The simulation on the Dexie store over fake-indexeddb (sim-store.ts): the engine's committed
 * caches, its transactions and a kill that aborts them, under the same histories and invariants
 * as the memory store. About 20 times slower than memory mode, so fewer histories: 150 from seed
 * 200,001 (SIM_SEED shifts them, SIM_DEXIE_RUNS changes the count), plus a determinism check.
 */
const BASE = 200_000 + Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_DEXIE_RUNS ?? 150);

describe('engine simulation on the Dexie store', () => {
  determinismCheck(BASE, 4, { store: 'dexie' });

  simulationBatches(BASE, RUNS, { store: 'dexie' });
});
