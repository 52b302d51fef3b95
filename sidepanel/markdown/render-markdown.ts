import { Marked } from 'marked';
import { sanitizeToBody } from './sanitize';

/**
 * Model text → safe HTML. Raw HTML in the markdown is shown as text, not interpreted (a model that
 * writes `<div>` in prose means the characters), and the result still goes through the sanitizer,
 * so a bug in either layer alone does not open a hole.
 */

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

/** Wrap each code block with a copy button (handled by delegation in <Markdown>). */
function addCopyButtons(body: HTMLElement, copyLabel: string): void {
  for (const pre of Array.from(body.querySelectorAll('pre'))) {
    const doc = pre.ownerDocument;
    const wrap = doc.createElement('div');
    wrap.className = 'code-block';
    const button = doc.createElement('button');
    button.type = 'button';
    button.className = 'copy-code';
    button.setAttribute('aria-label', copyLabel);
    button.textContent = copyLabel;
    pre.replaceWith(wrap);
    wrap.append(button, pre);
  }
}

export function renderMarkdownUncached(text: string, copyLabel: string): string {
  const html = marked.parse(text) as string;
  const body = sanitizeToBody(html);
  addCopyButtons(body, copyLabel);
  return body.innerHTML;
}

/**
 * Rendered HTML by text. Scrolling a long thread re-mounts messages; a hit here costs a map lookup
 * instead of a parse and a sanitize. Insertion order doubles as the LRU order.
 */
const CACHE_LIMIT = 800;
const cache = new Map<string, string>();

export function renderMarkdown(text: string, copyLabel: string): string {
  const key = `${copyLabel}\u0000${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const html = renderMarkdownUncached(text, copyLabel);
  cache.set(key, html);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return html;
}
