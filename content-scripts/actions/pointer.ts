/**
 * Pointer actions on a ref: click, hover, focus, and locating an element for the debugger tier.
 * Each checks the element first (visible, enabled, not covered by something else) so a click
 * never silently lands on an overlay, and returns before dispatching (see PageAgent: a dialog
 * opened by the click would otherwise block the reply).
 */
import type { AgentContext } from '../agent-context';
import { isDisabled } from '../dom/state';
import type { ActionAck, FrameLocation, LocateResult } from '../../src/protocol/page-messages';
import {
  centerOf,
  dispatchClick,
  dispatchHover,
  focusForClick,
  type Modifier,
  type MouseButton,
  type Point,
} from './events';
import { describeElement } from './describe';
import { sameSize, urlScore } from '../frame-url';
import { composedContains, deepElementFromPoint, type ShadowOf } from '../dom/composed';
import { emulateHover, type HoverEmulation } from '../dom/hover-reveal';

export interface Deferred<R> {
  result: R;
  /** Runs after the reply is sent; may span several tasks (its promise settles when done). */
  run?: () => void | Promise<void>;
  /** The document the action happens in (a same-origin iframe's, for its elements). */
  doc?: Document;
}

/** Scrolls the element into view when it is not fully visible, then returns its centre. */
export function bringIntoView(el: Element): Point {
  const r = el.getBoundingClientRect();
  const win = el.ownerDocument.defaultView ?? window;
  const inView =
    r.top >= 0 && r.left >= 0 && r.bottom <= win.innerHeight && r.right <= win.innerWidth;
  if (!inView) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  return centerOf(el);
}

export function assertActionable(ctx: AgentContext, el: Element, ref: string): void {
  const h = el as HTMLElement;
  const visible =
    typeof h.checkVisibility !== 'function' ||
    h.checkVisibility({ visibilityProperty: true, opacityProperty: false });
  const r = el.getBoundingClientRect();
  if (!visible || (r.width === 0 && r.height === 0)) {
    const label = el.localName === 'input' && (el as HTMLInputElement).labels?.[0];
    if (!label)
      ctx.fail(
        'not_actionable',
        `Element ${ref} is not visible. Take a new browser_snapshot; it may be inside a closed menu or collapsed section.`,
      );
  }
  if (isDisabled(el))
    ctx.fail('not_actionable', `Element ${ref} (${describeElement(el)}) is disabled.`);
}

/**
 * Where a pointer at `p` lands when aiming at `el`: the deepest element there (through shadow
 * roots), when it is `el`, inside it, or its label or control; `covered` with what is on top
 * otherwise. A real user's events go to that hit element, so synthetic ones do too.
 */
export type PointerHit =
  | { kind: 'hit'; target: Element }
  | { kind: 'covered'; by: Element }
  | { kind: 'missed' };

export function pointerHit(el: Element, p: Point, shadowOf: ShadowOf): PointerHit {
  const hit = deepElementFromPoint(el.ownerDocument, p.x, p.y, shadowOf);
  if (!hit) return { kind: 'missed' };
  if (composedContains(el, hit)) return { kind: 'hit', target: hit };
  if (composedContains(hit, el)) return { kind: 'hit', target: el };
  const labels = (el as HTMLInputElement).labels;
  if (labels && Array.from(labels).some((l) => composedContains(l, hit)))
    return { kind: 'hit', target: hit };
  if (hit.localName === 'label' && (hit as HTMLLabelElement).control === el)
    return { kind: 'hit', target: hit };
  const label = el.closest('label');
  if (label && composedContains(label, hit)) return { kind: 'hit', target: hit };
  return { kind: 'covered', by: hit };
}

/** What covers the point, when it is not the element, its descendant, its label or its control. */
export function coveringElement(
  el: Element,
  p: Point,
  shadowOf: ShadowOf = (e) => e.shadowRoot,
): Element | null {
  const hit = pointerHit(el, p, shadowOf);
  return hit.kind === 'covered' ? hit.by : null;
}

