/**
 * The snapshot benchmark is another engineer's script (scripts/bench-snapshot.ts, `npm run
 * bench:snapshot`): run it as a subprocess and fold its bench-results/snapshot.json into the
 * summary, one pair of rows per page set it measured (the generated set always; the real-site
 * corpus when KEEL_CORPUS_PAGES names one). Its baseline is Playwright's own AI-mode
 * snapshot of the same pages.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../demo/setup';
import { fmtMs, fmtRatio, type BenchResult } from './stats';

interface SetSummary {
  set?: string;
  source?: string;
  median?: { tokenRatio?: number; ms?: number };
  p90?: { ms?: number; msUpTo500KB?: number };
  totals?: {
    pages?: number;
    errors?: number;
    playwrightFailures?: number;
    ourTokens?: number;
    playwrightTokens?: number;
    medianRatioVsDefaultAriaSnapshot?: number;
    tokenRatio?: number;
    refCoverage?: number;
    interactive?: number;
    interactiveWithRef?: number;
  };
}

interface SnapshotSummary extends SetSummary {
  sets?: SetSummary[];
}

export async function benchSnapshot(
  opts: { timeoutMs?: number } = {},
): Promise<BenchResult | null> {
  const script = join(REPO_ROOT, 'scripts/bench-snapshot.ts');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  if (!existsSync(script) || !pkg.scripts?.['bench:snapshot']) return null;
  const out = join(REPO_ROOT, 'bench-results/snapshot.json');
  const before = existsSync(out) ? statSync(out).mtimeMs : 0;
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'bench:snapshot'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // Its per-page lines ("name  123KB  ours …  pw …") stay out of the log; its summary lines show.
    let pending = '';
    const prefix = (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines)
        if (l.trim() && !/\bours\s+\d+\s+pw\s+\d+/.test(l))
          process.stdout.write(`  [snapshot] ${l}\n`);
    };
    child.stdout.on('data', prefix);
    child.stderr.on('data', prefix);
    const timer = setTimeout(
      () => {
        // The whole process group: npm, tsx and the Chromium it started.
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          /* gone */
        }
      },
      opts.timeoutMs ?? 5 * 60_000,
    );
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  const fresh = existsSync(out) && statSync(out).mtimeMs > before;
  if (code !== 0 || !fresh)
    throw new Error(
      `npm run bench:snapshot ${code === null ? 'was stopped (timeout)' : `exited ${code}`}${fresh ? '' : ' and wrote no new bench-results/snapshot.json'}`,
    );
  const s = JSON.parse(readFileSync(out, 'utf8')) as SnapshotSummary;
  const sets = s.sets ?? [s];
  return {
    name: 'snapshot',
    file: 'snapshot.json',
    write: false, // that script's own file: the summary only references it
    data: {
      ranForMs: Date.now() - started,
      summaryOf: 'bench-results/snapshot.json',
      sets: sets.map(({ set, source, median, p90, totals }) => ({
        set,
        source,
        median,
        p90,
        totals,
      })),
    },
    rows: sets.flatMap((one) => setRows(one)),
  };
}

/** The forms goal (issue 26, point 3): judged on the held-out pages, shown on both. */
const FORMS_RATIO_GOAL = 0.33;
const FORMS_RECALL_GOAL = 0.998;

function setRows(s: SetSummary): BenchResult['rows'] {
  const t = s.totals ?? {};
  const ratio = s.median?.tokenRatio ?? NaN;
  const label =
    s.set === 'corpus'
      ? 'corpus pages'
      : s.set === 'generated'
        ? 'generated pages'
        : s.set === 'forms-dev'
          ? 'form pages, dev seeds'
          : s.set === 'forms-heldout'
            ? 'form pages, held-out seeds'
            : `pages of ${s.set}`;
  const failed = t.playwrightFailures ? `; Playwright failed on ${t.playwrightFailures}` : '';
  // Counted against the pages the set has: a page that errored is a failure, not a smaller set.
  const errors = t.errors ?? 0;
  const measured = errors ? ` (${(t.pages ?? 0) - errors} of ${t.pages} measured)` : '';
  if (s.set?.startsWith('forms-')) {
    const recall = t.refCoverage ?? NaN;
    const total = t.tokenRatio ?? NaN;
    return [
      {
        metric: `snapshot size, ${t.pages ?? '?'} ${label} (median; total)`,
        value: `${fmtRatio(ratio)}; ${fmtRatio(total)} of Playwright's${measured}`,
        baseline: `Playwright AI snapshot (${t.playwrightTokens?.toLocaleString('en-US') ?? '?'} tokens in all; ours ${t.ourTokens?.toLocaleString('en-US') ?? '?'}${failed})`,
        ratio: fmtRatio(ratio),
        target: `≤ ${FORMS_RATIO_GOAL}×, every page measured`,
        ok: errors === 0 && ratio <= FORMS_RATIO_GOAL,
        ...(errors ? { incomplete: `${errors} of ${t.pages} pages failed to measure` } : {}),
      },
      {
        metric: `snapshot recall, ${label} (visible interactive elements with a ref)`,
        value: `${((recall || 0) * 100).toFixed(2)} %`,
        baseline: `${t.interactiveWithRef ?? '?'}/${t.interactive ?? '?'} elements`,
        ratio: '—',
        target: `≥ ${(FORMS_RECALL_GOAL * 100).toFixed(1)} %`,
        ok: errors === 0 && recall >= FORMS_RECALL_GOAL,
        ...(errors ? { incomplete: `${errors} of ${t.pages} pages failed to measure` } : {}),
      },
    ];
  }
  return [
    {
      metric: `snapshot size, ${t.pages ?? '?'} ${label} (median, tokens)`,
      value: `${fmtRatio(ratio)} of Playwright's${measured}`,
      baseline: `Playwright AI snapshot (${t.playwrightTokens?.toLocaleString('en-US') ?? '?'} tokens in all; ours ${t.ourTokens?.toLocaleString('en-US') ?? '?'}${failed})`,
      ratio: fmtRatio(ratio),
      target: 'every page measured',
      ok: errors === 0,
      ...(errors ? { incomplete: `${errors} of ${t.pages} pages failed to measure` } : {}),
    },
    {
      metric: `snapshot time in the page, ${label} (median / p90)`,
      value: `${fmtMs(s.median?.ms ?? NaN)} / ${fmtMs(s.p90?.ms ?? NaN)}`,
      baseline: `refs on ${t.interactiveWithRef ?? '?'}/${t.interactive ?? '?'} visible interactive elements`,
      ratio: '—',
      target: '—',
    },
  ];
}
