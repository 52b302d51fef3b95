/**
 * Records which edges of the run machine (src/engine/run/run-edges.ts) the unit tests take, for
 * `scripts/run-edge-coverage.ts`: every edge of the map must be reached by some test. Active only
 * when KEEL_EDGE_LOG names a folder (the script sets it); a plain `vitest run` records nothing.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { observeRunEdges } from '../../src/engine/run/run-edges';

const dir = process.env.KEEL_EDGE_LOG;
if (dir) {
  const seen = new Set<string>();
  observeRunEdges((by, from, to) => seen.add(`${by} ${from} ${to}`));
  afterAll(() => {
    if (seen.size)
      appendFileSync(join(dir, `edges-${process.pid}.txt`), `${[...seen].join('\n')}\n`);
  });
}
