/**
 * Every DOM action of the page agent in Chromium, through the test hook: the request the service
 * worker sends, then the `settle` that reports what changed.
 */
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

const click = (ref: string, extra: Record<string, unknown> = {}) => ({
  op: 'click',
  ref,
  button: 'left',
  clickCount: 1,
  modifiers: [],
  force: false,
  ...extra,
});

describe('click', () => {
  it('toggles a checkbox and reports its new state', async () => {
    const page = await h.open('forms.html');
    const { text } = await snapshot(page);
    const ref = refOf(text, /checkbox "Send me the newsletter"/);
    const { ack, settled } = await act<{ element: { line: string } }>(page, click(ref));
    expect(ack.element.line).toMatch(/checkbox "Send me the newsletter" \[ref=e\d+\]$/);
    expect(settled.element && 'line' in settled.element && settled.element.line).toMatch(
      /\[checked\]/,
    );
    expect(await page.isChecked('#newsletter')).toBe(true);
    const events = await page.evaluate(
      () => (window as unknown as { __events: { type: string; target: string }[] }).__events,
    );
    expect(events.filter((e) => e.target === 'newsletter').map((e) => e.type)).toEqual(
      expect.arrayContaining(['click', 'input', 'change']),
    );
    await page.close();
  });

  it('toggles a CSS-only switch through its label', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /checkbox "Dark mode"/);
    await act(page, click(ref));
    expect(await page.isChecked('#darkmode')).toBe(true);
    expect((await snapshot(page)).text).toMatch(/checkbox "Dark mode" \[ref=e\d+\] \[checked\]/);
    await page.close();
  });

  it('expands a disclosure and reports the change', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /button "More"/);
    const { settled } = await act(page, click(ref));
    expect(settled.mutations).toBeGreaterThan(0);
    expect(settled.element && 'line' in settled.element && settled.element.line).toMatch(
      /button "More" \[ref=e\d+\] \[expanded\]/,
    );
    await page.close();
  });

  it('refuses a covered element, names the cover, and clicks once it is gone', async () => {
    const page = await h.open('overlay.html');
    const text = (await snapshot(page)).text;
    const behind = refOf(text, /button "Read more"/);
    const res = await callRaw(page, click(behind));
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.error.code).toBe('not_actionable');
      expect(res.error.message).toMatch(/covered by dialog "Cookies"/);
    }
    await act(page, click(refOf(text, /button "Accept cookies"/)));
    await act(page, click(behind));
    expect(await page.textContent('#out')).toBe('read more clicked');
    await page.close();
  });

  it('answers before a dialog opened by the click blocks the page', async () => {
    const page = await h.open('dialogs.html');
    const ref = refOf((await snapshot(page)).text, /button "Show alert"/);
    const messages: string[] = [];
    page.on('dialog', (d) => {
      messages.push(d.message());
      setTimeout(() => void d.accept(), 300);
    });
    const ack = await call<{ element: { name: string } }>(page, click(ref));
    expect(ack.element.name).toBe('Show alert');
    await call(page, { op: 'settle', quietMs: 100, timeoutMs: 2000 });
    expect(messages).toEqual(['Heads up: saved']);
    expect(await page.textContent('#out')).toBe('alert closed');
    await page.close();
  });

  it('follows SPA navigation (pushState) and reports the new URL', async () => {
    const page = await h.open('spa.html');
    const ref = refOf((await snapshot(page)).text, /link "Products"/);
    const { settled } = await act(page, click(ref));
    expect(settled.url).toMatch(/\/spa\.html\/products$/);
    const after = (await snapshot(page)).text;
    expect(after).toMatch(/- button "Buy lamp" \[ref=e\d+\]/);
    expect(refOf(after, /link "Products"/)).toBe(ref);
    await page.close();
  });

  it('clicks inside open shadow roots and same-origin iframes', async () => {
    const page = await h.open('shadow.html');
    await act(page, click(refOf((await snapshot(page)).text, /button "Follow"/)));
    expect((await snapshot(page)).text).toContain('Following');
    await page.close();

    const frames = await h.open('iframes.html');
    await frames.frames()[1]?.waitForLoadState('load');
    const text = (await snapshot(frames)).text;
    await act(frames, {
      op: 'type',
      ref: refOf(text, /textbox "Coupon code"/),
      text: 'SAVE10',
      clear: true,
      submit: false,
    });
    const applied = await act(frames, click(refOf(text, /button "Apply coupon"/)));
    // Changes inside the same-origin iframe are tracked too.
    expect(applied.settled.mutations).toBeGreaterThan(0);
    const inner = frames.frames().find((f) => f.url().includes('who=same'));
    expect(await inner?.textContent('#out')).toBe('Applied SAVE10 trusted=false');
    await frames.close();
  });
});

