/**
 * browser_get_text: the readable main text of a page (an article, a post, documentation) as
 * light markdown, without navigation, ads, footers or hidden text.
 *
 * The main block is found the way reading modes do it: paragraphs score their parent (and half
 * their grandparent) by length and commas, link-heavy blocks are discounted, the best wins.
 * Semantic containers (a single <article>, <main>) are trusted first.
 */
import { normalizeSpace } from './dom/text';
import {
  isClippedAway,
  isCollapsedBox,
  isInvisible,
  isOffscreen,
  isSubtreeHidden,
  type Viewport,
} from './dom/visibility';
import type { Box } from './env';
import { TextEnv } from './snapshot/text-env';

export interface ReadableText {
  title: string;
  byline?: string;
  text: string;
  totalChars: number;
  offset: number;
  /** Where the next page of text starts, when there is more. */
  nextOffset?: number;
}

/** Never text: code, media, embedded documents and form control values. */
const NOT_TEXT = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'select',
  'input',
  'textarea',
];
const SKIP = new Set([...NOT_TEXT, 'nav', 'aside', 'footer', 'form', 'button', 'dialog', 'header']);
/** The whole-page fallback keeps page chrome (navigation, forms' labels) but still no code or values. */
const SKIP_FALLBACK = new Set(NOT_TEXT);

interface Walk {
  win: Window;
  vp: Viewport;
  boxOf(el: Element): Box;
  skip: ReadonlySet<string>;
}

function boxOf(el: Element): Box {
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}

/** The text environment (background colour, readability) the walk starts in: built from the root down. */
function envAbove(el: Element, win: Window): TextEnv {
  const chain: Element[] = [];
  for (let p = el.parentElement; p; p = p.parentElement) chain.unshift(p);
  let env = new TextEnv(null, null);
  for (const a of chain) env = new TextEnv(win.getComputedStyle(a), env);
  return env;
}

/**
 * The text under `root`. Hidden text is dropped by the same rules as the snapshot
 * (dom/visibility.ts): besides display/visibility/opacity, off-screen and clipped-away boxes,
 * tiny fonts, text indented away and text in its background's colour — the usual hiding places
 * of prompt injections, which must not reach the model through this tool either.
 */
function extract(root: Element, doc: Document, skip: ReadonlySet<string>): string {
  const win = doc.defaultView ?? window;
  const vp: Viewport = {
    width: win.innerWidth,
    height: win.innerHeight,
    scrollX: win.scrollX,
    scrollY: win.scrollY,
    docWidth: doc.documentElement.scrollWidth,
  };
  const parts: string[] = [];
  const walk: Walk = { win, vp, boxOf, skip };
  const style = win.getComputedStyle(root);
  collect(root, parts, walk, new TextEnv(style, envAbove(root, win)));
  return normalizeBlocks(parts.join(''));
}

const BOILERPLATE =
  /comment|share|social|related|promo|sidebar|advert|\bads?\b|cookie|newsletter|subscribe|footer|menu|breadcrumb/i;

export function readableText(doc: Document, maxChars: number, offset: number): ReadableText {
  const root = mainBlock(doc);
  let text = extract(root, doc, SKIP);
  // A thin main block: take the whole visible page instead (innerText would bring hidden text back).
  if (text.length < 200 && doc.body) text = extract(doc.body, doc, SKIP_FALLBACK);
  const totalChars = text.length;
  const slice = text.slice(offset, offset + maxChars);
  const out: ReadableText = { title: normalizeSpace(doc.title), text: slice, totalChars, offset };
  if (offset + maxChars < totalChars) out.nextOffset = offset + slice.length;
  const author =
    doc.querySelector('meta[name=author]')?.getAttribute('content') ??
    doc.querySelector('[rel=author], .byline, .author')?.textContent;
  if (author) out.byline = normalizeSpace(author).slice(0, 120);
  return out;
}

