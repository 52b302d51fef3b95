/**
 * Rows of the widget matrix, written as JSON lines to $KEEL_MATRIX_OUT when it is set (by
 * `npm run bench`, scripts/bench/widget-matrix.ts); a no-op otherwise.
 */
import { appendFileSync } from 'node:fs';
import type { TurnOutcome } from './support';

export interface MatrixRow {
  widget: string;
  task: string;
  passed: boolean;
  /** The level used: L2 when any trusted-input tool ran. */
  level: 'L1' | 'L2';
  documentedLevel: 'L1' | 'L2';
  /** Tool calls the scripted model made. */
  steps: number;
  tools: string[];
}

const L2_TOOLS = new Set([
  'browser_mouse',
  'browser_keyboard',
  'browser_dialog',
  'browser_upload_file',
]);

export function levelOf(t: TurnOutcome): 'L1' | 'L2' {
  return t.calls.some((c) => L2_TOOLS.has(c.name)) ? 'L2' : 'L1';
}

export function recordMatrixRow(row: MatrixRow): void {
  const out = process.env.KEEL_MATRIX_OUT;
  if (out) appendFileSync(out, `${JSON.stringify(row)}\n`);
}

export function rowOf(
  widget: string,
  task: string,
  documentedLevel: 'L1' | 'L2',
  t: TurnOutcome,
  passed: boolean,
): MatrixRow {
  return {
    widget,
    task,
    passed,
    level: levelOf(t),
    documentedLevel,
    steps: t.calls.length,
    tools: [...new Set(t.calls.map((c) => c.name))],
  };
}