export function click(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
  button: MouseButton,
  clickCount: number,
  modifiers: Modifier[],
  force: boolean,
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  const hover = revealByHover(el);
  try {
    return clickShown(ctx, el, ref, button, clickCount, modifiers, force, hover);
  } catch (e) {
    hover?.restore();
    throw e;
  }
}

function isShown(el: Element): boolean {
  const h = el as HTMLElement;
  return typeof h.checkVisibility !== 'function' || h.checkVisibility({ visibilityProperty: true });
}

/**
 * A control the page shows only while the pointer is over it or its row (a `:hover` rule): a
 * user's pointer on the way to it hovers that chain, so the page's hover rules are applied for
 * the action. Null when the element is shown anyway, or hover does not show it either (then the
 * usual "not visible" error follows).
 */
function revealByHover(el: Element): HoverEmulation | null {
  if (isShown(el)) return null;
  const hover = emulateHover(el);
  if (isShown(el)) return hover;
  hover.restore();
  return null;
}

function clickShown(
  ctx: AgentContext,
  el: Element,
  ref: string,
  button: MouseButton,
  clickCount: number,
  modifiers: Modifier[],
  force: boolean,
  hover: HoverEmulation | null,
): Deferred<ActionAck> {
  assertActionable(ctx, el, ref);
  let target = el;
  // A hidden control styled through its label (CSS-only toggles) is clicked through the label.
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) {
    const label = (el as HTMLInputElement).labels?.[0];
    if (label) target = label;
  }
  const p = bringIntoView(target);
  const shadowOf: ShadowOf = (e) => ctx.env.shadowRootOf(e);
  const hit = pointerHit(target, p, shadowOf);
  if (hit.kind === 'covered' && !force) {
    const coverRef = ctx.registry.peek(hit.by);
    ctx.fail(
      'not_actionable',
      `Element ${ref} is covered by ${describeElement(hit.by)}${coverRef ? ` [ref=${ctx.refPrefix}${coverRef}]` : ''} ` +
        '(an overlay, banner or dialog). Close or dismiss it first, or retry with force: true to click anyway. ' +
        'Synthetic input (L1) never clicks what is on top instead; browser_mouse (L2, trusted input) clicks the point itself.',
    );
  }
  if (hit.kind === 'missed' && !force) {
    ctx.fail(
      'not_actionable',
      `Element ${ref} is not under the pointer after scrolling it into view (outside the viewport). Take a new browser_snapshot, or use browser_mouse (L2).`,
    );
  }
  // The events go where a user's would: the deepest element under the point (a button's icon,
  // the label text a double-click edits), which lies inside the target.
  const eventTarget = hit.kind === 'hit' ? hit.target : target;
  const element = ctx.report(el);
  ctx.highlighter.show(
    target.getBoundingClientRect(),
    `click ${element.name ? `"${element.name.slice(0, 40)}"` : element.role}`,
  );
  return {
    result: { docId: ctx.registry.docId, url: ctx.env.win.location.href, element },
    run: () => {
      try {
        dispatchClick(eventTarget, p, button, clickCount, modifiers, shadowOf);
      } finally {
        hover?.restore();
      }
    },
    doc: target.ownerDocument,
  };
}

export function hover(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  assertActionable(ctx, el, ref);
  bringIntoView(el);
  const element = ctx.report(el);
  ctx.highlighter.show(el.getBoundingClientRect(), 'hover');
  return {
    result: { docId: ctx.registry.docId, url: ctx.env.win.location.href, element },
    run: () => dispatchHover(el, centerOf(el)),
    doc: el.ownerDocument,
  };
}

export function focus(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  bringIntoView(el);
  return {
    result: { docId: ctx.registry.docId, url: ctx.env.win.location.href, element: ctx.report(el) },
    run: () => focusForClick(el),
  };
}

/**
 * For trusted input: scroll into view and give the centre in this frame's viewport. A hover-only
 * control is measured with its hover applied: that is where it shows once the real pointer,
 * moving there, hovers its row. Hidden otherwise, it is an error — never the point (0, 0).
 */
