/**
 * browser_find: locate text or elements without a full snapshot. Element search matches the
 * accessible name (and placeholder, value, link target) of visible controls; text search returns
 * snippets with the ref of the element that holds them, or of the control they belong to.
 * Matches carry refs in the snapshot format, so the model can act on them right away.
 */
import type { AgentContext } from './agent-context';
import { actionableOf } from './dom/interactive';
import { accessibleName } from './dom/names';
import { roleOf } from './dom/roles';
import { clip, normalizeSpace, quote } from './dom/text';
import { isClippedAway, isCollapsedBox, isOffscreen, isSubtreeHidden, StyleCache, type Viewport } from './dom/visibility';
import { TextEnv } from './snapshot/text-env';

export interface FindResult {
  docId: string;
  matches: string[];
  total: number;
}

const CANDIDATES =
  'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[role],[tabindex],[contenteditable],[onclick],label';

export function find(ctx: AgentContext, query: string, kind: 'text' | 'element', role: string | undefined, limit: number): FindResult {
  const words = normalizeSpace(query).toLowerCase().split(' ').filter(Boolean);
  const styles = new StyleCache();
  return kind === 'element' ? findElements(ctx, words, role?.toLowerCase(), limit, styles) : findText(ctx, words, limit);
}

function isShown(el: Element): boolean {
  if (el.closest('[aria-hidden=true]')) return false;
  if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  return r.width > 1 && r.height > 1 && textEnvOf(el) !== null;
}

// ---- hidden text: the snapshot's rules (dom/visibility.ts), so find cannot leak what it drops ----

function viewportOf(doc: Document): Viewport {
  const win = doc.defaultView ?? window;
  return { width: win.innerWidth, height: win.innerHeight, scrollX: win.scrollX, scrollY: win.scrollY, docWidth: doc.documentElement.scrollWidth };
}

function styleOf(el: Element): CSSStyleDeclaration {
  return (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
}

/** Hidden with everything inside it, or a box that shows nothing (clipped away, off the page). */
function boxHidden(el: Element, style: CSSStyleDeclaration, vp: Viewport): boolean {
  if (isSubtreeHidden(el, style)) return true;
  const position = style.position || 'static';
  const r = el.getBoundingClientRect();
  const box = { x: r.x, y: r.y, width: r.width, height: r.height };
  return isCollapsedBox(style, box) || isClippedAway(style, position, box) || isOffscreen(position, box, vp);
}

/**
 * The readability of `el`'s own text (background colour, tiny fonts…), built from the root
 * down; null when `el` or an ancestor hides it (off-screen, clipped, collapsed, hidden).
 */
function textEnvOf(el: Element): TextEnv | null {
  const vp = viewportOf(el.ownerDocument);
  const chain: Element[] = [];
  for (let p: Element | null = el; p; ) {
    chain.unshift(p);
    const root = p.getRootNode();
    p = p.parentElement ?? (root instanceof ShadowRoot ? root.host : null);
  }
  let env = new TextEnv(null, null);
  for (const a of chain) {
    const style = styleOf(a);
    if (boxHidden(a, style, vp)) return null;
    env = new TextEnv(style, env);
  }
  return env;
}

/** The visible part of `el`'s own text (its text nodes and inline children), as ownText builds it. */
function visibleOwnText(el: Element): string {
  const env = textEnvOf(el);
  if (!env) return '';
  const vp = viewportOf(el.ownerDocument);
  // At the top, like ownText: text nodes and inline children; inside those, everything visible.
  const visit = (node: Element, nodeEnv: TextEnv, top: boolean): string => {
    let s = '';
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        if (!nodeEnv.hidden) s += c.nodeValue;
        continue;
      }
      if (c.nodeType !== 1) continue;
      const child = c as Element;
      if (top && !INLINE_TAGS.has(child.localName)) continue;
      const style = styleOf(child);
      if (boxHidden(child, style, vp)) continue;
      s += visit(child, new TextEnv(style, nodeEnv), false);
    }
    return s;
  };
  return normalizeSpace(visit(el, env, true));
}

function where(el: Element): string {
  const r = el.getBoundingClientRect();
  const win = el.ownerDocument.defaultView ?? window;
  if (r.bottom < 0) return ' (above the viewport)';
  if (r.top > win.innerHeight) return ' (below the viewport)';
  return '';
}

/** Every word of the query appears (case-insensitive) in the haystack. */
function matches(hay: string, words: string[]): boolean {
  const h = hay.toLowerCase();
  return words.every((w) => h.includes(w));
}

