/**
 * The page side of dialogs a page opens on its own: the page-world wrapper
 * (src/tools/browser/dialogs/dialog-hold.ts) and the content script's relay
 * (content-scripts/dialog-pending.ts), together in one document. The page is held only when the
 * content script is armed (a live run uses the tab) and the mode asks for it; the wrapper never
 * changes what the page's dialog functions get or return; an unarmed content script ignores the
 * events (a page cannot detect Keel or wake its worker with them).
 */
// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DIALOG_ARM_MESSAGE,
  DIALOG_CLOSED_EVENT,
  DIALOG_PENDING_EVENT,
  DIALOG_SIGNAL_MESSAGE,
  listenForPageDialogs,
} from '../../../content-scripts/dialog-pending';
import { isTrustedSender } from '../../../content-scripts/trusted-sender';
import {
  HOLD_MS,
  OFF,
  SIGNAL_ONLY,
  holdDialogsInPage,
} from '../../../src/tools/browser/dialogs/dialog-hold';

type OnMessage = (m: unknown, sender: unknown, respond: (r: unknown) => void) => boolean;

const events: [string, string] = [DIALOG_PENDING_EVENT, DIALOG_CLOSED_EVENT];
let sent: unknown[];
let onMessage: OnMessage[];
/** Date.now calls made by the wrapper's hold loop (the clock advances 10 ms per call). */
let clockReads: number;
let mark: string;

beforeEach(() => {
  sent = [];
  onMessage = [];
  clockReads = 0;
  mark = `__kh${Math.random().toString(16).slice(2).padEnd(16, '0').slice(0, 16)}`;
  let t = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => {
    clockReads++;
    return (t += 10);
  });
  (globalThis as unknown as { chrome: unknown }).chrome = {
    runtime: {
      id: 'keel',
      sendMessage: async (m: unknown) => {
        sent.push(m);
      },
      onMessage: { addListener: (l: OnMessage) => onMessage.push(l) },
    },
  };
  // The page's own dialog functions (happy-dom has none that answer).
  Object.assign(window, {
    alert: vi.fn(() => undefined),
    confirm: vi.fn(() => true),
    prompt: vi.fn((_m?: string, v?: string) => `typed:${v ?? ''}`),
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function arm(armed: boolean, sender: unknown = { id: 'keel' }) {
  for (const l of onMessage) l({ kind: DIALOG_ARM_MESSAGE, armed }, sender, () => undefined);
}

/** A fresh document with the relay; returns the page's original functions. */
function page() {
  const original = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
  listenForPageDialogs(
    document,
    () => true,
    (s) => isTrustedSender(s, 'keel', null),
  );
  return original;
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('the page-world wrapper and the content script relay', () => {
  it('holds only when armed and in hold mode; passes arguments and answers through', async () => {
    const original = page();
    expect(holdDialogsInPage(HOLD_MS, events, mark, true)).toBe(true);

    // Not armed (no live run uses the tab): no signal, no hold.
    expect(window.confirm('Stay?')).toBe(true);
    await flush();
    expect(sent).toEqual([]);
    expect(clockReads).toBe(0);

    arm(true);
    clockReads = 0;
    expect(window.prompt('Name?', 'List')).toBe('typed:List');
    expect(original.prompt).toHaveBeenCalledWith('Name?', 'List');
    await flush();
    // The signals carry nothing from the page.
    expect(sent).toEqual([
      { kind: DIALOG_SIGNAL_MESSAGE, open: true },
      { kind: DIALOG_SIGNAL_MESSAGE, open: false },
    ]);
    expect(clockReads).toBeGreaterThanOrEqual(HOLD_MS / 10);

    // Attached (signal only): signals, never a hold.
    expect(holdDialogsInPage(SIGNAL_ONLY, events, mark, true)).toBe(false);
    sent = [];
    clockReads = 0;
    window.alert('Saved');
    expect(original.alert).toHaveBeenCalledWith('Saved');
    await flush();
    expect(sent).toHaveLength(2);
    expect(clockReads).toBe(0);

    // The run ended: straight through, nothing fired.
    holdDialogsInPage(OFF, events, mark, false);
    arm(false);
    sent = [];
    const seen: string[] = [];
    document.addEventListener(DIALOG_PENDING_EVENT, (e) => seen.push(e.type));
    expect(window.confirm('Leave?')).toBe(true);
    await flush();
    expect(seen).toEqual([]);
    expect(sent).toEqual([]);
    expect(clockReads).toBe(0);
  });

  it('only the worker arms it; a page cannot detect Keel with the event while unarmed', async () => {
    page();
    arm(true, { id: 'keel', tab: { id: 1 } }); // another content script of Keel: not the worker
    arm(true, { id: 'other-extension' });
    const e = new CustomEvent(DIALOG_PENDING_EVENT, { cancelable: true });
    expect(document.dispatchEvent(e)).toBe(true);
    expect(e.defaultPrevented).toBe(false);
    await flush();
    expect(sent).toEqual([]);
  });

  it('switching a wrapper off never installs one, and a second install only sets the mode', () => {
    const original = page();
    expect(holdDialogsInPage(OFF, events, mark, false)).toBe(false);
    expect(window.confirm).toBe(original.confirm);
    expect(holdDialogsInPage(HOLD_MS, events, mark, true)).toBe(true);
    const wrapped = window.confirm;
    expect(wrapped).not.toBe(original.confirm);
    expect(holdDialogsInPage(SIGNAL_ONLY, events, mark, true)).toBe(false);
    expect(window.confirm).toBe(wrapped);
  });
});
