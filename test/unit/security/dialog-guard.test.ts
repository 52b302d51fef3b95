/**
 * The L1 dialog guard runs in the page's own world, so the page can try to pre-seed or read its
 * state (issue 13: it sat on a Symbol.for key). Run here against a stand-in window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptGuarded,
  armGuardInPage,
  collectGuardInPage,
} from '../../../src/tools/browser/dialogs/dialog-guard';

type PageWindow = Record<string | symbol, unknown> & {
  alert: (m?: unknown) => void;
  confirm: (m?: string) => boolean;
  prompt: (m?: string) => string | null;
};
const g = globalThis as unknown as { window?: PageWindow };

function page(): PageWindow {
  const w = {
    alert: () => undefined,
    confirm: () => true,
    prompt: () => 'page answer',
  } as unknown as PageWindow;
  g.window = w;
  return w;
}
afterEach(() => {
  delete g.window;
});

describe('dialog guard state', () => {
  it('a page that pre-seeds the old Symbol.for key neither disables the guard nor forges dialogs', () => {
    const w = page();
    w[Symbol.for('keel.dialogGuard')] = {
      until: 0,
      seen: [{ type: 'confirm', message: 'forged: the user agreed to pay' }],
    };
    expect(armGuardInPage(4000, '__kname', 'proof')).toBe(true);
    expect(w.confirm('Really delete?')).toBe(false);
    expect(collectGuardInPage('__kname', 'proof')).toEqual([
      { type: 'confirm', message: 'Really delete?' },
    ]);
  });

  it('the page cannot read, replace or pre-seed the state without the secrets', () => {
    const w = page();
    expect(armGuardInPage(4000, '__kname', 'proof')).toBe(true);
    w.alert('hi');
    const handle = w.__kname as (p: string) => unknown;
    expect(handle('guess')).toBeUndefined();
    expect(() => {
      Object.defineProperty(w, '__kname', { value: () => ({ until: 0, seen: [] }) });
    }).toThrow();
    expect(collectGuardInPage('__kname', 'wrong')).toEqual([]);
    expect(collectGuardInPage('__kname', 'proof')).toEqual([{ type: 'alert', message: 'hi' }]);
    // A page that planted something under the name before the guard: refused, and never called
    // (calling it would hand the proof to the page).
    const w2 = page();
    let called = false;
    w2.__kother = () => {
      called = true;
      return { until: 0, seen: [{ type: 'alert', message: 'planted' }] };
    };
    expect(armGuardInPage(4000, '__kother', 'proof')).toBe(false);
    expect(called).toBe(false);
  });

  it('accepts only real dialog types, with string messages, clipped', () => {
    const seen = [
      { type: 'alert', message: 'a' },
      { type: 'beforeunload', message: 'b' },
      { type: 'confirm', message: 42 },
      null,
      { type: 'prompt', message: 'x'.repeat(2000) },
    ];
    const out = acceptGuarded(seen);
    expect(out.map((d) => d.type)).toEqual(['alert', 'prompt']);
    expect(out[1].message.length).toBeLessThanOrEqual(501);
    expect(acceptGuarded({ length: 3 })).toEqual([]);
  });
});
