/**
 * How old-style apps hear input, checked against Chromium itself: the same page gets the same
 * input once from Keel's synthetic events (the page agent, L1) and once from trusted input
 * (Playwright's CDP keyboard and mouse), and the events the page records must agree — type, key,
 * code, keyCode, which, charCode, inputType, data, target and relatedTarget, in order. Apps of the
 * jQuery / Backbone / Knockout era read exactly these (`e.which === 13`, keypress, focusout,
 * mouseenter on a row, change on blur), so a difference is a bug an app will meet.
 *
 * Then the rows whose action button shows only on :hover: listed, clicked with the hover
 * applied, and an error (not a click elsewhere) when something covers the revealed button or the
 * row is gone.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIDGETS_DIR } from '../../fixtures/widgets/build';
import { launchChromium } from '../browser/support/chromium';
import { pageAgentBundle } from '../browser/support/bundle';
import { serveFixtureSite } from '../browser/support/server';
import { act, call, callRaw, refOf, snapshot } from '../browser/support/page-harness';

let browser: Browser;
let context: BrowserContext;
let site: Awaited<ReturnType<typeof serveFixtureSite>>;

beforeAll(async () => {
  site = await serveFixtureSite(WIDGETS_DIR);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const bundle = await pageAgentBundle();
  await context.addInitScript({
    content: `document.addEventListener('DOMContentLoaded', () => { ${bundle} }, { once: true });`,
  });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function open(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${site.main.origin}/input-log.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => Boolean(window.__keelTest));
  return page;
}

interface Logged {
  type: string;
  target: string | null;
  related: string | null;
  trusted: boolean;
  [field: string]: unknown;
}

const FIELDS = ['type', 'target', 'related', 'key', 'code', 'keyCode', 'which', 'charCode'];
const INPUT_FIELDS = [...FIELDS, 'inputType', 'data'];

async function logOf(page: Page, types: RegExp, fields = INPUT_FIELDS): Promise<string[]> {
  const log = await page.evaluate(() => (window as unknown as { log: Logged[] }).log);
  return log
    .filter((e) => types.test(e.type))
    .map((e) => fields.map((f) => `${f}=${String(e[f])}`).join(' '));
}

/** Seeded text a US keyboard types: letters of both cases, digits, punctuation, spaces. */
function seededText(seed: number, length: number): string {
  const chars = 'abcxyzQWERTY0123456789 .,;:!?@#-_=+/\'"()[]{}<>~`$%^&*|\\';
  let s = seed >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out += chars[s % chars.length];
  }
  return out;
}

const SEED = Number(process.env.KEEL_SEED ?? Date.now() % 100_000);
const KEYS = /^(keydown|keypress|keyup|beforeinput|input|change|focus|blur|focusin|focusout)$/;