function normalizeBlocks(s: string): string {
  return s
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function mainBlock(doc: Document): Element {
  const body = doc.body ?? doc.documentElement;
  const articles = doc.querySelectorAll('article');
  if (articles.length === 1 && textLength(articles[0]) > 500) return articles[0];
  const main = doc.querySelector('main, [role=main]');
  const scores = new Map<Element, number>();
  for (const p of Array.from(body.querySelectorAll('p, pre, blockquote, td, li'))) {
    const text = normalizeSpace(p.textContent ?? '');
    if (text.length < 25) continue;
    const score = 1 + text.split(',').length + Math.min(3, Math.floor(text.length / 100));
    const parent = p.parentElement;
    if (!parent) continue;
    scores.set(parent, (scores.get(parent) ?? 0) + score);
    const grand = parent.parentElement;
    if (grand) scores.set(grand, (scores.get(grand) ?? 0) + score / 2);
  }
  let best: Element | null = null;
  let bestScore = 0;
  for (const [el, score] of scores) {
    const hint = `${el.id} ${typeof el.className === 'string' ? el.className : ''}`;
    const adjusted = score * (1 - linkDensity(el)) * (BOILERPLATE.test(hint) ? 0.3 : 1);
    if (adjusted > bestScore) {
      best = el;
      bestScore = adjusted;
    }
  }
  if (main && (!best || !main.contains(best)) && textLength(main) > 500) return main;
  // Siblings of the winner often continue the article (split containers): climb one level when
  // the parent is not much more than the winner.
  if (
    best?.parentElement &&
    best.parentElement !== body &&
    textLength(best.parentElement) < textLength(best) * 1.5
  ) {
    return best.parentElement;
  }
  return best ?? main ?? body;
}

function textLength(el: Element): number {
  return normalizeSpace(el.textContent ?? '').length;
}

function linkDensity(el: Element): number {
  const total = textLength(el) || 1;
  let links = 0;
  for (const a of Array.from(el.querySelectorAll('a')))
    links += normalizeSpace(a.textContent ?? '').length;
  return Math.min(1, links / total);
}

function collect(el: Element, out: string[], w: Walk, text: TextEnv): void {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) {
      if (!text.hidden) out.push((n.nodeValue ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (n.nodeType !== 1) continue;
    const c = n as HTMLElement;
    const tag = c.localName;
    if (w.skip.has(tag)) continue;
    const style = w.win.getComputedStyle(c);
    if (isSubtreeHidden(c, style) || isInvisible(style)) continue;
    const display = style.display || 'inline';
    const position = style.position || 'static';
    // A static inline box cannot be moved off-screen or clipped on its own: skip the layout read.
    if (display !== 'contents' && !(display === 'inline' && position === 'static')) {
      const box = w.boxOf(c);
      if (
        isCollapsedBox(style, box) ||
        isClippedAway(style, position, box) ||
        isOffscreen(position, box, w.vp)
      )
        continue;
    }
    const env = new TextEnv(style, text);
    const hint = `${c.id} ${typeof c.className === 'string' ? c.className : ''}`;
    if (BOILERPLATE.test(hint) && linkDensity(c) > 0.4) continue;
    if (/^h[1-6]$/.test(tag)) {
      const inner: string[] = [];
      collect(c, inner, w, env);
      const heading = normalizeSpace(inner.join(''));
      if (heading) out.push(`\n\n${'#'.repeat(Number(tag[1]))} ${heading}\n\n`);
    } else if (tag === 'li') {
      out.push('\n- ');
      collect(c, out, w, env);
    } else if (tag === 'pre') {
      if (!env.hidden) out.push(`\n\n\`\`\`\n${c.textContent ?? ''}\n\`\`\`\n\n`);
    } else if (tag === 'br') {
      out.push('\n');
    } else if (tag === 'img') {
      const alt = normalizeSpace(c.getAttribute('alt') ?? '');
      if (alt) out.push(` [image: ${alt}] `);
    } else if (tag === 'tr') {
      out.push('\n');
      collect(c, out, w, env);
    } else if (tag === 'td' || tag === 'th') {
      out.push(' | ');
      collect(c, out, w, env);
    } else if (display.startsWith('inline')) {
      collect(c, out, w, env);
    } else {
      out.push('\n\n');
      collect(c, out, w, env);
      out.push('\n\n');
    }
  }
}
