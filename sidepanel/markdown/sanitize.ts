import DOMPurify from 'dompurify';
import { safeImageSrc, safeLinkHref } from './url-policy';

/**
 * The strict HTML profile for everything the model writes. An allowlist, not a blocklist: no
 * script, style, iframe, form controls, SVG/MathML or event handlers; links open in a new tab
 * without an opener; classes only as code-language hints, so model output cannot borrow the
 * panel's own styles to imitate an approval card.
 *
 * Two layers: DOMPurify (parsing quirks, mXSS, namespace confusion), then our own walk over the
 * result that enforces the same allowlist and the URL policy. The second layer is cheap and keeps
 * the policy in one readable place even if a DOMPurify option changes meaning.
 */
const ALLOWED_TAGS = new Set([
  'a',
  'b',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'kbd',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'span',
  'strong',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);
const ALLOWED_ATTR = new Set([
  'href',
  'title',
  'alt',
  'src',
  'class',
  'align',
  'start',
  'colspan',
  'rowspan',
]);
/** Disallowed elements whose content is not text for a reader: dropped whole, not unwrapped. */
const DROP_WITH_CONTENT = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'svg',
  'math',
  'template',
  'noscript',
  'noembed',
  'noframes',
  'select',
  'textarea',
  'head',
  'title',
  'audio',
  'video',
  'canvas',
]);
const LANGUAGE_CLASS = /^language-[\w+#.-]{1,40}$/;

type Purifier = ReturnType<typeof DOMPurify>;
let purifier: Purifier | null = null;

function getPurifier(): Purifier {
  // Our own instance, so nothing configured here leaks into other users of the default one.
  purifier ??= DOMPurify(window);
  return purifier;
}

function enforceAttributes(el: Element, tag: string): void {
  for (const { name } of Array.from(el.attributes)) {
    if (!ALLOWED_ATTR.has(name)) el.removeAttribute(name);
  }
  const cls = el.getAttribute('class');
  if (cls !== null && !(tag === 'code' && LANGUAGE_CLASS.test(cls))) el.removeAttribute('class');
  if (tag !== 'a') el.removeAttribute('href');
  if (tag !== 'img') el.removeAttribute('src');
  if (tag === 'a') {
    const href = safeLinkHref(el.getAttribute('href'));
    if (href) {
      el.setAttribute('href', href);
      el.setAttribute('target', '_blank');
      el.setAttribute('rel', 'noopener noreferrer');
    } else {
      el.removeAttribute('href');
    }
  }
}

/** Our layer: allowlisted tags and attributes only, URL policy on links and images. */
function enforcePolicy(body: HTMLElement): void {
  // A static snapshot: unwrapping moves children up, and they are still visited afterwards.
  for (const el of Array.from(body.querySelectorAll('*'))) {
    if (!body.contains(el)) continue; // inside something already dropped
    const tag = el.tagName.toLowerCase();
    if (!ALLOWED_TAGS.has(tag)) {
      if (DROP_WITH_CONTENT.has(tag)) el.remove();
      else el.replaceWith(...Array.from(el.childNodes));
      continue;
    }
    enforceAttributes(el, tag);
    if (tag === 'img') {
      const src = safeImageSrc(el.getAttribute('src'));
      if (!src) {
        el.remove();
        continue;
      }
      if (!src.startsWith('data:')) {
        // A remote image would be fetched without asking: an injected model could leak data in
        // its URL. Show a link the user can choose to open instead.
        const a = el.ownerDocument.createElement('a');
        a.setAttribute('href', src);
        a.setAttribute('target', '_blank');
        a.setAttribute('rel', 'noopener noreferrer');
        a.setAttribute('class', 'remote-image');
        a.textContent = `[image: ${new URL(src).host}${el.getAttribute('alt') ? ` — ${el.getAttribute('alt')}` : ''}]`;
        el.replaceWith(a);
        continue;
      }
      el.setAttribute('src', src);
      el.setAttribute('referrerpolicy', 'no-referrer');
      el.setAttribute('loading', 'lazy');
    }
  }
}

/** Sanitize to a detached <body> so callers can decorate it (copy buttons) before serializing. */
export function sanitizeToBody(html: string): HTMLElement {
  const body = getPurifier().sanitize(html, {
    ALLOWED_TAGS: [...ALLOWED_TAGS],
    ALLOWED_ATTR: [...ALLOWED_ATTR],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    RETURN_DOM: true,
  }) as HTMLElement;
  enforcePolicy(body);
  return body;
}

export function sanitizeHtml(html: string): string {
  return sanitizeToBody(html).innerHTML;
}
