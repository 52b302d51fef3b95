/**
 * browser_find: locate text or elements without a full snapshot. Element search matches the
 * accessible name (and placeholder, value, link target) of visible controls; text search returns
 * snippets with the ref of the element that holds them, or of the control they belong to.
 * Matches carry refs in the snapshot format, so the model can act on them right away.
 */
import type { AgentContext } from './agent-context';
import { actionableOf } from './dom/interactive';
import { derivedNameOf } from './dom/derived-name';
import { accessibleName } from './dom/names';
import { roleOf } from './dom/roles';
import { clip, normalizeSpace, quote } from './dom/text';
import {
  isClippedAway,
  isCollapsedBox,
  isOffscreen,
  isSubtreeHidden,
  StyleCache,
  type Viewport,
} from './dom/visibility';
import { TextEnv } from './snapshot/text-env';
import {
  composedChildren,
  composedClosest,
  composedElements,
  composedParent,
  type ShadowOf,
} from './dom/composed';

export interface FindResult {
  docId: string;
  matches: string[];
  total: number;
}

const CANDIDATES =
  'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[role],[tabindex],[contenteditable],[onclick],label';

export function find(
  ctx: AgentContext,
  query: string,
  kind: 'text' | 'element',
  role: string | undefined,
  limit: number,
): FindResult {
  const words = normalizeSpace(query).toLowerCase().split(' ').filter(Boolean);
  const styles = new StyleCache();
  return kind === 'element'
    ? findElements(ctx, words, role?.toLowerCase(), limit, styles)
    : findText(ctx, words, limit);
}

function isShown(el: Element): boolean {
  if (composedClosest(el, '[aria-hidden=true]')) return false;
  if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  return r.width > 1 && r.height > 1 && textEnvOf(el) !== null;
}

// ---- hidden text: the snapshot's rules (dom/visibility.ts), so find cannot leak what it drops ----

function viewportOf(doc: Document): Viewport {
  const win = doc.defaultView ?? window;
  return {
    width: win.innerWidth,
    height: win.innerHeight,
    scrollX: win.scrollX,
    scrollY: win.scrollY,
    docWidth: doc.documentElement.scrollWidth,
  };
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
  return (
    isCollapsedBox(style, box) ||
    isClippedAway(style, position, box) ||
    isOffscreen(position, box, vp)
  );
}

/**
 * The readability of `el`'s own text (background colour, tiny fonts…), built from the root
 * down; null when `el` or an ancestor hides it (off-screen, clipped, collapsed, hidden).
 */
function textEnvOf(el: Element): TextEnv | null {
  const vp = viewportOf(el.ownerDocument);
  const chain: Element[] = [];
  for (let p: Element | null = el; p; p = composedParent(p)) chain.unshift(p);
  let env = new TextEnv(null, null);
  for (const a of chain) {
    const style = styleOf(a);
    if (boxHidden(a, style, vp)) return null;
    env = new TextEnv(style, env);
  }
  return env;
}

