/**
 * The widget matrix (issue 14) as a benchmark: runs the framework and widget e2e files (the
 * built extension, the generic scripted model, each app's own state) as a subprocess with
 * $KEEL_MATRIX_OUT set, and reports what they recorded: tasks done, steps, L1 vs L2 use.
 * The baseline of the step figure is the shortest plan in the same run (a ratio, no timing).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../demo/setup';
import { fmtRatio, round, type BenchResult } from './stats';

interface MatrixRow {
  widget: string;
  task: string;
  passed: boolean;
  level: 'L1' | 'L2';
  documentedLevel: 'L1' | 'L2';
  steps: number;
  tools: string[];
}

const FILES = ['test/e2e/tools/frameworks.test.ts', 'test/e2e/tools/widgets.test.ts'];

export async function benchWidgetMatrix(opts: { timeoutMs?: number } = {}): Promise<BenchResult> {
  const out = join(REPO_ROOT, 'bench-results/widget-matrix.jsonl');
  rmSync(out, { force: true });
  const env = {
    ...process.env,
    KEEL_MATRIX_OUT: out,
    ...(process.env.KEEL_DIST ? { KEEL_E2E_DIST: process.env.KEEL_DIST } : {}),
  };
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
  if (!rows.length) throw new Error(`the matrix tests recorded nothing (vitest exit ${code})`);
  const done = rows.filter((r) => r.passed);
  const l1 = done.filter((r) => r.level === 'L1').length;
  const l2 = done.filter((r) => r.level === 'L2').length;
  const steps = rows.map((r) => r.steps);
  const meanSteps = steps.reduce((a, b) => a + b, 0) / steps.length;
  const minSteps = Math.min(...steps);
  console.log(matrixTable(rows));
  return {
    name: 'widget matrix',
    file: 'widget-matrix.json',
    data: { rows, vitestExit: code },
    rows: [
      {
        metric: 'matrix tasks done',
        value: `${done.length} of ${rows.length}`,
        baseline: `${rows.length} tasks`,
        ratio: fmtRatio(done.length / rows.length),
        target: 'all',
        ok: done.length === rows.length,
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
    ],
  };
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
