/**
 * `npm run bench`: every benchmark, one after another, each figure against a baseline measured
 * in the same run. Writes bench-results/<name>.json and bench-results/summary.json, prints a
 * summary table. See docs/benchmarks.md.
 *
 *   npm run bench [-- --only engine,gap,stream,recovery,thread,cost,snapshot,matrix,workflow,recording,peers]
 *   KEEL_DIST=/path/to/built/extension npm run bench     (default: dist/, rebuilt when stale)
 *
 * Exits 1 if a benchmark could not run or ran fewer cases than it expected (it reports the
 * expected total, never a smaller denominator); a figure that misses its target is reported (✗),
 * not an error. The whole run is bounded (about 3–6 minutes here, longer with a real-site corpus named by
 * KEEL_CORPUS_PAGES; the peer comparison adds 5–10; a watchdog stops it at 30).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { chromiumVersion, ensureBuilt, ensureChromium, REPO_ROOT } from './demo/setup';
import { benchCost } from './bench/cost';
import { benchEngineSteps } from './bench/engine-steps';
import { benchPeers } from './bench/peers';
import { benchRecording } from './bench/recording';
import { benchRecovery } from './bench/recovery';
import { benchSnapshot } from './bench/snapshot';
import type { BenchResult, SummaryRow } from './bench/stats';
import { benchStepGap } from './bench/step-gap';
import { benchStreamLatency } from './bench/stream-latency';
import { benchThread2000 } from './bench/thread-2000';
import { benchWidgetMatrix } from './bench/widget-matrix';
import { benchWorkflow } from './bench/workflow';

const OUT = join(REPO_ROOT, 'bench-results');
const WATCHDOG_MS = 30 * 60_000;

const BENCHES: { key: string; title: string; run: () => Promise<BenchResult | null> }[] = [
  {
    key: 'engine',
    title: 'engine step overhead',
    run: () => benchEngineSteps({ steps: 50, runs: 5 }),
  },
  { key: 'gap', title: 'step gap (issue 26, point 4)', run: () => benchStepGap() },
  {
    key: 'stream',
    title: 'stream latency',
    run: () => benchStreamLatency({ turns: 4, deltas: 60, intervalMs: 25 }),
  },
  { key: 'recovery', title: 'recovery', run: () => benchRecovery({ trials: 20 }) },
  { key: 'thread', title: '2,000-item thread', run: () => benchThread2000({ trials: 9 }) },
  { key: 'cost', title: 'cost (prefix reuse, cache, $)', run: () => benchCost() },
  {
    key: 'snapshot',
    title: 'snapshot (npm run bench:snapshot)',
    run: () => benchSnapshot({ timeoutMs: 10 * 60_000 }),
  },
  {
    key: 'matrix',
    title: 'widget matrix (issue 14)',
    run: () => benchWidgetMatrix({ timeoutMs: 4 * 60_000 }),
  },
  {
    key: 'workflow',
    title: 'workflow replay vs the model (issue 18)',
    run: () => benchWorkflow({ trials: 5 }),
  },
  {
    key: 'recording',
    title: 'task recording: cost per step, storage (issue 30)',
    run: () => benchRecording({ trials: 6 }),
  },
  { key: 'peers', title: 'side by side with Playwright MCP (issue 26)', run: () => benchPeers() },
];

function machine() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }).trim();
  } catch {
    /* not a checkout */
  }
  return {
    date: new Date().toISOString(),
    commit,
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    chromium: chromiumVersion(),
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function table(rows: (SummaryRow & { bench: string })[]): string {
  const head = ['metric', 'value', 'baseline (same run)', 'ratio', 'target', ''];
  const body = rows.map((r) => [
    r.metric,
    r.value,
    r.baseline,
    r.ratio,
    r.target,
    r.ok === undefined ? '' : r.ok ? '✓' : '✗',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

async function main(): Promise<number> {
  const only = (() => {
    const i = process.argv.indexOf('--only');
    return i >= 0 ? new Set(process.argv[i + 1].split(',')) : null;
  })();
  const started = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`\nbench: stopped by the watchdog after ${WATCHDOG_MS / 60_000} minutes`);
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();

  const log = (s: string) => console.log(`bench: ${s}`);
  if (process.env.KEEL_DIST) log(`using the extension in ${process.env.KEEL_DIST} (KEEL_DIST)`);
  else ensureBuilt(log);
  ensureChromium();
  mkdirSync(OUT, { recursive: true });
  const env = machine();
  log(
    `${env.cores} cores, ${env.memoryGiB} GiB, ${env.chromium}, Node ${env.node}, load ${env.loadAverageAtStart.join(' ')}`,
  );

  const rows: (SummaryRow & { bench: string })[] = [];
  const files: string[] = [];
  const failures: string[] = [];
  for (const b of BENCHES) {
    if (only && !only.has(b.key)) continue;
    const t0 = Date.now();
    log(`${b.title}…`);
    try {
      const r = await b.run();
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      if (!r) {
        log(`${b.title}: skipped (not available)`);
        continue;
      }
      if (r.write !== false) {
        writeFileSync(
          join(OUT, r.file),
          `${JSON.stringify({ benchmark: r.name, machine: env, seconds, ...r.data, summary: r.rows }, null, 2)}\n`,
        );
      }
      files.push(r.file);
      rows.push(...r.rows.map((row) => ({ ...row, bench: r.name })));
      for (const row of r.rows)
        if (row.incomplete) failures.push(`${b.title}: ${row.metric}: ${row.incomplete}`);
      log(`${b.title}: done in ${seconds} s`);
      for (const row of r.rows) log(`  ${row.metric}: ${row.value} (ratio ${row.ratio})`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failures.push(`${b.title}: ${message}`);
      rows.push({
        bench: b.title,
        metric: b.title,
        value: 'FAILED',
        baseline: message.split('\n')[0].slice(0, 80),
        ratio: '—',
        target: '—',
        ok: false,
      });
      log(`${b.title}: FAILED: ${message}`);
    }
  }

  const seconds = Math.round((Date.now() - started) / 1000);
  const summary = {
    machine: { ...env, loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
    seconds,
    files,
    rows,
    failures,
  };
  writeFileSync(join(OUT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(
    `\nKeel benchmarks — ${env.date.slice(0, 16).replace('T', ' ')} UTC, ${env.cores} cores, ${env.memoryGiB} GiB, ${env.chromium}, ${seconds} s`,
  );
  console.log(
    `load average ${env.loadAverageAtStart.join(' ')} at start, ${summary.machine.loadAverageAtEnd.join(' ')} at end\n`,
  );
  console.log(table(rows));
  console.log(
    `\nwritten: ${[...files, 'summary.json'].map((f) => `bench-results/${f}`).join(', ')}`,
  );
  clearTimeout(watchdog);
  if (failures.length) {
    console.error(
      `\n${failures.length} benchmark(s) failed:\n${failures.map((f) => `  - ${f}`).join('\n')}`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