describe('stale refs', () => {
  it('errors instead of acting on another element', async () => {
    const page = await h.open('dynamic.html');
    const first = await snapshot(page);
    const ref = refOf(first.text, /button "Remove me"/);
    await act(page, click(ref));
    const again = await callRaw(page, click(ref));
    expect(again.ok).toBe(false);
    if (!again.ok) {
      expect(again.error.code).toBe('stale_ref');
      expect(again.error.message).toMatch(/no longer exists.*Take a new browser_snapshot/);
    }
    // A ref from another document (different docId) is stale even if the number exists here.
    const addRef = refOf(first.text, /button "Add item"/);
    const other = await callRaw(page, { ...click(addRef), docId: 'someotherdoc' });
    expect(!other.ok && other.error.code).toBe('stale_ref');
    const bad = await callRaw(page, { op: 'click', ref: 'x1' });
    expect(!bad.ok && bad.error.code).toBe('bad_request');
    await page.close();
  });
});

describe('typing and selecting', () => {
  it('types into a framework-controlled input with input events', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /textbox "Full name"/);
    const { settled } = await act(page, {
      op: 'type',
      ref,
      text: 'Ada Lovelace',
      clear: true,
      submit: false,
    });
    expect(settled.element && 'line' in settled.element && settled.element.line).toMatch(
      /: Ada Lovelace$/,
    );
    expect(await page.inputValue('#name')).toBe('Ada Lovelace');
    expect(
      await page.evaluate(
        () => (window as unknown as { __nameInputValue: string }).__nameInputValue,
      ),
    ).toBe('Ada Lovelace');
    await act(page, { op: 'type', ref, text: ' Byron', clear: false, submit: false });
    expect(await page.inputValue('#name')).toBe('Ada Lovelace Byron');
    await page.close();
  });

  it('refuses a field the page disables or locks while focusing it, and types nothing there', async () => {
    const page = await h.open('lock-on-focus.html');
    const text = (await snapshot(page)).text;
    const type = (ref: string, value: string) =>
      call(page, { op: 'type', ref, text: value, clear: true, submit: false }).then(() =>
        call<{ refused?: string }>(page, { op: 'settle', quietMs: 150, timeoutMs: 2000, ref }),
      );
    const voucher = await type(refOf(text, /textbox "Voucher code"/), 'SAVE10');
    expect(voucher.refused).toMatch(/became disabled when focused: nothing was typed/);
    const note = await type(refOf(text, /textbox "Gift note"/), 'Happy birthday');
    expect(note.refused).toMatch(/became read-only when focused/);
    // A field that stays editable is typed into, and reports no refusal.
    const name = await type(refOf(text, /textbox "Your name"/), 'Ada');
    expect(name.refused).toBeUndefined();
    // Ground truth: the page's own fields and input events.
    expect(await page.inputValue('#voucher')).toBe('');
    expect(await page.inputValue('#note')).toBe('');
    expect(await page.inputValue('#name')).toBe('Ada');
    expect(
      await page.evaluate(() => (window as unknown as { __inputs: string[] }).__inputs),
    ).toEqual(expect.not.arrayContaining(['voucher', 'note']));
    await page.close();
  });

  it('submits with Enter through the form’s submit button', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /textbox "Full name"/);
    await act(page, { op: 'type', ref, text: 'Grace', clear: true, submit: true });
    expect(await page.textContent('#result')).toContain('"name":"Grace"');
    await page.close();
  });

  it('sets caretless inputs and rejects malformed values', async () => {
    const page = await h.open('forms.html');
    const text = (await snapshot(page)).text;
    await act(page, {
      op: 'type',
      ref: refOf(text, /textbox "Birthday"/),
      text: '1990-04-01',
      clear: true,
      submit: false,
    });
    expect(await page.inputValue('input[name=birthday]')).toBe('1990-04-01');
    const bad = await callRaw(page, {
      op: 'type',
      ref: refOf(text, /textbox "Birthday"/),
      text: 'April 1st',
      clear: true,
      submit: false,
    });
    expect(!bad.ok && bad.error.message).toMatch(/type the value as 2024-05-31/);
    const notField = await callRaw(page, {
      op: 'type',
      ref: refOf(text, /button "More"/),
      text: 'x',
      clear: true,
      submit: false,
    });
    expect(!notField.ok && notField.error.message).toMatch(/not a text field/);
    await page.close();
  });

  it('types into a contenteditable editor', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /textbox "Rich editor"/);
    await act(page, { op: 'type', ref, text: 'Hello world', clear: true, submit: false });
    expect(await page.textContent('#editor')).toBe('Hello world');
    await page.close();
  });

  it('selects options by label or value and lists them when missing', async () => {
    const page = await h.open('forms.html');
    const ref = refOf((await snapshot(page)).text, /combobox "Country"/);
    const { ack } = await act<{ note: string }>(page, { op: 'select', ref, values: ['Germany'] });
    expect(ack.note).toBe('selected "Germany"');
    expect(await page.inputValue('#country')).toBe('de');
    await act(page, { op: 'select', ref, values: ['jp'] });
    expect(await page.inputValue('#country')).toBe('jp');
    const missing = await callRaw(page, { op: 'select', ref, values: ['Spain'] });
    expect(!missing.ok && missing.error.message).toMatch(/No option "Spain".*"France", "Germany"/);
    await page.close();
  });

  it('sets generated files on a file input', async () => {
    const page = await h.open('files.html');
    const ref = refOf((await snapshot(page)).text, /button "Résumé"/);
    await act(page, {
      op: 'set_files',
      ref,
      files: [
        {
          name: 'cv.txt',
          mimeType: 'text/plain',
          dataBase64: Buffer.from('hello cv').toString('base64'),
        },
      ],
    });
    await page.waitForFunction(() => document.getElementById('out')?.textContent !== 'no files');
    expect(await page.textContent('#out')).toBe('resume -> cv.txt:8:hello cv');
    await page.close();
  });
});

