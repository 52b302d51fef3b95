/**
 * The widget matrix (issue 14) as a benchmark: runs the framework and widget e2e files (the
 * built extension, the generic scripted model, each app's own state) as a subprocess with
 * $KEEL_MATRIX_OUT set, and reports what they recorded: tasks done, steps, L1 vs L2 use.
 * The baseline of the step figure is the shortest plan in the same run (a ratio, no timing).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TODO_FRAMEWORKS } from '../../test/e2e/tools/todo-task';
import { WIDGET_TASKS } from '../../test/e2e/tools/widget-tasks';
import { REPO_ROOT } from '../demo/setup';
import { fmtRatio, round, type BenchResult, type SummaryRow } from './stats';

export interface MatrixRow {
  widget: string;
  task: string;
  passed: boolean;
  level: 'L1' | 'L2';
  documentedLevel: 'L1' | 'L2';
  steps: number;
  tools: string[];
}

const FILES = ['test/e2e/tools/frameworks.test.ts', 'test/e2e/tools/widgets.test.ts'];
/**
 * The rows the two files must record: one per TodoMVC build, one per widget task. The matrix
 * counts against this, never against the rows it happened to get (a subprocess stopped by its
 * timeout records fewer, and that is a failure, not a smaller matrix).
 */
export const EXPECTED_MATRIX_TASKS = TODO_FRAMEWORKS.length + WIDGET_TASKS.length;

export async function benchWidgetMatrix(opts: { timeoutMs?: number } = {}): Promise<BenchResult> {
  const out = join(REPO_ROOT, 'bench-results/widget-matrix.jsonl');
  rmSync(out, { force: true });
  const env = {
    ...process.env,
    KEEL_MATRIX_OUT: out,
    ...(process.env.KEEL_DIST ? { KEEL_E2E_DIST: process.env.KEEL_DIST } : {}),
  };
  let timedOut = false;
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '-c', 'vitest.e2e.config.ts', ...FILES], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const drain = (chunk: Buffer) => {
      for (const l of chunk.toString().split('\n'))
        if (/Tests |FAIL/.test(l)) process.stdout.write(`  [matrix] ${l.trim()}\n`);
    };
    child.stdout.on('data', drain);
    child.stderr.on('data', drain);
    const timer = setTimeout(
      () => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          /* already gone */
        }
      },
      opts.timeoutMs ?? 6 * 60_000,
    );
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  const rows: MatrixRow[] = existsSync(out)
    ? readFileSync(out, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as MatrixRow)
    : [];
  console.log(matrixTable(rows));
  return {
    name: 'widget matrix',
    file: 'widget-matrix.json',
    data: {
      rows,
      expected: EXPECTED_MATRIX_TASKS,
      missing: EXPECTED_MATRIX_TASKS - rows.length,
      timedOut,
      vitestExit: code,
    },
    rows: matrixSummary(rows, { expected: EXPECTED_MATRIX_TASKS, timedOut, exitCode: code }),
  };
}

/**
 * The summary rows of a matrix run, counted against the tasks it was meant to run: rows that were
 * never recorded (a timeout, a crash) count as not done, and mark the run incomplete.
 */
export function matrixSummary(
  rows: readonly MatrixRow[],
  run: { expected: number; timedOut: boolean; exitCode: number | null },
): SummaryRow[] {
  const { expected, timedOut, exitCode } = run;
  const why = timedOut ? 'stopped by its timeout' : `vitest exit ${exitCode}`;
  const done = rows.filter((r) => r.passed);
  const missing = Math.max(0, expected - rows.length);
  const l1 = done.filter((r) => r.level === 'L1').length;
  const l2 = done.filter((r) => r.level === 'L2').length;
  const steps = rows.map((r) => r.steps);
  const meanSteps = steps.length ? steps.reduce((a, b) => a + b, 0) / steps.length : NaN;
  const minSteps = steps.length ? Math.min(...steps) : NaN;
  return [
    {
      metric: 'matrix tasks done',
      value: `${done.length} of ${expected}`,
      baseline:
        missing > 0 ? `${expected} tasks, ${missing} not run (${why})` : `${expected} tasks`,
      ratio: fmtRatio(done.length / expected),
      target: 'all',
      ok: done.length === expected && !timedOut && exitCode === 0,
      ...(missing > 0 || timedOut
        ? { incomplete: `${rows.length} of ${expected} tasks recorded (${why})` }
        : {}),
    },
    {
      metric: 'matrix tasks at L1 / L2',
      value: `${l1} / ${l2}`,
      baseline: 'documented levels',
      ratio: '—',
      target: 'as documented',
      ok: rows.every((r) => !r.passed || r.level === r.documentedLevel),
    },
    {
      metric: 'matrix mean steps per task',
      value: String(round(meanSteps, 1)),
      baseline: `${minSteps} (shortest plan)`,
      ratio: fmtRatio(meanSteps / minSteps),
      target: '—',
    },
  ];
}

/** The markdown table of the matrix (docs/tools.md carries a copy). */
export function matrixTable(rows: readonly MatrixRow[]): string {
  const head = '| widget | task | result | level | steps |\n| --- | --- | --- | --- | --- |';
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.widget} | ${r.task} | ${r.passed ? 'pass' : 'FAIL'} | ${r.level} | ${r.steps} |`,
    ),
  ].join('\n');
}
