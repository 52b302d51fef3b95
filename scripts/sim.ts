import { observeRunEdges, RUN_EDGES } from '../src/engine/run/run-edges';
import { knownDefect } from '../test/sim/known-defects';
import { generate } from '../test/sim/plan';
import { runHistory } from '../test/sim/run-history';
import { formatHistory, shrink, violationKind } from '../test/sim/shrink';
import { SIM_STORE_MODES, type SimStoreMode } from '../test/sim/sim-store';
import { emptyStats, type SimStats } from '../test/sim/world';

/**
 * The engine simulation (test/sim): `npm run test:sim -- --runs N [--seed S] [--store M]`. History
 * i is generated from seed S + i (S defaults to 1), so `--runs 1 --seed X` replays history X
 * exactly. `--store dexie` runs the engine on the Dexie store over fake-indexeddb instead of the
 * in-memory store (the default, `memory`); the same seed plays the same history on either.
 * Every violating history is printed with its seed and a shrunk history; the line before the last
 * counts what the histories met (world.ts `SimStats`: uncertain pauses, tool retries, breaker
 * trips, budget pauses, non-retryable errors, kills inside a transaction and inside a write tool,
 * hand-overs to the user and hand-backs);
 * the last line is `N histories, K kills, V violations` (V counts histories with a violation); the exit code is 1
 * when V > 0. The first history of each kind of violation is shrunk (at most `--shrink` replays,
 * default 300; 0 = no shrinking). `--first` stops after the first history with a violation that
 * is not a known defect (known-defects.ts) and prints `first violation after N histories` (the
 * mutation check, scripts/mutants.ts, reads that line).
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} needs a non-negative integer`);
  return v;
}

function storeArg(): SimStoreMode {
  const i = process.argv.indexOf('--store');
  if (i < 0) return 'memory';
  const v = process.argv[i + 1] as SimStoreMode;
  if (!SIM_STORE_MODES.includes(v)) throw new Error(`--store needs one of ${SIM_STORE_MODES}`);
  return v;
}

const runs = arg('runs', 100);
const store = storeArg();
const seed = arg('seed', 1);
const shrinkBudget = arg('shrink', 300);
const stopAtFirst = process.argv.includes('--first');
const started = performance.now();
let kills = 0;
let violating = 0;
const stats: SimStats = emptyStats();
const shrunkKinds = new Set<string>();
let played = 0;
const unhandled: string[] = [];
// Which edges of the run machine's map the histories take: an edge no history reaches is either
// a gap in the generator or an edge the engine can no longer take.
const edgesTaken = new Set<string>();
observeRunEdges((by, from, to) => edgesTaken.add(`${by} ${from} ${to}`));
process.on('unhandledRejection', (e) => {
  unhandled.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
});
for (let i = 0; i < runs; i++) {
  played += 1;
  const history = generate(seed + i);
  const result = await runHistory(history, { store });
  // A promise the engine dropped without a handler (a fire-and-forget emit after a kill) is a
  // defect of this history, not a crash of the whole run: let it surface, then count it here.
  await new Promise((r) => setImmediate(r));
  for (const why of unhandled.splice(0))
    result.violations.push({
      step: -1,
      action: 'quiescence',
      message: `unhandled rejection: ${why}`,
    });
  kills += result.kills;
  for (const k of Object.keys(stats) as (keyof SimStats)[]) stats[k] += result.stats[k];
  if (!result.violations.length) continue;
  violating += 1;
  const first = result.violations[0];
  const kind = violationKind(first.message);
  console.log(`VIOLATION seed=${history.seed} step=${first.step}: ${first.message}`);
  for (const v of result.violations.slice(1, 4)) console.log(`  also: ${v.message}`);
  // Shrink the first history of each kind (later ones of the same kind only get their seed).
  // An unhandled rejection is seen only by this script, not by runHistory: replay it, do not shrink.
  if (!shrunkKinds.has(kind) && shrinkBudget > 0 && !first.message.startsWith('unhandled')) {
    shrunkKinds.add(kind);
    const { history: small, replays } = await shrink(history, kind, shrinkBudget, { store });
    console.log(
      `  shrunk (${replays} replays, ${small.actions.length} actions): ${formatHistory(small)}`,
    );
  }
  const flag = store === 'memory' ? '' : ` --store ${store}`;
  console.log(`  replay: npm run test:sim -- --runs 1 --seed ${history.seed}${flag}`);
  if (stopAtFirst && result.violations.some((v) => !knownDefect(v.message))) {
    console.log(`first violation after ${played} histories`);
    break;
  }
}
const seconds = (performance.now() - started) / 1000;
console.error(`(${seconds.toFixed(1)} s, ${(played / seconds).toFixed(1)} histories/s)`);
console.log(
  Object.entries(stats)
    .map(([k, v]) => `${k} ${v}`)
    .join(', '),
);
const edges = Object.entries(RUN_EDGES).flatMap(([by, rows]) =>
  (rows as readonly { from: string; to: string }[]).map((r) => `${by} ${r.from} ${r.to}`),
);
const notTaken = edges.filter((e) => !edgesTaken.has(e));
console.log(
  `run machine edges taken: ${edges.length - notTaken.length} of ${edges.length}${notTaken.length ? ` (not: ${notTaken.join('; ')})` : ''}`,
);
console.log(`${played} histories, ${kills} kills, ${violating} violations`);
// Killed engines leave promises that never settle and tool timers pending: exit explicitly.
process.exit(violating > 0 ? 1 : 0);
