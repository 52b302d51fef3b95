/**
 * Acting on a real-shaped app through the extension's own tools (issue 14): a scripted model
 * that reads snapshots generically — by role, name and state — runs a todo task end to end, and
 * the effects an action has outside the DOM (a slow navigation, a dialog a timer opened) are
 * reported and answerable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, resultText, startToolSession } from './support';
import type { ApprovalRequest, ToolSession } from './support';

let s: ToolSession;

beforeAll(async () => {
  s = await startToolSession();
});

afterAll(async () => {
  expect(s?.client.invalidEvents ?? []).toEqual([]);
  expect(s?.server.failures ?? []).toEqual([]);
  await s?.close();
});

interface TodoState {
  items: { title: string; done: boolean }[];
  editing: number;
}

describe('a todo app in a shadow root, through the tools', () => {
  it('find → double-click to edit → type → submit → add → toggle, asserting the app state', async () => {
    const { page } = await s.open('apps/todo-wc.html');
    const t = await s.turn(
      'rename "Buy milk" to "Buy oat milk", add "Feed the cat", and tick off "Walk the dog"',
      [
        call('browser_find', { query: 'Buy milk' }),
        (c) => call('browser_click', { ref: c.ref(/text "Buy milk"/), doubleClick: true }),
        call('browser_snapshot'),
        (c) =>
          call('browser_type', {
            ref: c.ref(/textbox \[ref=\w+\]: Buy milk/),
            text: 'Buy oat milk',
            clear: true,
            submit: true,
          }),
        call('browser_snapshot'),
        (c) =>
          call('browser_type', {
            ref: c.ref(/textbox "What needs to be done\?"/),
            text: 'Feed the cat',
            submit: true,
          }),
        // The app re-rendered its rows: the old refs are stale, so look again.
        call('browser_snapshot'),
        (c) => call('browser_click', { ref: c.ref(/checkbox .*"Walk the dog"/) }),
      ],
    );
    expect(t.complete.stopReason).toBe('end');
    const state = await page.evaluate(
      () => (window as unknown as { todoState: TodoState }).todoState,
    );
    expect(state.items).toEqual([
      { title: 'Buy oat milk', done: false },
      { title: 'Walk the dog', done: true },
      { title: 'Feed the cat', done: false },
    ]);
    expect(resultText(t.result('browser_find'))).toMatch(/^[\s\S]*- text "Buy milk" \[ref=\w+\]/);
    expect(resultText(t.result('browser_find')).match(/text "Buy milk"/g)).toHaveLength(1);
    // Every action's effect was seen: none reports "No visible change".
    for (const r of [...t.resultsOf('browser_click'), ...t.resultsOf('browser_type')]) {
      expect(resultText(r)).not.toContain('No visible change');
    }
    await page.close();
  });

  it('a synthetic click with no effect says so and names trusted input (L2) as the fallback', async () => {
    const { page } = await s.open('apps/todo-wc.html');
    const t = await s.turn('click the first todo once', [
      call('browser_find', { query: 'Buy milk' }),
      (c) => call('browser_click', { ref: c.ref(/text "Buy milk"/) }),
    ]);
    expect(resultText(t.result('browser_click'))).toMatch(
      /No visible change in the page\. .*browser_mouse or browser_keyboard send trusted input \(L2\)/,
    );
    await page.close();
  });

  it('a click that starts a slow navigation reports the navigation, not "no visible change"', async () => {
    const { page } = await s.open('apps/todo-wc.html');
    const t = await s.turn('open the slow page', [
      call('browser_snapshot'),
      (c) => call('browser_click', { ref: c.ref(/link "Slow page"/) }),
    ]);
    const text = resultText(t.result('browser_click'));
    expect(text).not.toContain('No visible change');
    expect(text).toMatch(/The page (navigated|is navigating)/);
    expect(text).toContain('/slow/nav-b.html');
    await page.close();
  });

  it('a dialog a page timer opens while the L2 session is attached is answered with browser_dialog', async () => {
    const { page, tabId } = await s.open('apps/todo-wc.html');
    // Keep Playwright from auto-dismissing: the tools must answer the dialog.
    let opened = false;
    page.on('dialog', () => {
      opened = true;
    });
    const asked: ApprovalRequest[] = [];
    const t = await s.turn(
      'press the button, then accept the popup that comes',
      [
        call('browser_snapshot'),
        (c) => call('browser_mouse', { action: 'click', ref: c.ref(/button "Alert in a moment"/) }),
        // The page's timer opens the confirm 4.5 s later, outside any action (and its guard).
        async () => {
          await expect.poll(() => opened, { timeout: 10_000 }).toBe(true);
          return call('browser_dialog', { action: 'accept' });
        },
      ],
      {
        approve: (req) => {
          asked.push(req);
          return 'allow_once';
        },
      },
    );
    expect(resultText(t.result('browser_dialog'))).toMatch(
      new RegExp(`^Accepted the confirm dialog in tab ${tabId}`),
    );
    expect(resultText(t.result('browser_dialog'))).toContain('Delete all todos?');
    await expect.poll(() => page.textContent('#dialog-out'), { timeout: 5000 }).toBe('confirmed');
    await page.close();
  });
  // Chrome reports a dialog only to a debugger session enabled before it opened: the page's own
  // timer opens these while no session is attached, and the agent answers them after.
  for (const { kind, answer, out } of [
    { kind: 'confirm', answer: { action: 'accept' }, out: 'confirmed' },
    {
      kind: 'prompt',
      answer: { action: 'accept', promptText: 'Groceries' },
      out: 'prompt: Groceries',
    },
    { kind: 'alert', answer: { action: 'accept' }, out: 'alert closed' },
  ] as const) {
    it(`a ${kind} a page timer opens before the debugger attached is answered with browser_dialog`, async () => {
      const { page, tabId } = await s.open(`apps/timer-dialog.html?kind=${kind}&delay=2500`);
      const shown: string[] = [];
      // Keep Playwright from auto-dismissing: the tools must answer the dialog.
      page.on('dialog', (d) => {
        shown.push(d.type());
      });
      const asked: ApprovalRequest[] = [];
      const t = await s.turn(
        'wait for the popup and answer it',
        [
          call('browser_snapshot'),
          async () => {
            await expect.poll(() => shown.length, { timeout: 10_000 }).toBe(1);
            return call('browser_dialog', answer);
          },
        ],
        {
          approve: (req) => {
            asked.push(req);
            return 'allow_once';
          },
        },
      );
      const text = resultText(t.result('browser_dialog'));
      expect(text).toMatch(new RegExp(`^Accepted the ${kind} dialog in tab ${tabId}`));
      // The answer is a write on the page's origin: it was judged, and asked for, like one.
      expect(
        asked.filter((a) => a.tool.name === 'browser_dialog').map((a) => a.target.origin),
      ).toEqual([new URL(page.url()).origin]);
      await expect.poll(() => page.textContent('#out'), { timeout: 5000 }).toBe(out);
      expect(shown).toEqual([kind]);
      await page.close();
    });
  }
});
