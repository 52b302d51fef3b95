/**
 * The widget matrix through the extension's tools (widget-tasks.ts): each widget bundled from
 * its real npm package at test time, each task done by the generic scripted model, each checked
 * against the app's own state, at the level docs/tools.md documents for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgets, WIDGETS_DIR } from '../../fixtures/widgets/build';
import { resultText, startToolSession, type ToolSession } from './support';
import { recordMatrixRow, rowOf } from './matrix-record';
import { WIDGET_TASKS } from './widget-tasks';

let s: ToolSession;

beforeAll(async () => {
  await buildWidgets();
  s = await startToolSession({ fixtureDir: WIDGETS_DIR });
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

describe.each(WIDGET_TASKS)('$widget: $task ($level)', (task) => {
  it('is done through the tools, by the app state', async () => {
    const { page } = await s.open(task.path);
    await page.waitForFunction(() =>
      Boolean((window as unknown as { widgetState?: unknown }).widgetState),
    );
    const t = await s.turn(task.task, task.plan(), { approve: () => 'allow_once' });
    const trace = t.results.map((r) => `${r.name}: ${resultText(r)}`).join('\n---\n');
    const state = await page.evaluate(
      () => (window as unknown as { widgetState: Record<string, unknown> }).widgetState,
    );
    const row = rowOf(
      task.widget,
      task.task,
      task.level,
      t,
      t.results.every((r) => r.ok) && task.done(state),
    );
    recordMatrixRow(row);
    for (const r of t.results) expect(r.ok, trace).toBe(true);
    expect(task.done(state), `${JSON.stringify(state)}\n${trace}`).toBe(true);
    expect(row.level).toBe(task.level);
    await page.close();
  });
});