function* allElements(root: Document | ShadowRoot | Element, selector: string, ctx: AgentContext): Generator<Element> {
  for (const el of Array.from(root.querySelectorAll(selector))) yield el;
  // Open (and, in the extension, closed) shadow roots hold controls too.
  for (const host of Array.from(root.querySelectorAll('*'))) {
    const shadow = ctx.env.shadowRootOf(host);
    if (shadow) yield* allElements(shadow, selector, ctx);
  }
}

function findElements(ctx: AgentContext, words: string[], role: string | undefined, limit: number, styles: StyleCache): FindResult {
  const out: string[] = [];
  let total = 0;
  for (const el of allElements(ctx.doc, CANDIDATES, ctx)) {
    // Cheap prefilter before the accessible-name computation, which walks the subtree.
    const rough = `${el.textContent ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''} ${
      el.getAttribute('placeholder') ?? ''} ${(el as HTMLInputElement).value ?? ''} ${el.getAttribute('alt') ?? ''} ${
      el.getAttribute('href') ?? ''} ${labelText(el)} ${el.getAttribute('aria-labelledby') ? '*' : ''}`;
    if (!rough.includes('*') && !matches(rough, words)) continue;
    const r = roleOf(el);
    const style = styles.get(el);
    const act = actionableOf(el, r, style, false);
    if (!act) continue;
    if (role && act.role !== role) continue;
    if (!isShown(el)) continue;
    const name = accessibleName(el, styles);
    const extra = `${el.getAttribute('placeholder') ?? ''} ${(el as HTMLInputElement).value ?? ''} ${
      el.localName === 'a' ? (el.getAttribute('href') ?? '') : ''}`;
    if (!matches(`${name} ${extra}`, words)) continue;
    total++;
    if (out.length >= limit) continue;
    const report = ctx.report(el);
    const href = el.localName === 'a' ? ` -> ${clip((el as HTMLAnchorElement).href, 120)}` : '';
    out.push(`${report.line.replace(/^- [a-z]+/, `- ${act.role}`)}${href}${where(el)}`);
  }
  return { docId: ctx.registry.docId, matches: out, total };
}

function labelText(el: Element): string {
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels, (l) => l.textContent ?? '').join(' ') : '';
}

function findText(ctx: AgentContext, words: string[], limit: number): FindResult {
  const out: string[] = [];
  let total = 0;
  const body = ctx.doc.body;
  if (!body) return { docId: ctx.registry.docId, matches: out, total };
  const seen = new Set<Element>();
  const walker = ctx.doc.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n as Element;
    if (el.localName === 'script' || el.localName === 'style' || el.localName === 'noscript') continue;
    // Match on blocks whose own text (not a child block's) contains the words.
    const raw = ownText(el);
    if (!raw || !matches(raw, words)) continue;
    if (seen.has(el) || !isShown(el)) continue;
    // Only now (few elements get here) the costly part: drop text a sighted user cannot see.
    const own = visibleOwnText(el);
    if (!own || !matches(own, words)) continue;
    seen.add(el);
    total++;
    if (out.length >= limit) continue;
    // Text of a label belongs to its control; text inside a control to the control.
    const control = el.closest('label')?.control ?? el.closest(CANDIDATES.replace(',label', ''));
    const target = control && actionableOf(control, roleOf(control), new StyleCache().get(control), false) ? control : el;
    const ref = ctx.refPrefix + ctx.registry.refFor(target);
    const snippet = snippetAround(own, words[0] ?? '');
    const context = target === el ? nearestHeading(el) : ` in ${ctx.report(target).line.slice(2)}`;
    out.push(`- text ${quote(snippet)} [ref=${ref}]${context}${where(el)}`);
  }
  return { docId: ctx.registry.docId, matches: out, total };
}

const INLINE_TAGS = new Set(['a', 'b', 'i', 'em', 'strong', 'span', 'code', 'mark', 'small', 'abbr', 'sup', 'sub', 'u', 'time', 'label']);

function ownText(el: Element): string {
  let s = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) s += c.nodeValue;
    else if (c.nodeType === 1) {
      const tag = (c as Element).localName;
      // Inline children are part of the block's text; block children are matched on their own.
      if (INLINE_TAGS.has(tag)) {
        s += c.textContent;
      }
    }
  }
  return normalizeSpace(s);
}

function snippetAround(text: string, word: string): string {
  const i = text.toLowerCase().indexOf(word);
  if (text.length <= 160 || i < 0) return clip(text, 160);
  const start = Math.max(0, i - 60);
  return `${start > 0 ? '…' : ''}${clip(text.slice(start), 150)}`;
}

function nearestHeading(el: Element): string {
  const section = el.closest('section, article, main, nav, aside, form, dialog, [role=dialog]');
  const heading = section?.querySelector('h1, h2, h3, h4, h5, h6');
  if (!heading || heading === el) return '';
  return ` (under heading ${quote(clip(normalizeSpace(heading.textContent ?? ''), 60))})`;
}
