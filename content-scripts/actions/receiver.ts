/**
 * Which document receives input at this instant (docs/permissions.md "Receiver checks at
 * dispatch"): the one under a viewport point (a trusted click), or the one holding the keyboard
 * focus (a key). The service worker asks this just before each event it dispatches and judges
 * the answer's origin; the page may have moved a frame over the button, or focus into a frame,
 * since the call was judged.
 *
 * The walk follows what the browser's own hit test and focus follow: shadow roots (open or
 * closed) and frames. A frame this document can look into (same origin: about:blank, srcdoc, a
 * same-origin page) is walked here; a frame it cannot is handed back with its frame path (the
 * indexes of `window.frames` from the top, which the browser maintains and a page cannot forge)
 * and the point in that frame's viewport, and the service worker asks that frame's own script.
 */
import type { AgentContext } from '../agent-context';

export interface ReceiverReport {
  /**
   * The receiving document's origin as the browser enforces it (`window.origin`): an about:blank
   * or srcdoc frame has its creator's, a sandboxed one "null".
   */
  origin: string;
  url: string;
  /** The input continues into a frame this document cannot look into. */
  frame?: { path: number[]; x: number; y: number };
  /** For a focus walk: whether this document has the keyboard focus at all. */
  hasFocus?: boolean;
  /** The element, as the page names it (for the approval card only, never judged). */
  element?: { role: string; name: string };
}

const isFrame = (el: Element) => el.localName === 'iframe' || el.localName === 'frame';

function innerDocument(el: Element): Document | null {
  try {
    return (el as HTMLIFrameElement).contentDocument;
  } catch {
    return null;
  }
}

function originOf(doc: Document): string {
  return doc.defaultView?.origin ?? 'null';
}

function report(
  doc: Document,
  el: Element | null,
  extra: Partial<ReceiverReport> = {},
): ReceiverReport {
  const out: ReceiverReport = { origin: originOf(doc), url: doc.URL, ...extra };
  if (el && el !== doc.body && el !== doc.documentElement) out.element = nameOf(el);
  return out;
}

/** A short description for the approval card (no ref is handed out: this is not a snapshot). */
function nameOf(el: Element): { role: string; name: string } {
  const label = el.getAttribute('aria-label') ?? el.getAttribute('title') ?? el.textContent ?? '';
  return {
    role: el.getAttribute('role') ?? el.localName,
    name: label.replace(/\s+/g, ' ').trim().slice(0, 80),
  };
}

/**
 * Where a window sits in the tab's frame tree: its index in its parent's `frames`, up to the top.
 * Cross-origin windows allow exactly these reads (parent, top, frames, length, identity).
 */
export function framePath(win: Window): number[] {
  const path: number[] = [];
  let w: Window = win;
  for (let depth = 0; w !== w.parent && depth < 32; depth++) {
    const parent = w.parent;
    let index = -1;
    for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === w) index = i;
    path.unshift(index);
    w = parent;
  }
  return path;
}

/** The path of a frame element's window (empty when it has none: not yet attached). */
function pathOfFrame(frame: Element): number[] {
  const owner = frame.ownerDocument.defaultView;
  const child = (frame as HTMLIFrameElement).contentWindow;
  if (!owner || !child) return [];
  let index = -1;
  for (let i = 0; i < owner.frames.length; i++) if (owner.frames[i] === child) index = i;
  return index < 0 ? [] : [...framePath(owner), index];
}

/** A frame the walk cannot enter: its path and the point in its viewport. */
function handOff(frame: Element, x: number, y: number) {
  const r = frame.getBoundingClientRect();
  const style = frame.ownerDocument.defaultView?.getComputedStyle(frame);
  const padLeft = Number.parseFloat(style?.paddingLeft ?? '0') || 0;
  const padTop = Number.parseFloat(style?.paddingTop ?? '0') || 0;
  return {
    path: pathOfFrame(frame),
    x: x - r.left - frame.clientLeft - padLeft,
    y: y - r.top - frame.clientTop - padTop,
  };
}

/** The document and element a trusted mouse event at (x, y) of this frame's viewport lands on. */
export function receiverAt(ctx: AgentContext, x: number, y: number): ReceiverReport {
  let doc: Document = ctx.doc;
  let scope: Document | ShadowRoot = doc;
  let px = x;
  let py = y;
  let el: Element | null = null;
  for (let hops = 0; hops < 40; hops++) {
    const hit: Element | null = scope.elementFromPoint(px, py);
    if (!hit || hit === el) break;
    el = hit;
    const shadow = ctx.env.shadowRootOf(hit);
    if (shadow) {
      scope = shadow;
      continue;
    }
    if (isFrame(hit)) {
      const inner = innerDocument(hit);
      if (!inner) return report(doc, hit, { frame: handOff(hit, px, py) });
      const r = hit.getBoundingClientRect();
      px -= r.left + hit.clientLeft;
      py -= r.top + hit.clientTop;
      doc = inner;
      scope = inner;
      el = null;
      continue;
    }
    break;
  }
  return report(doc, el);
}

/** The document and element a key pressed now goes to. */
export function focusedReceiver(ctx: AgentContext): ReceiverReport {
  let doc: Document = ctx.doc;
  const hasFocus = doc.hasFocus();
  let el: Element | null = doc.activeElement;
  for (let hops = 0; el && hops < 40; hops++) {
    const shadow = ctx.env.shadowRootOf(el);
    if (shadow?.activeElement) {
      el = shadow.activeElement;
      continue;
    }
    if (isFrame(el)) {
      const inner = innerDocument(el);
      if (!inner) {
        return report(doc, el, { hasFocus, frame: { path: pathOfFrame(el), x: 0, y: 0 } });
      }
      doc = inner;
      el = inner.activeElement;
      continue;
    }
    break;
  }
  return report(doc, el, { hasFocus });
}
