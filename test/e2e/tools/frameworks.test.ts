/**
 * One TodoMVC app written in sixteen ways from their real npm packages, bundled at test
 * time (test/fixtures/widgets/build.ts) and served on 127.0.0.1: React 19 with controlled
 * inputs, Preact, Vue 3, Svelte 5, Lit in a shadow root, vanilla DOM, and the ways older apps
 * listen — jQuery (keyup + `e.which`, focusout), Backbone (events hash, keypress + `e.which`,
 * blur), Knockout (keyup + `keyCode` bindings, `checked` on click, `hasFocus`), Alpine
 * (`keyup.enter`), Mithril (auto-redraw, `keyCode`), Solid (document-delegated events, native
 * focusout), Stimulus (action descriptors with key filters), AngularJS 1.x (`ng-submit` forms:
 * Enter submits, `ng-blur`, a keydown directive), Angular (JIT-compiled, zoneless signals,
 * `(keyup.enter)`), plain custom elements (nested shadow roots, `:host(:hover)`, composed
 * CustomEvents). Every app hides the destroy button
 * until its row is hovered (TodoMVC's CSS) and routes by `#/active` / `#/completed`.
 *
 * The same scripted model (todo-task.ts) does the same task in each through the extension's
 * tools, and the test asserts the app's own state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgets, WIDGETS_DIR } from '../../fixtures/widgets/build';
import { resultText, startToolSession, type ToolSession } from './support';
import { recordMatrixRow, rowOf } from './matrix-record';
import { TODO_EXPECTED, TODO_FILTER, TODO_FRAMEWORKS, TODO_GOAL, todoPlan } from './todo-task';

const FRAMEWORKS = TODO_FRAMEWORKS;

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

interface TodoState {
  items: unknown[];
  filter: string;
}

describe.each(FRAMEWORKS)('todo app in %s', (fw) => {
  it('edit (Enter, Escape, blur) → add → toggle → filter → hover-revealed delete → clear completed', async () => {
    const { page } = await s.open(`todo.html?fw=${fw}`);
    await page.waitForFunction(() =>
      Boolean((window as unknown as { todoState?: unknown }).todoState),
    );
    const t = await s.turn(TODO_GOAL, todoPlan());
    const state = await page.evaluate(
      () => (window as unknown as { todoState: TodoState }).todoState,
    );
    const passed =
      t.results.every((r) => r.ok) &&
      JSON.stringify(state.items) === JSON.stringify(TODO_EXPECTED) &&
      state.filter === TODO_FILTER;
    recordMatrixRow(
      rowOf(`TodoMVC (${fw})`, 'edit, add, tick, filter, delete, clear todos', 'L1', t, passed),
    );
    expect(t.complete.stopReason).toBe('end');
    for (const r of t.results) expect(r.ok, `${r.name}: ${resultText(r)}`).toBe(true);
    expect(state.items).toEqual(TODO_EXPECTED);
    expect(state.filter).toBe(TODO_FILTER);
    // What the model saw: Escape cancelled the edit (the typed title never became the item's,
    // e.g. saved on the blur that follows), the "Active" route lists the active items only, and
    // the end state.
    const snapshots = t.resultsOf('browser_snapshot').map(resultText);
    for (const text of snapshots) expect(text).not.toMatch(/^(- )?Walk the cat$/m);
    expect(snapshots.some((text) => /^(- )?Walk the dog$/m.test(text))).toBe(true);
    const active = snapshots[snapshots.length - 3];
    expect(active).toContain('Buy oat milk');
    expect(active).toContain('Feed the cats');
    expect(active).not.toContain('Walk the dog');
    expect(snapshots[snapshots.length - 1]).not.toContain('Buy oat milk');
    // Each action's effect was seen (the app re-rendered), never "No visible change".
    for (const r of [...t.resultsOf('browser_click'), ...t.resultsOf('browser_type')])
      expect(resultText(r)).not.toContain('No visible change');
    await page.close();
  });
});
