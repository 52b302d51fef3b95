import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The simulation's mutation check (docs/testing.md): `npm run test:mutants [-- --runs N
 * --dexie-runs M --only NAME]`. Each mutant is a planted bug in the engine: the script copies
 * `src`, `test/sim` and `scripts` to a temporary directory, plants the mutant there (the working
 * tree is never touched), and plays seeded histories on the copy (`scripts/sim.ts --first`) in
 * memory mode (at most `--runs`, default 1500), then, if memory mode missed it (or with
 * `--both`), on the Dexie store (at most `--dexie-runs`, default 150), each stopping at the first
 * violation that is not a known defect. A mutant must be caught in at least one mode; the table
 * says after how many histories. A mutant whose text
 * is no longer in the source ("not planted") fails the check too: update its edit. On demand, not
 * in CI (a mutant that survives costs the full runs).
 */

interface Edit {
  file: string;
  from: string;
  to: string;
}

interface Mutant {
  name: string;
  /** The rule it breaks (what the simulation must notice). */
  breaks: string;
  edits: Edit[];
}

const MUTANTS: Mutant[] = [
  {
    name: 'budget-pause-disabled',
    breaks: 'no model call after the token budget is spent',
    edits: [
      {
        file: 'src/engine/run/run-machine.ts',
        from: 'if (f.tokenBudget !== null && f.modelCalls > 0 && f.usedSinceBaseline >= f.tokenBudget)',
        to: 'if (f.tokenBudget !== null && f.modelCalls < 0)',
      },
    ],
  },
  {
    name: 'non-retryable-retried',
    breaks: 'a non-retryable provider error is never retried',
    edits: [
      {
        file: 'src/engine/run/run-machine.ts',
        from: "if (f.retryable && f.code !== 'aborted' && f.attempts < f.maxAttempts)",
        to: "if (f.code !== 'aborted' && f.attempts < f.maxAttempts)",
      },
    ],
  },
  {
    name: 'breaker-ignored',
    breaks: 'after five consecutive tool failures the final request forbids tools',
    edits: [
      {
        file: 'src/engine/model/model-step.ts',
        from: "...(toolsDisabled && tools.length ? { toolChoice: 'none' as const } : {}),",
        to: '...({}),',
      },
    ],
  },
  {
    name: 'second-turn-complete-on-interrupt',
    breaks: 'one turn.complete per turn',
    edits: [
      {
        file: 'src/engine/turn/run-driver.ts',
        from: "        await this.ended(runId);\n        return;\n      }\n      this.ctx.log.error('run failed unexpectedly'",
        to: "        await this.ended(runId);\n        await this.ended(runId);\n        return;\n      }\n      this.ctx.log.error('run failed unexpectedly'",
      },
      {
        file: 'src/engine/ops/ops-turns.ts',
        from: '        await engine.driver.ended(current.runId);\n',
        to: '        await engine.driver.ended(current.runId);\n        await engine.driver.ended(current.runId);\n',
      },
    ],
  },
  {
    name: 'turn-complete-inside-interrupt-transaction',
    breaks: 'turn.complete only after every commit of the turn',
    edits: [
      {
        file: 'src/engine/turn/run-driver.ts',
        from: '      return w.created;\n    });\n    for (const n of created) emitCommitted(this.ctx, n);\n  }\n\n  /** After a run stopped stepping',
        to: "      this.ctx.emit({ type: 'turn.complete', threadId: run.threadId, turnId: run.turnId, runId, stopReason: 'interrupted' });\n      return w.created;\n    });\n    for (const n of created) emitCommitted(this.ctx, n);\n  }\n\n  /** After a run stopped stepping",
      },
      {
        file: 'src/engine/turn/run-driver.ts',
        from: 'if (run.stopReason && !isDriven(run.state)) {',
        to: "if (run.stopReason && !isDriven(run.state) && run.state !== 'interrupted') {",
      },
    ],
  },
  {
    name: 'run-state-split-from-nodes',
    breaks: "a model step's nodes and the run's next state commit together",
    edits: [
      {
        file: 'src/engine/model/assistant-commit.ts',
        from: "    const t = await w.finish(now, threadUsage);\n    const r = await store.runs.update(\n      run.runId,\n      (r) => {\n        usage(r);\n        r.state = next.kind === 'execute_tools' ? 'executing_tool' : 'streaming_model';\n      },\n      now,\n    );\n    return { created: w.created, run: r, thread: t };\n  });\n",
        to: "    const t = await w.finish(now, threadUsage);\n    const later = (r: RunRecord) => {\n      usage(r);\n      r.state = next.kind === 'execute_tools' ? 'executing_tool' : 'streaming_model';\n    };\n    return { created: w.created, run, thread: t, later };\n  });\n  const split = (out as { later?: (r: RunRecord) => void }).later;\n  if (split) out.run = await ctx.commit('assistant_state', () => ctx.store.runs.update(out.run.runId, split, ctx.clock.now()));\n",
      },
    ],
  },
];

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} needs a non-negative integer`);
  return v;
}

