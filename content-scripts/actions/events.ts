import { composedParent, deepActiveElement, type ShadowOf } from '../dom/composed';

/**
 * Synthetic input events, built with the element's own window constructors (same-origin iframes
 * have their own realm). Pages see isTrusted false; the debugger tier exists for pages that care.
 */

import { canonicalKey } from '../../src/tools/browser/key-names';

export type Modifier = 'Alt' | 'Control' | 'Meta' | 'Shift';
export type MouseButton = 'left' | 'right' | 'middle';

const BUTTON_CODE: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };
const BUTTONS_MASK: Record<MouseButton, number> = { left: 1, middle: 4, right: 2 };

export interface Point {
  x: number;
  y: number;
}

function viewOf(el: Element): Window & typeof globalThis {
  return (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
}

function modifierInit(mods: readonly Modifier[]) {
  return {
    altKey: mods.includes('Alt'),
    ctrlKey: mods.includes('Control'),
    metaKey: mods.includes('Meta'),
    shiftKey: mods.includes('Shift'),
  };
}

/** Centre of the element's first line box (inline elements may wrap). */
export function centerOf(el: Element): Point {
  const rects = el.getClientRects();
  const r = rects.length ? rects[0] : el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

function mouse(
  el: Element,
  type: string,
  p: Point,
  button: MouseButton,
  buttons: number,
  detail: number,
  mods: readonly Modifier[],
  relatedTarget: Element | null = null,
): boolean {
  const view = viewOf(el);
  const init = {
    relatedTarget,
    bubbles: type !== 'mouseenter' && type !== 'mouseleave',
    cancelable: type !== 'mouseenter' && type !== 'mouseleave',
    composed: true,
    view,
    clientX: p.x,
    clientY: p.y,
    screenX: p.x + view.screenX,
    screenY: p.y + view.screenY,
    button: BUTTON_CODE[button],
    buttons,
    detail,
    ...modifierInit(mods),
  };
  if (type.startsWith('pointer')) {
    return el.dispatchEvent(
      new view.PointerEvent(type, {
        ...init,
        bubbles: type !== 'pointerenter' && type !== 'pointerleave',
        cancelable: type !== 'pointerenter' && type !== 'pointerleave',
        pointerId: 1,
        pointerType: 'mouse',
        isPrimary: true,
        width: 1,
        height: 1,
        pressure: buttons ? 0.5 : 0,
      }),
    );
  }
  return el.dispatchEvent(new view.MouseEvent(type, init));
}

/** Where the synthetic pointer is, per document: what the last action hovered. */
const pointerAt = new WeakMap<Document, WeakRef<Element>>();

/** `el` and its composed ancestors, innermost first. */
function chainOf(el: Element): Element[] {
  const out: Element[] = [];
  for (let cur: Element | null = el; cur; cur = composedParent(cur)) out.push(cur);
  return out;
}

/**
 * The pointer moving onto `el`, with Chromium's boundary events: from where the previous
 * action left it, pointerout on that element and pointerleave on each of its ancestors the
 * pointer leaves (innermost first), pointerover on `el` and pointerenter on each ancestor it
 * enters (outermost first: a row's `mouseenter` fires when its button is the target), the same
 * for mouse events, then pointermove and mousemove. Over an element already under the pointer,
 * over/enter are sent again to `el` itself (a menu may have closed since).
 */
export function dispatchHover(el: Element, p: Point, mods: readonly Modifier[] = []): void {
  const doc = el.ownerDocument;
  const before = pointerAt.get(doc)?.deref();
  pointerAt.set(doc, new WeakRef(el));
  const prev = before && before !== el && before.isConnected ? before : null;
  const into = chainOf(el);
  const left = prev ? chainOf(prev).filter((a) => !into.includes(a)) : [];
  const prevChain = prev ? chainOf(prev) : [];
  const entered = before === el ? [el] : into.filter((a) => !prevChain.includes(a)).reverse();
  for (const kind of ['pointer', 'mouse']) {
    if (prev) {
      mouse(prev, `${kind}out`, p, 'left', 0, 0, mods, el);
      for (const a of left) mouse(a, `${kind}leave`, p, 'left', 0, 0, mods, el);
    }
    mouse(el, `${kind}over`, p, 'left', 0, 0, mods, prev);
    for (const a of entered) mouse(a, `${kind}enter`, p, 'left', 0, 0, mods, prev);
  }
  mouse(el, 'pointermove', p, 'left', 0, 0, mods);
  mouse(el, 'mousemove', p, 'left', 0, 0, mods);
}

/**
 * The event sequence of a real click, as Chromium dispatches it: hover, then per press
 * pointerdown, mousedown (focus moves unless prevented), pointerup, mouseup and click (or
 * auxclick) with `detail` counting the presses, then dblclick (detail 2) after the second, or
 * contextmenu. Activation behaviour (links, checkboxes, submit) follows from the dispatched
 * `click` itself. All are composed, so listeners outside a shadow root hear them.
 */
export function dispatchClick(
  el: Element,
  p: Point,
  button: MouseButton,
  clickCount: number,
  mods: readonly Modifier[],
  shadowOf: ShadowOf = (e) => e.shadowRoot,
): void {
  dispatchHover(el, p, mods);
  for (let n = 1; n <= clickCount; n++) {
    mouse(el, 'pointerdown', p, button, BUTTONS_MASK[button], n, mods);
    const down = mouse(el, 'mousedown', p, button, BUTTONS_MASK[button], n, mods);
    if (down && n === 1) focusForClick(el, shadowOf);
    mouse(el, 'pointerup', p, button, 0, n, mods);
    mouse(el, 'mouseup', p, button, 0, n, mods);
    if (button === 'left') mouse(el, 'click', p, button, 0, n, mods);
    else if (button === 'middle') mouse(el, 'auxclick', p, button, 0, n, mods);
  }
  if (button === 'right') mouse(el, 'contextmenu', p, button, 0, 1, mods);
  if (button === 'left' && clickCount >= 2) mouse(el, 'dblclick', p, button, 0, 2, mods);
}

/**
 * Focus what a mousedown would focus: the element or its nearest focusable composed ancestor
 * (through slots and shadow hosts). Over nothing focusable, a press blurs what had focus —
 * the blur an app's "commit on blur" editor relies on.
 */
export function focusForClick(el: Element, shadowOf: ShadowOf = (e) => e.shadowRoot): void {
  for (let cur: Element | null = el; cur; cur = composedParent(cur)) {
    const h = cur as HTMLElement;
    if (
      typeof h.focus === 'function' &&
      (h.tabIndex >= 0 || h.isContentEditable || h.hasAttribute('tabindex'))
    ) {
      if (deepActiveElement(el.ownerDocument, shadowOf) !== h) h.focus({ preventScroll: true });
      return;
    }
  }
  const active = deepActiveElement(el.ownerDocument, shadowOf) as HTMLElement | null;
  if (active && active !== el.ownerDocument.body && typeof active.blur === 'function')
    active.blur();
}

export interface KeySpec {
  key: string;
  code: string;
  keyCode: number;
  /** Text the key inserts (printable keys), if any. */
  text?: string;
  /** Typed with Shift on a US layout (capitals, `!`, `?`…): the events carry shiftKey. */
  shift?: boolean;
}

/** US-layout punctuation: [code, keyCode] of the key, and whether Shift gives this character. */
const PUNCTUATION: Record<string, [string, number, boolean]> = {};
for (const [code, keyCode, plain, shifted] of [
  ['Backquote', 192, '`', '~'],
  ['Minus', 189, '-', '_'],
  ['Equal', 187, '=', '+'],
  ['BracketLeft', 219, '[', '{'],
  ['BracketRight', 221, ']', '}'],
  ['Backslash', 220, '\\', '|'],
  ['Semicolon', 186, ';', ':'],
  ['Quote', 222, "'", '"'],
  ['Comma', 188, ',', '<'],
  ['Period', 190, '.', '>'],
  ['Slash', 191, '/', '?'],
  ['Digit1', 49, '', '!'],
  ['Digit2', 50, '', '@'],
  ['Digit3', 51, '', '#'],
  ['Digit4', 52, '', '$'],
  ['Digit5', 53, '', '%'],
  ['Digit6', 54, '', '^'],
  ['Digit7', 55, '', '&'],
  ['Digit8', 56, '', '*'],
  ['Digit9', 57, '', '('],
  ['Digit0', 48, '', ')'],
] as const) {
  if (plain) PUNCTUATION[plain] = [code, keyCode, false];
  PUNCTUATION[shifted] = [code, keyCode, true];
}

const KEY_CODES: Record<string, [string, number]> = {
  Enter: ['Enter', 13],
  Tab: ['Tab', 9],
  Escape: ['Escape', 27],
  Backspace: ['Backspace', 8],
  Delete: ['Delete', 46],
  ArrowUp: ['ArrowUp', 38],
  ArrowDown: ['ArrowDown', 40],
  ArrowLeft: ['ArrowLeft', 37],
  ArrowRight: ['ArrowRight', 39],
  Home: ['Home', 36],
  End: ['End', 35],
  PageUp: ['PageUp', 33],
  PageDown: ['PageDown', 34],
  ' ': ['Space', 32],
  Insert: ['Insert', 45],
  F1: ['F1', 112],
  F2: ['F2', 113],
  F3: ['F3', 114],
  F4: ['F4', 115],
  F5: ['F5', 116],
  F6: ['F6', 117],
  F7: ['F7', 118],
  F8: ['F8', 119],
  F9: ['F9', 120],
  F10: ['F10', 121],
  F11: ['F11', 122],
  F12: ['F12', 123],
};

/**
 * `Enter`, `a`, `ArrowDown`, `esc`… → the KeyboardEvent fields a page expects. Names go through
 * the Gatekeeper's own normalisation (key-names.ts): an alias only this side knew would run a
 * key the approval never judged.
 */
export function keySpec(name: string): KeySpec | null {
  const canonical = canonicalKey(name);
  if (canonical === null) return null;
  const named = Object.hasOwn(KEY_CODES, canonical) ? KEY_CODES[canonical] : undefined;
  if (named) {
    const [code, keyCode] = named;
    if (canonical === ' ') return { key: ' ', code, keyCode, text: ' ' };
    return { key: canonical, code, keyCode, text: canonical === 'Enter' ? '\r' : undefined };
  }
  if ([...canonical].length !== 1) return null;
  const ch = canonical;
  const upper = ch.toUpperCase();
  if (/^[a-z]$/i.test(ch))
    return {
      key: ch,
      code: `Key${upper}`,
      keyCode: upper.charCodeAt(0),
      text: ch,
      ...(ch !== ch.toLowerCase() ? { shift: true } : {}),
    };
  if (/[0-9]/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch };
  const punct = Object.hasOwn(PUNCTUATION, ch) ? PUNCTUATION[ch] : undefined;
  if (punct) {
    const [code, keyCode, shift] = punct;
    return { key: ch, code, keyCode, text: ch, ...(shift ? { shift } : {}) };
  }
  // Beyond a US keyboard (accented letters, other scripts): no physical key to name.
  return { key: ch, code: '', keyCode: 0, text: ch };
}

export function dispatchKey(
  el: Element,
  type: 'keydown' | 'keypress' | 'keyup',
  spec: KeySpec,
  mods: readonly Modifier[],
): boolean {
  const view = viewOf(el);
  const keyCode =
    type === 'keypress' ? (spec.text ?? '').charCodeAt(0) || spec.keyCode : spec.keyCode;
  return el.dispatchEvent(
    new view.KeyboardEvent(type, {
      key: spec.key,
      code: spec.code,
      keyCode,
      which: keyCode,
      charCode: type === 'keypress' ? keyCode : 0,
      bubbles: true,
      cancelable: true,
      composed: true,
      view,
      ...modifierInit(spec.shift && !mods.includes('Shift') ? [...mods, 'Shift'] : mods),
    }),
  );
}

/**
 * The cancelable `beforeinput` a real key sends before it edits (execCommand sends none): input
 * masks, editors and validating fields decide there. False when the page prevented it.
 */
export function beforeInput(el: Element, inputType: string, data: string | null): boolean {
  const view = (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
  return el.dispatchEvent(
    new view.InputEvent('beforeinput', {
      bubbles: true,
      cancelable: true,
      composed: true,
      inputType,
      data,
    }),
  );
}
