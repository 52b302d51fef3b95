/**
 * The receiver's guard (content-scripts/input-guard.ts): while armed, a document not cleared
 * swallows trusted input before any of the page's listeners, and a cleared one counts the keys it
 * really received. Events made here are marked trusted through the injected check (a page's own
 * synthetic events are never touched, which the last tests show).
 */
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { installInputGuard, MAX_ARM_MS } from '../../../content-scripts/input-guard';

const TRUSTED = Symbol('trusted');
type Marked = Event & { [TRUSTED]?: boolean };

function page(html = '<input id="q"><iframe id="f"></iframe>') {
  const win = new Window();
  win.document.body.innerHTML = html;
  let clock = 0;
  const w = win as unknown as globalThis.Window;
  const guard = installInputGuard(
    w,
    () => clock,
    (e) => (e as Marked)[TRUSTED] === true,
  );
  const seen: string[] = [];
  // The page's own listeners, registered after the guard (it runs at document_start).
  for (const t of ['keydown', 'keyup', 'beforeinput', 'mousedown', 'click'])
    win.addEventListener(
      t,
      (e) => seen.push(`${t}:${(e.target as unknown as Element).id || 'doc'}`),
      true,
    );
  const fire = (
    target: EventTarget,
    type: string,
    init: Record<string, unknown> = {},
    trusted = true,
  ) => {
    const Ctor = type.startsWith('key')
      ? win.KeyboardEvent
      : type === 'beforeinput'
        ? win.InputEvent
        : win.MouseEvent;
    const e = new Ctor(type, { bubbles: true, cancelable: true, composed: true, ...init });
    (e as unknown as Marked)[TRUSTED] = trusted;
    target.dispatchEvent(e as unknown as Event);
    return e;
  };
  const q = win.document.getElementById('q') as unknown as EventTarget;
  const frame = win.document.getElementById('f') as unknown as EventTarget;
  return { win, guard, seen, fire, q, frame, tick: (ms: number) => (clock += ms) };
}

const arm = (cleared: boolean, kinds: Array<'keys' | 'pointer'> = ['keys', 'pointer']) => ({
  token: 't1',
  cleared,
  kinds,
  ttlMs: 10_000,
});

describe('input guard', () => {
  it('a document not cleared swallows trusted keys and pointer events before the page sees them', () => {
    const p = page();
    p.guard.arm(arm(false));
    const down = p.fire(p.q, 'keydown', { key: 'a' });
    const click = p.fire(p.q, 'click');
    expect(down.defaultPrevented).toBe(true);
    expect(click.defaultPrevented).toBe(true);
    expect(p.seen).toEqual([]);
    const r = p.guard.disarm('t1');
    expect(r).toMatchObject({ armed: true, accepted: 0, swallowed: { keydown: 1, click: 1 } });
  });

  it('unarmed, expired, or of another kind, input passes untouched', () => {
    const p = page();
    p.fire(p.q, 'keydown', { key: 'a' });
    p.guard.arm(arm(false, ['pointer']));
    p.fire(p.q, 'keydown', { key: 'b' });
    p.guard.arm(arm(false, ['keys']));
    p.tick(10_001);
    p.fire(p.q, 'keydown', { key: 'c' });
    expect(p.seen).toEqual(['keydown:q', 'keydown:q', 'keydown:q']);
  });

  it("the page's own synthetic events are never touched", () => {
    const p = page();
    p.guard.arm(arm(false));
    const e = p.fire(p.q, 'keydown', { key: 'a' }, false);
    expect(e.defaultPrevented).toBe(false);
    expect(p.seen).toEqual(['keydown:q']);
  });

  it('a cleared document counts the keys it received, not modifier presses, and text inserted without a key', () => {
    const p = page();
    p.guard.arm(arm(true));
    for (const key of ['Shift', 'H', 'i']) {
      p.fire(p.q, 'keydown', { key });
      // A key's own beforeinput is not another stroke.
      if (key !== 'Shift') p.fire(p.q, 'beforeinput', { inputType: 'insertText', data: key });
      p.fire(p.q, 'keyup', { key });
    }
    p.fire(p.q, 'beforeinput', { inputType: 'insertText', data: 'a long text' });
    expect(p.guard.disarm('t1')).toMatchObject({ armed: true, accepted: 3, swallowed: {} });
    expect(p.seen.filter((s) => s.startsWith('keydown'))).toHaveLength(3);
  });

  it('a key that reaches the document while its focus is on a frame element is swallowed and not counted', () => {
    const p = page();
    p.guard.arm(arm(true));
    p.fire(p.q, 'keydown', { key: 'a' });
    p.fire(p.q, 'keyup', { key: 'a' });
    const lost = p.fire(p.frame, 'keydown', { key: 'b' });
    const up = p.fire(p.frame, 'keyup', { key: 'b' });
    expect(lost.defaultPrevented).toBe(true);
    expect(up.defaultPrevented).toBe(true);
    expect(p.guard.disarm('t1')).toMatchObject({
      accepted: 1,
      swallowed: { keydown: 1, keyup: 1 },
    });
  });

  it('a disarm names its arm; a later arm replaces an earlier one; an arm never outlasts its cap', () => {
    const p = page();
    p.guard.arm(arm(false));
    expect(p.guard.disarm('other').armed).toBe(false);
    p.fire(p.q, 'keydown', { key: 'a' });
    expect(p.seen).toEqual([]);
    p.guard.arm({ ...arm(true), token: 't2' });
    expect(p.guard.disarm('t1').armed).toBe(false);
    expect(p.guard.disarm('t2').armed).toBe(true);
    p.guard.arm({ ...arm(false), ttlMs: 10 * MAX_ARM_MS });
    p.tick(MAX_ARM_MS + 1);
    p.fire(p.q, 'keydown', { key: 'b' });
    expect(p.seen).toEqual(['keydown:q']);
  });

  it('is installed once per window: the second install returns the first guard', () => {
    const p = page();
    expect(installInputGuard(p.win as unknown as globalThis.Window)).toBe(p.guard);
  });
});