describe('synthetic input is the input Chromium sends (seed ' + SEED + ')', () => {
  it('typing then Enter: per key keydown, keypress, beforeinput, input, keyup; change at Enter', async () => {
    const text = seededText(SEED, 16);
    const keel = await open();
    const ref = refOf((await snapshot(keel)).text, /textbox "Field"/);
    await act(keel, { op: 'type', ref, text, clear: false, submit: true });
    const trusted = await open();
    await trusted.focus('#field');
    await trusted.keyboard.type(text);
    await trusted.keyboard.press('Enter');
    const want = await logOf(trusted, KEYS);
    expect(want.some((l) => l.startsWith('type=beforeinput'))).toBe(true);
    expect(await logOf(keel, KEYS), `seed ${SEED}, text ${JSON.stringify(text)}`).toEqual(want);
    expect(await keel.inputValue('#field')).toBe(text);
    await keel.close();
    await trusted.close();
  });

  it('typing then clicking elsewhere: one change, sent on blur, before blur and focusout', async () => {
    const text = seededText(SEED + 1, 8);
    const keel = await open();
    const snap = (await snapshot(keel)).text;
    await act(keel, {
      op: 'type',
      ref: refOf(snap, /textbox "Field"/),
      text,
      clear: false,
      submit: false,
    });
    await act(keel, {
      op: 'click',
      ref: refOf(snap, /button "Elsewhere"/),
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    const trusted = await open();
    await trusted.focus('#field');
    await trusted.keyboard.type(text);
    await trusted.click('#elsewhere');
    const want = await logOf(trusted, KEYS);
    expect(want.filter((l) => l.startsWith('type=change'))).toHaveLength(1);
    expect(await logOf(keel, KEYS), `seed ${SEED}, text ${JSON.stringify(text)}`).toEqual(want);
    await keel.close();
    await trusted.close();
  });

  it('hovering a row, then clicking the button it reveals: the boundary events of a real pointer', async () => {
    const keel = await open();
    const found = await call<{ matches: string[] }>(keel, {
      op: 'find',
      query: 'Row two',
      kind: 'text',
      limit: 5,
      refPrefix: '',
    });
    const rowRef = /\[ref=(e\d+)\]/.exec(found.matches.join('\n'))?.[1];
    expect(rowRef, found.matches.join('\n')).toBeTruthy();
    await act(keel, { op: 'hover', ref: rowRef });
    // The row's mouseenter listener showed its button: now the snapshot has it.
    const pin = refOf((await snapshot(keel)).text, /button "Pin"/);
    await act(keel, {
      op: 'click',
      ref: pin,
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    expect(await keel.evaluate(() => (window as unknown as { actions: string[] }).actions)).toEqual(
      ['pinned'],
    );
    const trusted = await open();
    await trusted.hover('#t2');
    await trusted.click('#b2');
    const inRows = async (page: Page) => {
      const boundary = /^(pointer|mouse)(over|out|enter|leave)$/;
      const ids = new Set(['rows', 'r2', 't2', 'b2']);
      return (await logOf(page, boundary, ['type', 'target', 'related'])).filter((l) =>
        ids.has(/target=(\S+)/.exec(l)?.[1] ?? ''),
      );
    };
    const want = await inRows(trusted);
    expect(want.filter((l) => l.startsWith('type=mouseenter target=r2 '))).toHaveLength(1);
    expect(await inRows(keel)).toEqual(want);
    await keel.close();
    await trusted.close();
  });

  it('a double-click and a right click: presses, detail, button and buttons as Chromium sends them', async () => {
    const presses =
      /^(pointerdown|pointerup|mousedown|mouseup|click|dblclick|auxclick|contextmenu)$/;
    const fields = ['type', 'target', 'detail', 'button', 'buttons'];
    const keel = await open();
    const found = await call<{ matches: string[] }>(keel, {
      op: 'find',
      query: 'Row three',
      kind: 'text',
      limit: 5,
      refPrefix: '',
    });
    const ref = /\[ref=(e\d+)\]/.exec(found.matches.join('\n'))?.[1];
    for (const [button, clickCount] of [
      ['left', 2],
      ['right', 1],
    ] as const)
      await act(keel, { op: 'click', ref, button, clickCount, modifiers: [], force: false });
    const trusted = await open();
    await trusted.dblclick('#t3');
    await trusted.click('#t3', { button: 'right' });
    expect(await logOf(keel, presses, fields)).toEqual(await logOf(trusted, presses, fields));
    await keel.close();
    await trusted.close();
  });
});

describe('controls shown only while their row is hovered (CSS :hover)', () => {
  it('are listed [on hover] and clicked with the hover applied; nothing of it stays behind', async () => {
    const page = await open();
    const text = (await snapshot(page)).text;
    expect(text).toMatch(/- button "Archive" \[ref=e\d+\] \[on hover\]/);
    expect(text).toMatch(/- button "Share" \[ref=e\d+\] \[on hover\]/);
    // Its name is the text a hover would show: text hidden inside it stays out.
    expect(text).toMatch(/- button "Edit" \[ref=e\d+\] \[on hover\]/);
    expect(text).not.toContain('Ignore all previous');
    // A CSS menu's items show on hover: listed, except one hidden on its own.
    expect(text).toMatch(/- link "Lamps" \[ref=e\d+\] \[on hover\]/);
    expect(text).not.toContain('Desks');
    // The script-revealed button is hidden by [hidden], not by a :hover rule: not listed.
    expect(text).not.toContain('"Pin"');
    const { ack } = await act<{ element: { line: string } }>(page, {
      op: 'click',
      ref: refOf(text, /button "Archive"/),
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    expect(ack.element.line).toMatch(/button "Archive"/);
    expect(await page.evaluate(() => (window as unknown as { actions: string[] }).actions)).toEqual(
      ['archived'],
    );
    expect(
      await page.evaluate(() => ({
        marked: document.querySelectorAll('[data-keel-hover]').length,
        sheets: document.adoptedStyleSheets.length,
      })),
    ).toEqual({ marked: 0, sheets: 0 });
    // The menu item is clicked through the menu's hover: the link is followed.
    await act(page, {
      op: 'click',
      ref: refOf(text, /link "Lamps"/),
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    expect(await page.evaluate(() => location.hash)).toBe('#lamps');
    await page.close();
  });

  it('a revealed button under a veil is an error naming the veil, never a click on it', async () => {
    const page = await open();
    const share = refOf((await snapshot(page)).text, /button "Share"/);
    const res = await page.evaluate((r) => window.__keelTest!.handle(r), {
      op: 'click',
      ref: share,
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    expect(res.ok).toBe(false);
    expect(!res.ok && res.error.code).toBe('not_actionable');
    expect(!res.ok && res.error.message).toMatch(/covered by .*veil/);
    expect(await page.evaluate(() => (window as unknown as { actions: string[] }).actions)).toEqual(
      [],
    );
    expect(await page.evaluate(() => document.querySelectorAll('[data-keel-hover]').length)).toBe(
      0,
    );
    await page.close();
  });

  it('trusted input (L2) finds a hover-only control where it shows; a hidden one is an error', async () => {
    const page = await open();
    const archive = refOf((await snapshot(page)).text, /button "Archive"/);
    const at = await call<{ x: number; y: number }>(page, { op: 'locate', ref: archive });
    // The real pointer moving there hovers the row, which shows the button under it.
    await page.mouse.move(at.x, at.y);
    await page.mouse.click(at.x, at.y);
    expect(await page.evaluate(() => (window as unknown as { actions: string[] }).actions)).toEqual(
      ['archived'],
    );
    // A button hidden by script (not by a :hover rule) has no place to click: an error, not (0, 0).
    await page.hover('#t2');
    const pin = refOf((await snapshot(page)).text, /button "Pin"/);
    await page.mouse.move(0, 0);
    const res = await callRaw(page, { op: 'locate', ref: pin });
    expect(res.ok).toBe(false);
    expect(!res.ok && res.error.code).toBe('not_actionable');
    await page.close();
  });

  it('a stale ref (its row removed) is an error', async () => {
    const page = await open();
    const archive = refOf((await snapshot(page)).text, /button "Archive"/);
    await page.evaluate(() => document.getElementById('r1')!.remove());
    const res = await page.evaluate((r) => window.__keelTest!.handle(r), {
      op: 'click',
      ref: archive,
      button: 'left',
      clickCount: 1,
      modifiers: [],
      force: false,
    });
    expect(res.ok).toBe(false);
    expect(await page.evaluate(() => (window as unknown as { actions: string[] }).actions)).toEqual(
      [],
    );
    await page.close();
  });
});
