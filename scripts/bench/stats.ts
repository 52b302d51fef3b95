/** Small statistics helpers for the benchmarks. */

export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const median = (xs: readonly number[]) => percentile(xs, 50);

export function round(n: number, digits = 2): number {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What every benchmark returns: its figures and the rows it adds to the summary table. */
export interface BenchResult {
  name: string;
  /** File name under bench-results/. */
  file: string;
  /** False when another script writes `file` (the runner then leaves it alone). */
  write?: boolean;
  data: Record<string, unknown>;
  rows: SummaryRow[];
}

export interface SummaryRow {
  metric: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  /** true = meets the target, false = misses it, undefined = no target. */
  ok?: boolean;
  /**
   * Set when the benchmark ran fewer cases than it expected (a timeout, a skip, lost rows): the
   * row reports the expected total, and the whole run fails (issue 26, point 5).
   */
  incomplete?: string;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms >= 100
    ? `${ms.toFixed(0)} ms`
    : ms >= 10
      ? `${ms.toFixed(1)} ms`
      : `${ms.toFixed(2)} ms`;
}

export function fmtRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a';
}
