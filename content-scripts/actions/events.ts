import { composedParent, deepActiveElement, type ShadowOf } from '../dom/composed';

/**
 * Synthetic input events, built with the element's own window constructors (same-origin iframes
 * have their own realm). Pages see isTrusted false; the debugger tier exists for pages that care.
 */

import type { KeySpec } from './key-spec';

export { keySpec, type KeySpec } from './key-spec';

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
        // Chromium's pointer events carry no click count: detail is 0.
        detail: 0,
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
 * The event sequence of a real click, as Chromium on Linux dispatches it: hover, then per press
 * pointerdown, mousedown (focus moves unless prevented), contextmenu for the right button,
 * pointerup, mouseup, then click (left) or auxclick (middle, right); mouse events carry
 * `detail` counting the presses, pointer events 0; dblclick (detail 2) after the second left
 * press. Checked against trusted input (test/e2e/tools/frameworks-input.test.ts). Activation behaviour (links, checkboxes, submit) follows from the dispatched
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
    // Chromium on Linux and macOS opens the context menu on the press (Windows: on release).
    if (button === 'right') mouse(el, 'contextmenu', p, button, BUTTONS_MASK[button], 0, mods);
    mouse(el, 'pointerup', p, button, 0, n, mods);
    mouse(el, 'mouseup', p, button, 0, n, mods);
    if (button === 'left') mouse(el, 'click', p, button, 0, n, mods);
    else mouse(el, 'auxclick', p, button, 0, n, mods);
  }
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
