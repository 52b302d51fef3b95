/**
 * Which controls under a hidden element the snapshot lists as `[on hover]`: the element itself
 * when it is a control a `:hover` rule shows (TodoMVC's destroy button), or the controls inside
 * a container such a rule shows (a CSS menu's items) — those hidden on their own stay out. A
 * click on one applies that hover (actions/pointer.ts, dom/hover-reveal.ts). Hidden by anything
 * else (aria-hidden, [hidden], inert), or without such a rule, nothing is listed.
 */
import type { HoverRevealIndex } from '../dom/hover-reveal';
import { roleOf } from '../dom/roles';
import { hidesOwnText, isSubtreeHidden, type StyleCache } from '../dom/visibility';

/** Roles of the row actions and menu items a page shows only on :hover. */
const HOVER_ROLES = new Set(['button', 'link', 'menuitem', 'checkbox', 'switch', 'radio', 'tab']);
const CANDIDATES =
  'a[href], button, input:not([type=hidden]), ' +
  '[role=button], [role=link], [role=menuitem], [role=tab]';
/** A bound on what one hidden container adds to the snapshot. */
const MAX_PER_CONTAINER = 20;

export function hoverOnlyControls(
  el: Element,
  index: HoverRevealIndex,
  styles: StyleCache,
): { el: Element; role: string }[] {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return [];
  if ((el as HTMLElement).inert) return [];
  const role = roleOf(el);
  if (role && HOVER_ROLES.has(role)) return index.revealedOnHover(el) ? [{ el, role }] : [];
  if (!el.firstElementChild || !index.revealedOnHover(el)) return [];
  const out: { el: Element; role: string }[] = [];
  for (const c of Array.from(el.querySelectorAll(CANDIDATES))) {
    const inner = roleOf(c);
    if (!inner || !HOVER_ROLES.has(inner)) continue;
    let hidden = false;
    for (let p: Element | null = c; p && p !== el && !hidden; p = p.parentElement)
      hidden = isSubtreeHidden(p, styles.get(p));
    if (hidden) continue;
    out.push({ el: c, role: inner });
    if (out.length >= MAX_PER_CONTAINER) break;
  }
  return out;
}

/**
 * A hover-only control's text as it reads once shown: its text nodes, less those inside
 * descendants that stay hidden then too (display: none, invisible, tiny, transparent text), so
 * what a hover would not show never reaches the model. The hidden ancestor's display: none is
 * the one thing lifted.
 */
export function shownText(el: Element, styles: StyleCache): string {
  if (hidesOwnText(styles.get(el), null)) return '';
  let out = '';
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) out += (n as Text).data;
    if (n.nodeType !== 1) continue;
    const child = n as Element;
    if (isSubtreeHidden(child, styles.get(child))) continue;
    out += shownText(child, styles);
  }
  return out;
}
