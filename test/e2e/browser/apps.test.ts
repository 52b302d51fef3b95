/**
 * Acting on a real-shaped app (a TodoMVC web component in an open shadow root) through the page
 * agent: find, snapshot and actions see one composed tree, synthetic input lands where a
 * user's would, and the effect is verified against the app's own state.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  act,
  call,
  callRaw,
  refOf,
  snapshot,
  startHarness,
  type Harness,
} from './support/page-harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface TodoState {
  items: { title: string; done: boolean }[];
  editing: number;
}
const click = (ref: string, extra: Record<string, unknown> = {}) => ({
  op: 'click',
  ref,
  button: 'left',
  clickCount: 1,
  modifiers: [],
  force: false,
  ...extra,
});
const find = (page: Page, query: string, kind: 'text' | 'element' = 'text') =>
  call<{ matches: string[]; total: number }>(page, {
    op: 'find',
    query,
    kind,
    limit: 10,
    refPrefix: '',
  });
const state = (page: Page) =>
  page.evaluate(() => (window as unknown as { todoState: TodoState }).todoState);
const log = (page: Page, name: 'todoLog' | 'todoEvents') =>
  page.evaluate((n) => (window as unknown as Record<string, string[]>)[n], name);

describe('find sees the composed tree', () => {
  it('finds text inside an open shadow root once, with the ref of the element holding it', async () => {
    const page = await h.open('apps/todo-wc.html');
    const found = await find(page, 'buy milk');
    expect(found.total).toBe(1);
    expect(found.matches).toHaveLength(1);
    // The ref is the label a user's double-click at that text would hit.
    const ref = refOf(found.matches[0], /"Buy milk"/);
    const tag = await call<{ element: { tag: string } }>(page, { op: 'focus', ref });
    expect(tag.element.tag).toBe('label');
    // Slotted light-DOM text shows through the shadow root's slot.
    expect((await find(page, 'todos')).matches).toEqual([
      expect.stringMatching(/^- text "todos" \[ref=e\d+\]/),
    ]);
    await page.close();
  });

  it('lists a link whose text is inside a paragraph once, as the link', async () => {
    const page = await h.open('apps/todo-wc.html');
    const link = refOf((await snapshot(page)).text, /link "Slow page"/);
    const found = await find(page, 'slow page');
    expect(found.matches).toEqual([`- text "Slow page" [ref=${link}]`]);
    await page.close();
  });

  it('a hidden inline copy of a text does not hide the visible match around it', async () => {
    const page = await h.open('apps/todo-wc.html');
    await page.evaluate(() => {
      const p = document.createElement('p');
      p.id = 'parcel';
      p.innerHTML = 'Pick up the parcel <span style="display:none">Pick up the parcel</span>';
      document.body.append(p);
    });
    const found = await find(page, 'pick up the parcel');
    expect(found.matches).toEqual([
      expect.stringMatching(/^- text "Pick up the parcel" \[ref=e\d+\]/),
    ]);
    await page.close();
  });

  it('finds text inside a same-origin frame', async () => {
    const page = await h.open('iframes.html');
    await page.waitForFunction(
      () =>
        (document.getElementById('same') as HTMLIFrameElement).contentDocument?.readyState ===
        'complete',
    );
    const inner = await page.evaluate(
      () => (document.getElementById('same') as HTMLIFrameElement).contentDocument!.body.innerText,
    );
    const word = inner.split(/\s+/).find((w) => w.length > 4) ?? '';
    expect(word).not.toBe('');
    const found = await find(page, word);
    expect(found.total).toBeGreaterThan(0);
    await page.close();
  });
});

describe('snapshot of TodoMVC patterns', () => {
  it('shows a toggle-all checkbox styled through its label once', async () => {
    const page = await h.open('apps/todo-wc.html');
    const { text } = await snapshot(page);
    expect(text.match(/Mark all as complete/g)).toHaveLength(1);
    const ref = refOf(text, /checkbox "Mark all as complete"/);
    await act(page, click(ref));
    expect((await state(page)).items.every((i) => i.done)).toBe(true);
    await page.close();
  });

  it('names an unlabelled row checkbox from its row, marked as derived, and toggles it', async () => {
    const page = await h.open('apps/todo-wc.html');
    const { text } = await snapshot(page);
    expect(text).toMatch(/- checkbox \(unlabelled, in row "Walk the dog"\) \[ref=e\d+\]/);
    const ref = refOf(text, /checkbox \(unlabelled, in row "Walk the dog"\)/);
    const { settled } = await act(page, click(ref));
    expect((await state(page)).items.map((i) => i.done)).toEqual([false, true]);
    // The app re-rendered inside its shadow root: that is a visible change.
    expect(settled.mutations).toBeGreaterThan(0);
    await page.close();
  });
});

describe('synthetic input lands where a user would', () => {
  it('double-click on found text starts editing with the full pointer sequence', async () => {
    const page = await h.open('apps/todo-wc.html');
    const ref = refOf((await find(page, 'Walk the dog')).matches.join('\n'), /Walk the dog/);
    const { settled } = await act(page, click(ref, { clickCount: 2 }));
    expect((await state(page)).editing).toBe(1);
    expect(settled.mutations).toBeGreaterThan(0);
    const events = await log(page, 'todoEvents');
    // As Chromium sends a trusted double click: pointer events carry detail 0, mouse events the
    // click count (test/e2e/tools/frameworks-input.test.ts compares against trusted input).
    expect(events).toEqual([
      'pointerdown:0',
      'mousedown:1',
      'pointerup:0',
      'mouseup:1',
      'click:1',
      'pointerdown:0',
      'mousedown:2',
      'pointerup:0',
      'mouseup:2',
      'click:2',
      'dblclick:2',
    ]);
    // Edit, then Enter commits through the app's own keydown handler.
    const edit = refOf((await snapshot(page)).text, /textbox \[ref=e\d+\]: Walk the dog/);
    await act(page, { op: 'type', ref: edit, text: 'Walk the cat', clear: true, submit: true });
    expect((await state(page)).items[1]).toEqual({ title: 'Walk the cat', done: false });
    expect((await state(page)).editing).toBe(-1);
    await page.close();
  });

  it('a click elsewhere blurs the editor, so a commit-on-blur app commits', async () => {
    const page = await h.open('apps/todo-wc.html');
    const label = refOf((await find(page, 'Buy milk')).matches.join('\n'), /Buy milk/);
    await act(page, click(label, { clickCount: 2 }));
    const edit = refOf((await snapshot(page)).text, /textbox \[ref=e\d+\]: Buy milk/);
    await act(page, { op: 'type', ref: edit, text: 'Buy bread', clear: true, submit: false });
    const footer = refOf((await find(page, 'items left')).matches.join('\n'), /items left/);
    await act(page, click(footer));
    expect(await log(page, 'todoLog')).toEqual(expect.arrayContaining(['focus:edit', 'blur:edit']));
    expect((await state(page)).items[0].title).toBe('Buy bread');
    await page.close();
  });

  it('typing with submit into a shadow-root input reaches an app that listens for keyup Enter', async () => {
    const page = await h.open('apps/todo-wc.html');
    const input = refOf((await snapshot(page)).text, /textbox "What needs to be done\?"/);
    const { settled } = await act(page, {
      op: 'type',
      ref: input,
      text: 'Feed the cat',
      clear: false,
      submit: true,
    });
    expect((await state(page)).items.map((i) => i.title)).toEqual([
      'Buy milk',
      'Walk the dog',
      'Feed the cat',
    ]);
    expect(await log(page, 'todoLog')).toContain('keyup:Enter:true');
    expect(settled.mutations).toBeGreaterThan(0);
    await page.close();
  });

  it('a stale ref is an error, never a click on whatever is there now', async () => {
    const page = await h.open('apps/todo-wc.html');
    const ref = refOf((await snapshot(page)).text, /checkbox \(unlabelled, in row "Buy milk"\)/);
    await page.evaluate(() =>
      (document.querySelector('todo-app') as unknown as { render(): void }).render(),
    );
    const res = await callRaw(page, click(ref));
    expect(res.ok).toBe(false);
    expect((await state(page)).items.map((i) => i.done)).toEqual([false, false]);
    await page.close();
  });

  it('a target covered inside a shadow root is refused and names L2 as the fallback', async () => {
    const page = await h.open('apps/todo-wc.html');
    const ref = refOf((await snapshot(page)).text, /button "Delete"/);
    await page.evaluate(() => {
      const root = document.querySelector('todo-app')!.shadowRoot!;
      const cover = document.createElement('div');
      cover.setAttribute('role', 'dialog');
      cover.setAttribute('aria-label', 'Undo');
      cover.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.3)';
      root.append(cover);
    });
    const res = await callRaw(page, click(ref));
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.message).toMatch(/covered by dialog "Undo".*browser_mouse \(L2/);
    expect((await state(page)).items).toHaveLength(2);
    await page.close();
  });
});

describe('the snapshot cursor', () => {
  it('reads a page larger than the budget in pages: every control is reachable, once', async () => {
    const page = await h.open('apps/todo-wc.html');
    await page.evaluate(() => {
      const main = document.createElement('main');
      for (let i = 1; i <= 400; i++) {
        const p = document.createElement('p');
        p.innerHTML = `Section ${i} text that takes a few tokens <button>Action ${i}</button>`;
        main.append(p);
      }
      document.body.append(main);
    });
    const names: string[] = [];
    let pages = 0;
    for (let n = 1; n <= 60; n++) {
      const snap = await call<{
        text: string;
        truncated: boolean;
        page: number;
        pages: number;
        estTokens: number;
      }>(page, {
        op: 'snapshot',
        mode: 'full',
        incremental: false,
        maxTokens: 1500,
        textLimit: 200,
        includeUrls: false,
        refPrefix: '',
        page: n,
      });
      expect(snap.estTokens).toBeLessThanOrEqual(1600);
      names.push(...[...snap.text.matchAll(/button "(Action \d+)"/g)].map((m) => m[1]));
      pages = snap.pages;
      if (!snap.truncated) break;
    }
    expect(pages).toBeGreaterThan(3);
    expect(names).toEqual(Array.from({ length: 400 }, (_, i) => `Action ${i + 1}`));
    // Continuing after a ref resumes right after its line.
    const first = (await snapshot(page, { maxTokens: 1500 })).text;
    const last = [...first.matchAll(/\[ref=(e\d+)\]/g)].pop()![1];
    const next = await call<{ text: string }>(page, {
      op: 'snapshot',
      mode: 'full',
      incremental: false,
      maxTokens: 1500,
      textLimit: 200,
      includeUrls: false,
      refPrefix: '',
      afterRef: last,
    });
    const firstNames = [...first.matchAll(/button "(Action \d+)"/g)].map((m) => m[1]);
    const nextNames = [...next.text.matchAll(/button "(Action \d+)"/g)].map((m) => m[1]);
    expect(Number(nextNames[0].split(' ')[1])).toBe(
      Number(firstNames[firstNames.length - 1].split(' ')[1]) + 1,
    );
    await page.close();
  });
});
