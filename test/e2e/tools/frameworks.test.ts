/**
 * One TodoMVC app written in six frameworks from their real npm packages (React 19 with
 * controlled inputs, Preact, Vue 3, Svelte 5, Lit in a shadow root, vanilla DOM), bundled at
 * test time (test/fixtures/widgets/build.ts) and served on 127.0.0.1. The same scripted model
 * (todo-task.ts) does the same task in each through the extension's tools, and the test asserts
 * the app's own state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgets, WIDGETS_DIR } from '../../fixtures/widgets/build';
import { resultText, startToolSession, type ToolSession } from './support';
import { recordMatrixRow, rowOf } from './matrix-record';
import { TODO_EXPECTED, TODO_GOAL, todoPlan } from './todo-task';

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

describe.each(['react', 'preact', 'vue', 'svelte', 'lit', 'vanilla'])('todo app in %s', (fw) => {
  it('find → double-click to edit → type → submit → add → toggle, through the tools', async () => {
    const { page } = await s.open(`todo.html?fw=${fw}`);
    await page.waitForFunction(() =>
      Boolean((window as unknown as { todoState?: unknown }).todoState),
    );
    const t = await s.turn(TODO_GOAL, todoPlan());
    const state = await page.evaluate(
      () => (window as unknown as { todoState: { items: unknown[] } }).todoState,
    );
    const passed =
      t.results.every((r) => r.ok) && JSON.stringify(state.items) === JSON.stringify(TODO_EXPECTED);
    recordMatrixRow(rowOf(`TodoMVC (${fw})`, 'edit, add and tick todos', 'L1', t, passed));
    expect(t.complete.stopReason).toBe('end');
    for (const r of t.results) expect(r.ok, `${r.name}: ${resultText(r)}`).toBe(true);
    expect(state.items).toEqual(TODO_EXPECTED);
    // Each action's effect was seen (the app re-rendered), never "No visible change".
    for (const r of [...t.resultsOf('browser_click'), ...t.resultsOf('browser_type')])
      expect(resultText(r)).not.toContain('No visible change');
    await page.close();
  });
});
