/**
 * `npm run test:unit`: the unit suite, then the check that every edge of the run machine's map
 * (src/engine/run/run-edges.ts `RUN_EDGES`) was taken by at least one test (issue 25: "every edge
 * is reached by a test"). The tests record the edges they take (test/setup/run-edges.ts); an edge
 * no test reaches fails the run, named, so a new edge comes with its test. Arguments are passed to
 * vitest; with a filter (any argument) only the suite runs, since a subset cannot cover the map.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_EDGES } from '../src/engine/run/run-edges';

const args = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'keel-edges-'));
const run = spawnSync('npx', ['vitest', 'run', ...args], {
  stdio: 'inherit',
  env: { ...process.env, KEEL_EDGE_LOG: dir },
});
if (args.length) {
  rmSync(dir, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}
const reached = new Set(
  readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)),
);
rmSync(dir, { recursive: true, force: true });
const all = Object.entries(RUN_EDGES).flatMap(([by, rows]) =>
  (rows as readonly { from: string; to: string; when: string }[]).map((r) => ({
    key: `${by} ${r.from} ${r.to}`,
    row: `${by}: ${r.from} → ${r.to} (${r.when})`,
  })),
);
const missing = all.filter((e) => !reached.has(e.key));
console.log(
  `run machine edges reached by the unit tests: ${all.length - missing.length} of ${all.length}`,
);
if (missing.length)
  console.log(`not reached by any test:\n${missing.map((m) => `  ${m.row}`).join('\n')}`);
// The suite's own failures first; then an edge no test reaches.
process.exit(run.status !== 0 ? (run.status ?? 1) : missing.length ? 1 : 0);
