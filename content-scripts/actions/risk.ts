/**
 * What an action without a ref would act on, for the approval decision: the focused element (a
 * key press) or the element under a point (a click at coordinates). A payment form's submit, a
 * download link or a link to another site must ask whichever way the model reaches it.
 */
import type { AgentContext } from '../agent-context';
import type { ElementReport } from '../../src/protocol/page-messages';

export interface RiskReport {
  docId: string;
  url: string;
  element?: ElementReport;
  /** The element is in a frame this document cannot look into (cross-origin). */
  inFrame?: boolean;
  /** This document has the keyboard focus (the frame a key press goes to). */
  hasFocus?: boolean;
}

const ACTIVATABLE =
  'a[href], area[href], button, input, select, textarea, summary, label, [role=button], [role=link]';

/** Same-origin frames are looked into; a cross-origin one is reported as a frame. */
function frameDocument(el: Element): Document | null {
  if (el.localName !== 'iframe' && el.localName !== 'frame') return null;
  try {
    return (el as HTMLIFrameElement).contentDocument;
  } catch {
    return null;
  }
}

/** The focused element through shadow roots and same-origin frames (inFrame: cross-origin). */
export function deepActive(
  ctx: AgentContext,
  doc: Document,
): { el: Element | null; inFrame: boolean } {
  let el: Element | null = doc.activeElement;
  for (let hops = 0; el && hops < 20; hops++) {
    const shadow = ctx.env.shadowRootOf(el);
    if (shadow?.activeElement) {
      el = shadow.activeElement;
      continue;
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      const inner = frameDocument(el);
      if (!inner) return { el, inFrame: true };
      el = inner.activeElement;
      continue;
    }
    break;
  }
  return { el, inFrame: false };
}

function result(ctx: AgentContext, el: Element | null, inFrame: boolean): RiskReport {
  const out: RiskReport = { docId: ctx.registry.docId, url: ctx.env.win.location.href };
  if (inFrame) out.inFrame = true;
  else if (el && el !== ctx.doc.body && el !== ctx.doc.documentElement)
    out.element = ctx.report(el.closest(ACTIVATABLE) ?? el);
  return out;
}

export function describeFocused(ctx: AgentContext): RiskReport {
  const { el, inFrame } = deepActive(ctx, ctx.doc);
  return { ...result(ctx, el, inFrame), hasFocus: ctx.doc.hasFocus() };
}

export function describeAt(ctx: AgentContext, x: number, y: number): RiskReport {
  let doc: Document | ShadowRoot = ctx.doc;
  let px = x;
  let py = y;
  let el: Element | null = null;
  for (let hops = 0; hops < 20; hops++) {
    const hit: Element | null = doc.elementFromPoint(px, py);
    if (!hit || hit === el) break;
    el = hit;
    const shadow = ctx.env.shadowRootOf(hit);
    if (shadow) {
      doc = shadow;
      continue;
    }
    if (hit.localName === 'iframe' || hit.localName === 'frame') {
      const inner = frameDocument(hit);
      if (!inner) return result(ctx, hit, true);
      const r = hit.getBoundingClientRect();
      px -= r.left + hit.clientLeft;
      py -= r.top + hit.clientTop;
      doc = inner;
      continue;
    }
    break;
  }
  return result(ctx, el, false);
}
