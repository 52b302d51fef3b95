import { describe, expect, it } from 'vitest';
import { runTrial } from './crash-harness';
import { scenarios } from './scenarios';

/**
 * Property-style: for each scenario, count the effect boundaries of an uninterrupted run, then
 * kill the engine at each boundary in turn, recover with a new engine over the same database,
 * and check the invariants (crash-harness.ts). Every boundary of every scenario is exercised.
 */
describe('crash at every effect boundary', () => {
  const totals: Record<string, number> = {};
  for (const scenario of scenarios) {
    it(`${scenario.name}`, async () => {
      const clean = await runTrial(scenario, null);
      expect(clean.killedAt).toBeNull();
      const n = clean.hits.length;
      expect(n).toBeGreaterThan(3);
      // Address each kill point as (boundary, occurrence): stable even when flows interleave.
      const seen = new Map<string, number>();
      const points = clean.hits.map((name) => {
        const occurrence = (seen.get(name) ?? 0) + 1;
        seen.set(name, occurrence);
        return { name, occurrence };
      });
      let killedCount = 0;
      for (const p of points) {
        const r = await runTrial(scenario, p);
        expect(r.killedAt, `kill point ${p.name}#${p.occurrence} was not reached`).toBe(p.name);
        killedCount += 1;
      }
      totals[scenario.name] = killedCount;
    }, 120_000);
  }
  it('reports the number of kill points', () => {
    const sum = Object.values(totals).reduce((a, b) => a + b, 0);
    console.log(
      `crash harness: ${sum} kill points across ${Object.keys(totals).length} scenarios`,
      totals,
    );
    expect(sum).toBeGreaterThan(0);
  });
});