export function locate(ctx: AgentContext, ref: string, docId: string | undefined): LocateResult {
  const el = ctx.resolve(ref, docId);
  const hover = revealByHover(el);
  try {
    if (!isShown(el))
      ctx.fail(
        'not_actionable',
        `Element ${ref} is not visible. Take a new browser_snapshot; it may be inside a closed menu or collapsed section.`,
      );
    return locateShown(ctx, el);
  } finally {
    hover?.restore();
  }
}

function locateShown(ctx: AgentContext, el: Element): LocateResult {
  const p = bringIntoView(el);
  const offset = frameOffset(el);
  const r = el.getBoundingClientRect();
  ctx.highlighter.show({ x: r.x + offset.x, y: r.y + offset.y, width: r.width, height: r.height });
  return {
    x: p.x + offset.x,
    y: p.y + offset.y,
    box: { x: r.x + offset.x, y: r.y + offset.y, width: r.width, height: r.height },
    element: ctx.report(el),
  };
}

/** Offset of a same-origin iframe's viewport within the top document of this content script. */
function frameOffset(el: Element): Point {
  let x = 0;
  let y = 0;
  let win = el.ownerDocument.defaultView;
  while (win && win.frameElement) {
    const frame = win.frameElement;
    const r = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView?.getComputedStyle(frame);
    x += r.left + (frame.clientLeft || 0) + parseFloat(style?.paddingLeft ?? '0');
    y += r.top + (frame.clientTop || 0) + parseFloat(style?.paddingTop ?? '0');
    win = frame.ownerDocument.defaultView;
  }
  return { x, y };
}

/**
 * Where the iframe showing `url` (a cross-origin frame, identified by the service worker) starts
 * in this frame's viewport: best URL match, size as tie-breaker, same-origin subframes included.
 */
export function locateFrame(
  ctx: AgentContext,
  url: string,
  width: number,
  height: number,
): FrameLocation {
  let best: { score: number; at: FrameLocation } | null = null;
  const visit = (doc: Document, dx: number, dy: number) => {
    for (const frame of Array.from(doc.querySelectorAll<HTMLIFrameElement>('iframe, frame'))) {
      const r = frame.getBoundingClientRect();
      const style = (doc.defaultView ?? window).getComputedStyle(frame);
      const x = dx + r.left + frame.clientLeft + parseFloat(style.paddingLeft);
      const y = dy + r.top + frame.clientTop + parseFloat(style.paddingTop);
      let inner: Document | null = null;
      try {
        inner = frame.contentDocument;
      } catch {
        inner = null;
      }
      if (inner) {
        visit(inner, x, y);
        continue;
      }
      const score =
        urlScore(frame.src, url) +
        (sameSize(frame.clientWidth, frame.clientHeight, width, height) ? 1.5 : 0);
      if (score > 0 && (!best || score > best.score)) best = { score, at: { x, y } };
    }
  };
  visit(ctx.doc, 0, 0);
  const found = best as { score: number; at: FrameLocation } | null;
  if (!found)
    return ctx.fail(
      'not_found',
      'The frame is no longer on the page. Take a new browser_snapshot.',
    );
  return found.at;
}

const MARK_ATTR = 'data-keel-mark';

/** Tags the element so the debugger can find its DOM node (file upload), until unmarked. */
export function mark(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
  token: string,
): ActionAck {
  const el = ctx.resolve(ref, docId);
  el.setAttribute(MARK_ATTR, token);
  return { docId: ctx.registry.docId, url: ctx.env.win.location.href, element: ctx.report(el) };
}

export function unmark(ctx: AgentContext, token: string): { removed: number } {
  const marked = Array.from(ctx.doc.querySelectorAll(`[${MARK_ATTR}="${token}"]`));
  for (const el of marked) el.removeAttribute(MARK_ATTR);
  return { removed: marked.length };
}