describe('keys, hover, scroll and waits', () => {
  it('presses keys with default actions', async () => {
    const page = await h.open('forms.html');
    const text = (await snapshot(page)).text;
    await act(page, {
      op: 'press_key',
      ref: refOf(text, /checkbox "Remember this device"/),
      key: ' ',
      modifiers: [],
    });
    expect(await page.getAttribute('#aria-check', 'aria-checked')).toBe('true');
    await act(page, {
      op: 'type',
      ref: refOf(text, /textbox "Full name"/),
      text: 'Linus',
      clear: true,
      submit: false,
    });
    await act(page, { op: 'press_key', key: 'Enter', modifiers: [] });
    expect(await page.textContent('#result')).toContain('"name":"Linus"');
    await act(page, { op: 'press_key', key: 'Tab', modifiers: [] });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    const bad = await callRaw(page, { op: 'press_key', key: 'NotAKey', modifiers: [] });
    expect(!bad.ok && bad.error.message).toMatch(/Unknown key/);
    await page.close();
  });

  it('hovers and reports what appeared', async () => {
    const page = await h.open('input-events.html');
    const ref = refOf((await snapshot(page)).text, /clickable "Hover for tip"/);
    const { settled } = await act(page, { op: 'hover', ref });
    expect(settled.mutations).toBeGreaterThan(0);
    expect((await snapshot(page)).text).toContain('Tip: press Enter');
    await page.close();
  });

  it('scrolls the page, to a ref and to a text', async () => {
    const page = await h.open('lazy.html');
    const down = await call<{ y: number; maxY: number }>(page, {
      op: 'scroll',
      toRef: false,
      direction: 'down',
      amount: 1,
    });
    expect(down.y).toBeGreaterThan(500);
    const bottom = await call<{ atBottom: boolean }>(page, {
      op: 'scroll',
      toRef: false,
      direction: 'bottom',
      amount: 1,
    });
    expect(bottom.atBottom).toBe(true);
    await page.waitForFunction(() => document.querySelectorAll('#feed li').length >= 5);
    const top = await call<{ y: number }>(page, {
      op: 'scroll',
      toRef: false,
      direction: 'top',
      amount: 1,
    });
    expect(top.y).toBe(0);
    const toText = await call<{ note: string; ref: string }>(page, {
      op: 'scroll',
      toRef: false,
      text: 'Story 1.3',
      direction: 'down',
      amount: 1,
    });
    expect(toText.note).toMatch(/scrolled to "Story 1\.3"/);
    expect(toText.ref).toMatch(/^e\d+$/);
    const missing = await callRaw(page, {
      op: 'scroll',
      toRef: false,
      text: 'No such words',
      direction: 'down',
      amount: 1,
    });
    expect(!missing.ok && missing.error.code).toBe('not_found');
    await page.close();
  });

  it('waits for text, for a ref to go, and times out cleanly', async () => {
    const page = await h.open('dynamic.html');
    const text = (await snapshot(page)).text;
    await act(page, click(refOf(text, /button "Show message later"/)));
    const appeared = await call<{ met: boolean }>(page, {
      op: 'wait_for',
      condition: 'text_visible',
      text: 'delayed message arrived',
      timeoutMs: 3000,
    });
    expect(appeared.met).toBe(true);
    const gone = refOf(text, /button "Remove me"/);
    await act(page, click(gone));
    const r = await call<{ met: boolean }>(page, {
      op: 'wait_for',
      condition: 'ref_gone',
      ref: gone,
      timeoutMs: 1000,
    });
    expect(r.met).toBe(true);
    const never = await call<{ met: boolean; waitedMs: number }>(page, {
      op: 'wait_for',
      condition: 'text_visible',
      text: 'never there',
      timeoutMs: 400,
    });
    expect(never.met).toBe(false);
    expect(never.waitedMs).toBeGreaterThanOrEqual(380);
    await page.close();
  });

  it('keeps its own overlay out of snapshots and change counts', async () => {
    const page = await h.open('nav-b.html');
    const before = (await snapshot(page)).text;
    const ref = refOf(before, /link "Back to page A"/);
    const { settled } = await act(page, { op: 'hover', ref });
    expect(settled.mutations).toBe(0);
    expect((await snapshot(page)).text).toBe(before);
    expect(await page.evaluate(() => document.querySelectorAll('keel-highlight').length)).toBe(1);
    await page.close();
  });
});

