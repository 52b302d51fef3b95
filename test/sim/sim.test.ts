import { describe } from 'vitest';
import { determinismCheck, simulationBatches } from './ci-batches';

/**
 * The simulation in CI: 3,000 seeded histories, each checked after every step and at quiescence,
 * in two files (this one and sim-2.test.ts, 1,500 each) so that vitest runs them on both cores.
 * SIM_SEED shifts the seeds (default 1); SIM_RUNS changes the count per file.
 */
const BASE = Number(process.env.SIM_SEED ?? 1);
const RUNS = Number(process.env.SIM_RUNS ?? 1500);

describe('engine simulation', () => {
  determinismCheck(BASE, 25);

  simulationBatches(BASE, RUNS);
});
