/**
 * Issue 26, point 5: the widget matrix counts the tasks it meant to run, not the rows it got.
 * The case that prompted it: the subprocess was stopped by its timeout after 18 of 32 tasks, and
 * the summary said "18 of 18".
 */
import { describe, expect, it } from 'vitest';
import {
  EXPECTED_MATRIX_TASKS,
  matrixSummary,
  type MatrixRow,
} from '../../../scripts/bench/widget-matrix';
import { TODO_FRAMEWORKS } from '../../e2e/tools/todo-task';
import { WIDGET_TASKS } from '../../e2e/tools/widget-tasks';

const row = (i: number): MatrixRow => ({
  widget: `w${i}`,
  task: 't',
  passed: true,
  level: 'L1',
  documentedLevel: 'L1',
  steps: 4,
  tools: ['browser_click'],
});

describe('matrixSummary', () => {
  it('expects one row per TodoMVC build and per widget task', () => {
    expect(EXPECTED_MATRIX_TASKS).toBe(TODO_FRAMEWORKS.length + WIDGET_TASKS.length);
  });

  it('a run stopped by its timeout reports the expected total, fails, and is incomplete', () => {
    const rows = Array.from({ length: 18 }, (_, i) => row(i));
    const [done] = matrixSummary(rows, { expected: 32, timedOut: true, exitCode: null });
    expect(done.value).toBe('18 of 32');
    expect(done.ok).toBe(false);
    expect(done.incomplete).toContain('18 of 32');
    expect(done.baseline).toContain('14 not run (stopped by its timeout)');
  });

  it('no rows at all is 0 of the expected total, not an empty matrix', () => {
    const [done] = matrixSummary([], { expected: 32, timedOut: false, exitCode: 1 });
    expect(done.value).toBe('0 of 32');
    expect(done.ok).toBe(false);
    expect(done.incomplete).toBeTruthy();
  });

  it('every task recorded and passed, vitest exit 0: complete and met', () => {
    const rows = Array.from({ length: 32 }, (_, i) => row(i));
    const [done] = matrixSummary(rows, { expected: 32, timedOut: false, exitCode: 0 });
    expect(done.value).toBe('32 of 32');
    expect(done.ok).toBe(true);
    expect(done.incomplete).toBeUndefined();
  });

  it('all rows recorded but one failed: not met, yet complete', () => {
    const rows = Array.from({ length: 32 }, (_, i) => ({ ...row(i), passed: i !== 5 }));
    const [done] = matrixSummary(rows, { expected: 32, timedOut: false, exitCode: 1 });
    expect(done.value).toBe('31 of 32');
    expect(done.ok).toBe(false);
    expect(done.incomplete).toBeUndefined();
  });
});