describe('approval facts', () => {
  it('describes downloads, payment submits and file inputs', async () => {
    const nav = await h.open('nav-a.html');
    const navText = (await snapshot(nav)).text;
    const dl = await call<{ element: { download: boolean } }>(nav, {
      op: 'describe',
      ref: refOf(navText, /link "Download report"/),
    });
    expect(dl.element.download).toBe(true);
    const blank = await call<{ element: { opensNewTab: boolean } }>(nav, {
      op: 'describe',
      ref: refOf(navText, /link "Open B in a new tab"/),
    });
    expect(blank.element.opensNewTab).toBe(true);
    await nav.close();

    const pay = await h.open('payment.html');
    const payText = (await snapshot(pay)).text;
    expect(payText).toMatch(/- button "Pay \$42\.00" \[ref=e\d+\] \[type=submit\]/);
    const payButton = await call<{ element: { submitsForm: string; submitsPaymentForm: boolean } }>(
      pay,
      { op: 'describe', ref: refOf(payText, /button "Pay/) },
    );
    expect(payButton.element).toMatchObject({ submitsForm: 'click', submitsPaymentForm: true });
    const card = await call<{ element: { submitsForm: string; submitsPaymentForm: boolean } }>(
      pay,
      { op: 'describe', ref: refOf(payText, /textbox "Card number"/) },
    );
    expect(card.element).toMatchObject({ submitsForm: 'enter', submitsPaymentForm: true });
    const subscribe = await call<{ element: { submitsPaymentForm: boolean } }>(pay, {
      op: 'describe',
      ref: refOf(payText, /button "Subscribe"/),
    });
    expect(subscribe.element.submitsPaymentForm).toBe(false);
    await act(pay, {
      op: 'type',
      ref: refOf(payText, /textbox "Card number"/),
      text: '4242424242424242',
      clear: true,
      submit: false,
    });
    expect((await snapshot(pay)).text).toMatch(/textbox "Card number" \[ref=e\d+\]: •••• 4242/);
    await pay.close();
  });
});