/** The visible part of `el`'s own text (its text nodes and inline children), as ownText builds it. */
function visibleOwnText(el: Element, shadowOf: ShadowOf): string {
  const env = textEnvOf(el);
  if (!env) return '';
  const vp = viewportOf(el.ownerDocument);
  // At the top, like ownText: text nodes and inline children; inside those, everything visible.
  const visit = (node: Element, nodeEnv: TextEnv, top: boolean): string => {
    let s = '';
    for (const c of composedChildren(node, shadowOf)) {
      if (c.nodeType === 3) {
        if (!nodeEnv.hidden) s += c.nodeValue;
        continue;
      }
      if (c.nodeType !== 1) continue;
      const child = c as Element;
      if (top && !isInline(child)) continue;
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

/** Candidates anywhere in the composed tree: shadow roots (open, and closed in the extension), frames. */
function* allElements(ctx: AgentContext, selector: string): Generator<Element> {
  const root = ctx.doc.body ?? ctx.doc.documentElement;
  if (!root) return;
  const shadowOf: ShadowOf = (el) => ctx.env.shadowRootOf(el);
  for (const el of composedElements(root, shadowOf, isSkipped)) if (el.matches(selector)) yield el;
}

function isSkipped(el: Element): boolean {
  return (
    el.localName === 'script' ||
    el.localName === 'style' ||
    el.localName === 'noscript' ||
    el.localName === 'template'
  );
}

function findElements(
  ctx: AgentContext,
  words: string[],
  role: string | undefined,
  limit: number,
  styles: StyleCache,
): FindResult {
  const out: string[] = [];
  let total = 0;
  for (const el of allElements(ctx, CANDIDATES)) {
    if (isStandIn(el)) continue;
    // Cheap prefilter before the accessible-name computation, which walks the subtree.
    const rough = `${el.textContent ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''} ${
      el.getAttribute('placeholder') ?? ''
    } ${(el as HTMLInputElement).value ?? ''} ${el.getAttribute('alt') ?? ''} ${
      el.getAttribute('href') ?? ''
    } ${labelText(el)} ${el.getAttribute('aria-labelledby') || !el.textContent?.trim() ? '*' : ''}`;
    if (!rough.includes('*') && !matches(rough, words)) continue;
    const r = roleOf(el);
    const style = styles.get(el);
    const act = actionableOf(el, r, style, false);
    if (!act) continue;
    if (role && act.role !== role) continue;
    if (!isShown(el)) continue;
    const name = accessibleName(el, styles);
    // An icon-only control is found by its icon's name, as its line shows it (derived-name.ts).
    const icon = name ? '' : (derivedNameOf(el, act.role, name, styles)?.icon ?? '');
    const extra = `${el.getAttribute('placeholder') ?? ''} ${(el as HTMLInputElement).value ?? ''} ${
      el.localName === 'a' ? (el.getAttribute('href') ?? '') : ''
    } ${icon}`;
    // A long select's line only counts its options: it is found by an option's label too, and
    // the match says which options (the label browser_select takes).
    const options =
      el.localName === 'select' ? matchingOptions(el as HTMLSelectElement, words) : [];
    if (!matches(`${name} ${extra}`, words) && !options.length) continue;
    total++;
    if (out.length >= limit) continue;
    const report = ctx.report(el);
    const href = el.localName === 'a' ? ` -> ${clip((el as HTMLAnchorElement).href, 120)}` : '';
    const chosen = options.length
      ? ` (options matching: ${options
          .slice(0, MAX_OPTIONS_SHOWN)
          .map((o) => quote(o))
          .join(', ')}${options.length > MAX_OPTIONS_SHOWN ? ', …' : ''})`
      : '';
    out.push(`${report.line.replace(/^- [a-z]+/, `- ${act.role}`)}${href}${chosen}${where(el)}`);
  }
  return { docId: ctx.registry.docId, matches: out, total };
}

const MAX_OPTIONS_SHOWN = 5;

/** The labels of a select's options that hold every word of the query. */
function matchingOptions(select: HTMLSelectElement, words: string[]): string[] {
  if (!words.length) return [];
  return Array.from(select.options, (o) => normalizeSpace(o.label || o.text)).filter((label) =>
    matches(label, words),
  );
}

function labelText(el: Element): string {
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels, (l) => l.textContent ?? '').join(' ') : '';
}

/**
 * Text matches, one per place the text is shown: the innermost element whose own text holds
 * every word (a block's inline child that matches alone is reported instead of the block), so a
 * match is listed once and its ref is the element a user pointing at the text would hit — the
 * label a double-click edits, not the row around it. Text of a label goes to its control, text
 * inside a control to the control.
 */
function findText(ctx: AgentContext, words: string[], limit: number): FindResult {
  const out: string[] = [];
  let total = 0;
  const root = ctx.doc.body;
  if (!root) return { docId: ctx.registry.docId, matches: out, total };
  const shadowOf: ShadowOf = (el) => ctx.env.shadowRootOf(el);
  const reported = new Set<Element>();
  for (const el of composedElements(root, shadowOf, isSkipped)) {
    if (isSkipped(el)) continue;
    const raw = ownText(el, shadowOf);
    if (!raw || !matches(raw, words)) continue;
    if (inlineChildMatches(el, words, shadowOf)) continue;
    if (!isShown(el)) continue;
    // Only now (few elements get here) the costly part: drop text a sighted user cannot see.
    const own = visibleOwnText(el, shadowOf);
    if (!own || !matches(own, words)) continue;
    const target = textTarget(el);
    // Two matches inside one control (its label and its text) are one place to act.
    if (reported.has(target) && target !== el) continue;
    reported.add(target);
    total++;
    if (out.length >= limit) continue;
    const ref = ctx.refPrefix + ctx.registry.refFor(target);
    const snippet = snippetAround(own, words[0] ?? '');
    const context = target === el ? nearestHeading(el) : ` in ${ctx.report(target).line.slice(2)}`;
    out.push(`- text ${quote(snippet)} [ref=${ref}]${context}${where(el)}`);
  }
  return { docId: ctx.registry.docId, matches: out, total };
}

/** The control a text belongs to (its label's control, or the control around it), else the element. */
function textTarget(el: Element): Element {
  const label = composedClosest(el, 'label') as HTMLLabelElement | null;
  const control = label?.control ?? composedClosest(el, CANDIDATES.replace(',label', ''));
  if (!control) return el;
  return actionableOf(control, roleOf(control), new StyleCache().get(control), false)
    ? control
    : el;
}

/**
 * A shown inline child (part of `el`'s own text) holds every word by itself: it is the match.
 * A hidden one is not, or hiding a copy of the text inside a block would hide the block's match.
 */
function inlineChildMatches(el: Element, words: string[], shadowOf: ShadowOf): boolean {
  for (const c of composedChildren(el, shadowOf)) {
    if (c.nodeType !== 1 || !isInline(c as Element)) continue;
    if (
      matches(normalizeSpace(composedText(c as Element, shadowOf)), words) &&
      shownInline(c as Element)
    )
      return true;
  }
  return false;
}

/** Shown, for an inline child: a `display: contents` one (a slot) has no box of its own to measure. */
function shownInline(el: Element): boolean {
  return styleOf(el).display === 'contents' ? textEnvOf(el) !== null : isShown(el);
}

/**
 * A control hidden and styled through its label (CSS-only toggles): the label stands in for it,
 * so only the label is listed.
 */
function isStandIn(el: Element): boolean {
  if (el.localName !== 'label') return false;
  const control = (el as HTMLLabelElement).control;
  if (!control) return false;
  const r = control.getBoundingClientRect();
  return !(r.width > 1 && r.height > 1 && styleOf(control).opacity !== '0');
}

const INLINE_TAGS = new Set([
  'a',
  'b',
  'i',
  'em',
  'strong',
  'span',
  'code',
  'mark',
  'small',
  'abbr',
  'sup',
  'sub',
  'u',
  'time',
  'label',
  'slot',
]);

function isInline(el: Element): boolean {
  return INLINE_TAGS.has(el.localName);
}

/** Text content of the composed subtree (a slot's assigned nodes, a host's shadow tree). */
function composedText(el: Element, shadowOf: ShadowOf): string {
  let s = '';
  for (const c of composedChildren(el, shadowOf)) {
    if (c.nodeType === 3) s += c.nodeValue;
    else if (c.nodeType === 1 && !isSkipped(c as Element))
      s += composedText(c as Element, shadowOf);
  }
  return s;
}

function ownText(el: Element, shadowOf: ShadowOf): string {
  let s = '';
  for (const c of composedChildren(el, shadowOf)) {
    // Inline children are part of the block's text; block children are matched on their own.
    if (c.nodeType === 3) s += c.nodeValue;
    else if (c.nodeType === 1 && isInline(c as Element)) s += composedText(c as Element, shadowOf);
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
