/**
 * browser_get_text: the readable main text of a page (an article, a post, documentation) as
 * light markdown, without navigation, ads, footers or hidden text.
 *
 * The main block is found the way reading modes do it: paragraphs score their parent (and half
 * their grandparent) by length and commas, link-heavy blocks are discounted, the best wins.
 * Semantic containers (a single <article>, <main>) are trusted first.
 */
import { normalizeSpace } from './dom/text';

export interface ReadableText {
  title: string;
  byline?: string;
  text: string;
  totalChars: number;
  offset: number;
  /** Where the next page of text starts, when there is more. */
  nextOffset?: number;
}

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'nav', 'aside', 'footer', 'form', 'button', 'select', 'input', 'textarea', 'dialog', 'header']);
const BOILERPLATE = /comment|share|social|related|promo|sidebar|advert|\bads?\b|cookie|newsletter|subscribe|footer|menu|breadcrumb/i;

export function readableText(doc: Document, maxChars: number, offset: number): ReadableText {
  const root = mainBlock(doc);
  const parts: string[] = [];
  collect(root, parts, doc.defaultView ?? window);
  let text = normalizeBlocks(parts.join(''));
  if (text.length < 200 && doc.body) text = normalizeBlocks(doc.body.innerText);
  const totalChars = text.length;
  const slice = text.slice(offset, offset + maxChars);
  const out: ReadableText = { title: normalizeSpace(doc.title), text: slice, totalChars, offset };
  if (offset + maxChars < totalChars) out.nextOffset = offset + slice.length;
  const author = doc.querySelector('meta[name=author]')?.getAttribute('content') ?? doc.querySelector('[rel=author], .byline, .author')?.textContent;
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
  if (best?.parentElement && best.parentElement !== body && textLength(best.parentElement) < textLength(best) * 1.5) {
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
  for (const a of Array.from(el.querySelectorAll('a'))) links += normalizeSpace(a.textContent ?? '').length;
  return Math.min(1, links / total);
}

function collect(el: Element, out: string[], win: Window): void {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) {
      out.push((n.nodeValue ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (n.nodeType !== 1) continue;
    const c = n as HTMLElement;
    const tag = c.localName;
    if (SKIP.has(tag) || c.getAttribute('aria-hidden') === 'true' || c.hidden) continue;
    const style = win.getComputedStyle(c);
    if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') continue;
    const hint = `${c.id} ${typeof c.className === 'string' ? c.className : ''}`;
    if (BOILERPLATE.test(hint) && linkDensity(c) > 0.4) continue;
    if (/^h[1-6]$/.test(tag)) {
      out.push(`\n\n${'#'.repeat(Number(tag[1]))} ${normalizeSpace(c.textContent ?? '')}\n\n`);
    } else if (tag === 'li') {
      out.push('\n- ');
      collect(c, out, win);
    } else if (tag === 'pre') {
      out.push(`\n\n\`\`\`\n${c.textContent ?? ''}\n\`\`\`\n\n`);
    } else if (tag === 'br') {
      out.push('\n');
    } else if (tag === 'img') {
      const alt = normalizeSpace(c.getAttribute('alt') ?? '');
      if (alt) out.push(` [image: ${alt}] `);
    } else if (tag === 'tr') {
      out.push('\n');
      collect(c, out, win);
    } else if (tag === 'td' || tag === 'th') {
      out.push(' | ');
      collect(c, out, win);
    } else if (style.display.startsWith('inline')) {
      collect(c, out, win);
    } else {
      out.push('\n\n');
      collect(c, out, win);
      out.push('\n\n');
    }
  }
}
