/**
 * Issue 26, point 3, "the page as the model sees it": complete, unambiguous, honest — on real
 * widgets built from their npm packages.
 *
 * Controls drawn inside an SVG are listed: a d3 bar chart's bars (rects with a pointer cursor, a
 * click handler and a <title>) and its SVG text control (before: the SVG was one picture and its
 * bars had no refs). The ref chosen by a bar's name selects that country (the app's state).
 *
 * Icon-only controls are named by their icon: flatpickr's month arrows (before: `clickable
 * [ref=e3]`, two identical unnamed lines) and Quill's header picker. The ref a model picks by
 * that name moves the calendar (flatpickr's own state says so).
 *
 * A container the page named keeps its name: MUI Select's open listbox is listed as
 * `- listbox "Country":` over its options (before: the options alone).
 *
 * Same-named controls carry their row. On a TodoMVC list built from its real
 * framework package, each row's "Delete" button has the same name; the snapshot line of each
 * must say which todo it deletes, so that every ref's line identifies one element — and the
 * ref a model picks by that line deletes that todo (the app's own state says so).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgets, WIDGETS_DIR } from '../../fixtures/widgets/build';
import { call, snapshot, startHarness, type Harness } from './support/page-harness';

let h: Harness;

beforeAll(async () => {
  await buildWidgets();
  h = await startHarness({ fixtureDir: WIDGETS_DIR });
});

afterAll(async () => {
  await h?.close();
});

interface TodoState {
  items: { title: string; done: boolean }[];
}

describe.each(['preact', 'vue'])('TodoMVC (%s): repeated "Delete" buttons', (fw) => {
  it('each carries its row, and the ref chosen by that row deletes that todo', async () => {
    const page = await h.open(`todo.html?fw=${fw}`);
    await page.waitForFunction(() => Boolean((window as { todoState?: unknown }).todoState));
    const { text } = await snapshot(page);
    const deletes = text.split('\n').filter((l) => /- button "Delete"/.test(l));
    expect(deletes.length, text).toBe(2);
    expect(deletes[0]).toMatch(/button "Delete" \(in row "Buy milk"\) \[ref=e\d+\]/);
    expect(deletes[1]).toMatch(/button "Delete" \(in row "Walk the dog"\) \[ref=e\d+\]/);
    // A name that does not repeat keeps its line as it was.
    expect(text).toMatch(/- textbox "What needs to be done\?" \[ref=e\d+\]/);
    const ref = /\[ref=(e\d+)\]/.exec(deletes[1])![1];
    await clickRef(page, ref);
    const state = await page.evaluate(
      () => (window as unknown as { todoState: TodoState }).todoState,
    );
    expect(state.items.map((i) => i.title)).toEqual(['Buy milk']);
    await page.close();
  });
});

describe('icon-only controls', () => {
  it("flatpickr's month arrows are named by their icon, and the one named prev goes back", async () => {
    const page = await h.open('widget.html?w=flatpickr');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    await page.click('input');
    await page.locator('.flatpickr-calendar.open').waitFor();
    // flatpickr fades its calendar in (opacity 0 first; an invisible element is not listed): read
    // the page again until it has opened.
    let text = '';
    await expect
      .poll(
        async () => {
          text = (await snapshot(page)).text;
          return text.includes('prev month');
        },
        { timeout: 5000 },
      )
      .toBe(true);
    const prev = text.split('\n').find((l) => /\(icon "[^"]*prev month"\)/.test(l));
    const next = text.split('\n').find((l) => /\(icon "[^"]*next month"\)/.test(l));
    expect(prev, text).toMatch(/^- clickable \(icon "flatpickr prev month"\) \[ref=e\d+\]$/);
    expect(next, text).toMatch(/^- clickable \(icon "flatpickr next month"\) \[ref=e\d+\]$/);
    const month = () =>
      page.evaluate(
        () =>
          (document.querySelector('.flatpickr-monthDropdown-months') as HTMLSelectElement).value,
      );
    expect(await month()).toBe('11');
    const ref = /\[ref=(e\d+)\]/.exec(prev!)![1];
    await clickRef(page, ref);
    expect(await month()).toBe('10');
    await page.close();
  });

  it("Quill's header picker is named after its widget, and the toolbar keeps its own labels", async () => {
    const page = await h.open('widget.html?w=quill');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    const { text } = await snapshot(page);
    expect(text).toMatch(/- button \(icon "header"\) \[ref=e\d+\] \[collapsed\]/);
    expect(text).toMatch(/- button "bold" \[ref=e\d+\]/);
    await page.close();
  });
});

describe('named containers', () => {
  it("MUI Select's open listbox is listed with its name over its options", async () => {
    const page = await h.open('widget.html?w=mui-select');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    await page.locator('[role=combobox]').first().click();
    await page.locator('[role=listbox]').waitFor();
    // MUI's menu grows in with a transition (opacity 0 first, an invisible element is not listed):
    // read the page again until it has finished opening.
    let text = '';
    await expect
      .poll(
        async () => {
          text = (await snapshot(page)).text;
          return text.includes('option "Argentina"');
        },
        { timeout: 5000 },
      )
      .toBe(true);
    const lines = text.split('\n');
    const header = lines.findIndex((l) => /^- listbox "Country":$/.test(l));
    expect(header, text).toBeGreaterThanOrEqual(0);
    expect(lines[header + 1]).toMatch(/^ {2}- option "Argentina" \[ref=e\d+\]/);
    await page.close();
  });
});

describe('containers do not swallow their controls', () => {
  it("MUI X's expanded folders are named by their own label, and a child's ref selects it", async () => {
    const page = await h.open('widget.html?w=mui-tree');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    await page.locator('[role=treeitem]').first().waitFor();
    const { text } = await snapshot(page);
    // Before: `treeitem "Inbox Receipts Travel"`, the folder named after the items it holds.
    expect(text).toMatch(/- treeitem "Inbox" \[ref=e\d+\] \[expanded\]$/m);
    expect(text).toMatch(/- treeitem "Archive" \[ref=e\d+\] \[expanded\]$/m);
    const ref = /- treeitem "2025" \[ref=(e\d+)\]/.exec(text)?.[1];
    expect(ref, text).toBeDefined();
    await clickRef(page, ref!);
    const state = await page.evaluate(
      () => (window as unknown as { widgetState: { selected: unknown } }).widgetState,
    );
    expect(state.selected).toBe('y2025');
    await page.close();
  });

  it("jQuery UI's Prev and Next (anchors without href, a delegated handler) are listed, and Prev goes back", async () => {
    const page = await h.open('widget.html?w=jquery-ui-date');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    const { text } = await snapshot(page);
    // Before: neither arrow was in the snapshot (no href, no role, no cursor: only the
    // `data-handler="prev" data-event="click"` the widget delegates from its container).
    const prev = /- clickable "Prev" \[ref=(e\d+)\]/.exec(text)?.[1];
    expect(prev, text).toBeDefined();
    expect(text).toMatch(/- clickable "Next" \[ref=e\d+\]/);
    // Each day cell is a handler around its link: the link is listed, the cell adds no line.
    expect(text).toMatch(/- link "15" \[ref=e\d+\]/);
    expect(text).not.toMatch(/- clickable "15"/);
    const month = () =>
      page.evaluate(
        () => (window as unknown as { widgetState: { month: string } }).widgetState.month,
      );
    expect(await month()).toBe('2026-12');
    await clickRef(page, prev!);
    expect(await month()).toBe('2026-11');
    await page.close();
  });

  it('a toolbar with its own handler keeps its label and lists the actions it holds', async () => {
    const page = await h.open('widget.html?w=mui-tree');
    // A mail view's action bar: one listener on the bar serves its items by their data-action,
    // and the bar itself toggles the message's details (seen as `clickable "Reply Forward"`).
    await page.evaluate(() => {
      const bar = document.createElement('div');
      bar.setAttribute('onclick', "window.done = event.target.dataset.action || 'details'");
      bar.style.cursor = 'pointer';
      bar.innerHTML =
        'Message actions <span data-action="reply">Reply</span> <span data-action="forward">Forward</span>';
      document.body.append(bar);
    });
    const { text } = await snapshot(page);
    expect(text).toMatch(/- clickable "Message actions" \[ref=e\d+\]/);
    const forward = /- clickable "Forward" \[ref=(e\d+)\]/.exec(text)?.[1];
    expect(forward, text).toBeDefined();
    expect(text).toMatch(/- clickable "Reply" \[ref=e\d+\]/);
    expect(text).not.toContain('Reply Forward');
    await clickRef(page, forward!, { settle: false });
    expect(await page.evaluate(() => (window as { done?: string }).done)).toBe('forward');
    await page.close();
  });
});

describe('controls drawn out of DOM order', () => {
  it("Bootstrap's float-end, flex-row-reverse and order-* controls are listed in the order they are drawn", async () => {
    const page = await h.open('widget.html?w=bootstrap-mail');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    const { text } = await snapshot(page);
    const lines = text.split('\n');
    const listed = lines
      .map((l) => /- (?:button|link) "(\w+)"/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined && n !== 'Unrelated');
    // Ground truth: where the page drew them (rows top to bottom, then left to right).
    const drawn = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#app button, #app a'))
        .map((e) => ({ name: e.textContent!.trim(), r: e.getBoundingClientRect() }))
        .sort((a, b) =>
          Math.abs(a.r.top - b.r.top) > a.r.height / 2 ? a.r.top - b.r.top : a.r.left - b.r.left,
        )
        .map((i) => i.name),
    );
    expect(drawn).toEqual([
      'Delete',
      'Forward',
      'Reply',
      'Drafts',
      'Sent',
      'Inbox',
      'Previous',
      'Next',
    ]);
    // Before: DOM order (Reply, Forward, Delete; Inbox, Sent, Drafts; Next, Previous).
    expect(listed, text).toEqual(drawn);
    // Text the container draws between its controls keeps its place.
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    expect(at(/Page 2 of 5/)).toBeGreaterThan(at(/"Previous"/));
    expect(at(/Page 2 of 5/)).toBeLessThan(at(/"Next"/));
    await page.close();
  });
});

describe('controls inside an SVG', () => {
  it("a d3 chart's bars and its text control are listed, and a bar's ref selects its country", async () => {
    const page = await h.open('widget.html?w=d3-chart');
    await page.waitForFunction(() => Boolean((window as { widgetState?: unknown }).widgetState));
    const { text } = await snapshot(page);
    const bars = text.split('\n').filter((l) => /- clickable "\w+: \d orders"/.test(l));
    expect(bars.length, text).toBe(4);
    expect(text).toMatch(/- clickable "Reset" \[ref=e\d+\]/);
    const canada = bars.find((l) => l.includes('"Canada: 5 orders"'));
    const ref = /\[ref=(e\d+)\]/.exec(canada ?? '')?.[1];
    expect(ref, text).toBeDefined();
    await clickRef(page, ref!);
    const state = await page.evaluate(
      () => (window as unknown as { widgetState: { value: unknown } }).widgetState,
    );
    expect(state.value).toBe('Canada');
    // An SVG icon that is itself the control is one line, named by its icon.
    const star = /- clickable \(icon "star"\) \[ref=(e\d+)\]/.exec(text);
    expect(star, text).not.toBeNull();
    await clickRef(page, star![1], { settle: false });
    expect(
      await page.evaluate(
        () => (window as unknown as { widgetState: { starred?: boolean } }).widgetState.starred,
      ),
    ).toBe(true);
    await page.close();
  });
});

/** A left click on `ref` as the click tool sends it, then (unless told not to) the page settles. */
async function clickRef(page: Page, ref: string, o: { settle?: boolean } = {}): Promise<void> {
  await call(page, {
    op: 'click',
    ref,
    button: 'left',
    clickCount: 1,
    modifiers: [],
    force: false,
  });
  if (o.settle !== false) await call(page, { op: 'settle', quietMs: 150, timeoutMs: 2000, ref });
}
