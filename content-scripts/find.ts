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
import { StyleCache } from './dom/visibility';

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
  return r.width > 1 && r.height > 1;
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
    const own = ownText(el);
    if (!own || !matches(own, words)) continue;
    if (seen.has(el) || !isShown(el)) continue;
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

function ownText(el: Element): string {
  let s = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) s += c.nodeValue;
    else if (c.nodeType === 1) {
      const tag = (c as Element).localName;
      // Inline children are part of the block's text; block children are matched on their own.
      if (['a', 'b', 'i', 'em', 'strong', 'span', 'code', 'mark', 'small', 'abbr', 'sup', 'sub', 'u', 'time', 'label'].includes(tag)) {
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
