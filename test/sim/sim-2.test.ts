import { describe } from 'vitest';
import { simulationBatches } from './ci-batches';

// The second half of the CI simulation (see sim.test.ts): seeds from 100,001 on.
describe('engine simulation (second half)', () => {
  simulationBatches(
    100_000 + Number(process.env.SIM_SEED ?? 1),
    Number(process.env.SIM_RUNS ?? 1500),
  );
});