const root = resolve(import.meta.dirname, '..');
const runs = arg('runs', 1500);
const dexieRuns = arg('dexie-runs', 150);
const both = process.argv.includes('--both');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;

/** A copy of what the simulation runs, with `node_modules` linked, and the mutant planted. */
function plant(m: Mutant): string | { problem: string } {
  const dir = mkdtempSync(join(tmpdir(), `keel-mutant-${m.name}-`));
  for (const d of ['src', 'test/sim', 'scripts'])
    cpSync(join(root, d), join(dir, d), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(root, f), join(dir, f));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const e of m.edits) {
    const path = join(dir, e.file);
    const text = readFileSync(path, 'utf8');
    const n = text.split(e.from).length - 1;
    if (n !== 1) {
      rmSync(dir, { recursive: true, force: true });
      return { problem: `not planted: the text to change occurs ${n} times in ${e.file}` };
    }
    writeFileSync(path, text.replace(e.from, e.to));
  }
  return dir;
}

/** Histories played until the first violation (not a known defect), or null if none. */
function play(dir: string, store: 'memory' | 'dexie', max: number): number | null {
  if (max === 0) return null;
  const out = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(dir, 'scripts/sim.ts'),
      '--runs',
      String(max),
      '--store',
      store,
      '--shrink',
      '0',
      '--first',
    ],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const m = /first violation after (\d+) histories/.exec(out.stdout);
  if (m) {
    const first = out.stdout.split('\n').find((l) => l.startsWith('VIOLATION'));
    if (first) console.log(`    ${store}: ${first.slice(0, 200)}`);
    return Number(m[1]);
  }
  if (!/\d+ histories, \d+ kills, \d+ violations/.test(out.stdout))
    throw new Error(`sim.ts did not finish for ${dir} (${store}):\n${out.stderr.slice(-2000)}`);
  return null;
}

const rows: string[] = [];
let survivors = 0;
for (const m of MUTANTS.filter((x) => !only || x.name === only)) {
  console.log(`${m.name} (breaks: ${m.breaks})`);
  const dir = plant(m);
  if (typeof dir !== 'string') {
    survivors += 1;
    rows.push(`| ${m.name} | ${dir.problem} | |`);
    console.log(`    ${dir.problem}`);
    continue;
  }
  try {
    const mem = play(dir, 'memory', runs);
    const dex = mem === null || both ? play(dir, 'dexie', dexieRuns) : undefined;
    if (mem === null && dex === null) survivors += 1;
    const cell = (n: number | null | undefined, max: number) =>
      n === undefined ? 'not run' : n === null ? `none in ${max}` : String(n);
    rows.push(`| ${m.name} | ${cell(mem, runs)} | ${cell(dex, dexieRuns)} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(
  '\n| mutant | memory: histories to first violation | dexie: histories to first violation |',
);
console.log('|---|---|---|');
for (const r of rows) console.log(r);
console.log(`\n${rows.length} mutants, ${rows.length - survivors} caught, ${survivors} not caught`);
process.exit(survivors > 0 ? 1 : 0);
