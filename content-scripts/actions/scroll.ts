/**
 * Scrolling: the page (or, when the page itself does not scroll, its main scroll container), an
 * element's own scroll area, to a ref, or to the first visible occurrence of a text.
 */
import type { AgentContext } from '../agent-context';
import { clip, normalizeSpace } from '../dom/text';

export type ScrollDirection = 'up' | 'down' | 'left' | 'right' | 'top' | 'bottom';

export interface ScrollResult {
  docId: string;
  /** What moved and where it ended. */
  note: string;
  /** Ref of the element scrolled to (text search), for the model to act on. */
  ref?: string;
  x: number;
  y: number;
  maxY: number;
  atTop: boolean;
  atBottom: boolean;
}

export function scroll(
  ctx: AgentContext,
  opts: {
    ref?: string;
    docId?: string;
    toRef: boolean;
    text?: string;
    direction: ScrollDirection;
    amount: number;
  },
): ScrollResult {
  if (opts.text !== undefined) return scrollToText(ctx, opts.text);
  if (opts.ref !== undefined) {
    const el = ctx.resolve(opts.ref, opts.docId);
    if (opts.toRef) {
      el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      ctx.highlighter.show(el.getBoundingClientRect());
      return position(ctx, `scrolled ${opts.ref} into view`, scrollerOfPage(ctx));
    }
    const target = scrollableAncestorOrSelf(el) ?? el;
    scrollBox(target, opts.direction, opts.amount);
    return position(ctx, `scrolled ${opts.ref} ${opts.direction}`, target);
  }
  const scroller = scrollerOfPage(ctx);
  scrollBox(scroller, opts.direction, opts.amount);
  return position(ctx, `scrolled the page ${opts.direction}`, scroller);
}

/** The element that scrolls the page: the document, or the largest scrollable box of app-like layouts. */
function scrollerOfPage(ctx: AgentContext): Element {
  const doc = ctx.doc;
  const root = doc.scrollingElement ?? doc.documentElement;
  if (root.scrollHeight > root.clientHeight + 1) return root;
  let best: Element | null = null;
  let bestArea = 0;
  for (const el of Array.from(doc.body?.querySelectorAll('*') ?? []).slice(0, 20_000)) {
    if (el.scrollHeight <= el.clientHeight + 1 || el.clientHeight < 100) continue;
    const oy = ctx.env.win.getComputedStyle(el).overflowY;
    if (oy !== 'auto' && oy !== 'scroll') continue;
    const area = el.clientWidth * el.clientHeight;
    if (area > bestArea) {
      best = el;
      bestArea = area;
    }
  }
  return best ?? root;
}

function scrollableAncestorOrSelf(el: Element): Element | null {
  for (let cur: Element | null = el; cur; cur = cur.parentElement) {
    if (cur.scrollHeight > cur.clientHeight + 1 || cur.scrollWidth > cur.clientWidth + 1) {
      const style = (cur.ownerDocument.defaultView ?? window).getComputedStyle(cur);
      if (/(auto|scroll)/.test(style.overflowY + style.overflowX)) return cur;
    }
  }
  return null;
}

function scrollBox(el: Element, direction: ScrollDirection, amount: number): void {
  const isRoot = el === el.ownerDocument.scrollingElement;
  const win = el.ownerDocument.defaultView ?? window;
  const pageY = (isRoot ? win.innerHeight : el.clientHeight) * 0.85 * amount;
  const pageX = (isRoot ? win.innerWidth : el.clientWidth) * 0.85 * amount;
  const opts = (top: number, left: number): ScrollToOptions => ({ top, left, behavior: 'instant' });
  switch (direction) {
    case 'down':
      el.scrollBy(opts(pageY, 0));
      break;
    case 'up':
      el.scrollBy(opts(-pageY, 0));
      break;
    case 'right':
      el.scrollBy(opts(0, pageX));
      break;
    case 'left':
      el.scrollBy(opts(0, -pageX));
      break;
    case 'top':
      el.scrollTo(opts(0, el.scrollLeft));
      break;
    case 'bottom':
      el.scrollTo(opts(el.scrollHeight, el.scrollLeft));
      break;
  }
}

function position(ctx: AgentContext, note: string, scroller: Element, ref?: string): ScrollResult {
  const y = Math.round(scroller.scrollTop);
  const maxY = Math.max(0, Math.round(scroller.scrollHeight - scroller.clientHeight));
  return {
    docId: ctx.registry.docId,
    note,
    ref,
    x: Math.round(scroller.scrollLeft),
    y,
    maxY,
    atTop: y <= 1,
    atBottom: y >= maxY - 1,
  };
}

function scrollToText(ctx: AgentContext, text: string): ScrollResult {
  const needle = normalizeSpace(text).toLowerCase();
  const body = ctx.doc.body;
  if (!body) ctx.fail('not_found', 'The page has no body.');
  const walker = ctx.doc.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (
      !parent ||
      !normalizeSpace(n.nodeValue ?? '')
        .toLowerCase()
        .includes(needle)
    )
      continue;
    if (!parent.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    if (parent.closest('[aria-hidden=true]')) continue;
    parent.scrollIntoView({ block: 'center', behavior: 'instant' });
    ctx.highlighter.show(parent.getBoundingClientRect());
    const ref = ctx.refPrefix + ctx.registry.refFor(parent);
    return position(
      ctx,
      `scrolled to "${clip(normalizeSpace(n.nodeValue ?? ''), 80)}" (element ${ref})`,
      scrollerOfPage(ctx),
      ref,
    );
  }
  return ctx.fail(
    'not_found',
    `Text "${clip(text, 80)}" is not visible on the page. Check the spelling, or use browser_find.`,
  );
}
