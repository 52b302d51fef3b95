/**
 * A name for an icon-only control the page left unnamed (issue 26, point 3): a star, trash, back
 * or send icon in a mail view, bold and italic in an editor toolbar, a date picker's arrows.
 * Accname and the title fallback (names.ts) found nothing; what a sighted user recognises is the
 * icon, and the page usually says which icon it is somewhere: an `<svg><title>`, a sprite's
 * `<use href="#icon-star">`, an icon library's `data-icon` / `data-testid="DeleteIcon"`, an
 * image's or background image's file name, or the icon class (`fa-trash`, `bi-star`, `ql-bold`).
 * The line marks the result as derived (`(icon "trash")`), so neither the model nor an approval
 * card mistakes it for the page's own label.
 */
import { clip, normalizeSpace } from './text';
import type { StyleCache } from './visibility';

const MAX_CHARS = 40;
/** How many descendants are looked at: an icon control is small; a big subtree is not one. */
const MAX_DESCENDANTS = 12;

/** Class prefixes of icon sets: the rest of the token names the icon. */
const ICON_PREFIX =
  /^(?:fa|fas|far|fal|fad|fab|bi|icon|icons|ico|ic|glyphicon|ti|ri|mdi|lucide|feather|ion|ionicon|la|bx|bxs|bxl|gg|ph|codicon|octicon|ql|oi|typcn|wi|ui-icon|el-icon|anticon|iconfont|i)[-_]/i;
/** Tokens that say "this is an icon" or style it, never which one. */
const NOISE = new Set([
  'fa',
  'fas',
  'far',
  'fal',
  'fad',
  'fab',
  'fa-solid',
  'fa-regular',
  'fa-light',
  'fa-brands',
  'fa-fw',
  'fa-lg',
  'fa-2x',
  'bi',
  'icon',
  'icons',
  'material-icons',
  'material-symbols-outlined',
  'material-symbols-rounded',
  'glyphicon',
  'svg-inline--fa',
  'anticon',
  'iconfont',
  'btn',
  'button',
  'active',
  'disabled',
  'selected',
  'open',
  'show',
  'hidden',
  'sr-only',
  'visually-hidden',
  'clickable',
  'pointer',
]);
/** Words that describe the icon's drawing or its wrapper, not its meaning. */
const FILLER = new Set([
  'icon',
  'icons',
  'btn',
  'button',
  'solid',
  'outline',
  'outlined',
  'filled',
  'fill',
  'regular',
  'line',
  'o',
  'svg',
  'img',
  'root',
]);

/** The derived icon name of `el`, or '' when nothing names its icon. */
export function iconNameOf(el: Element, styles: StyleCache): string {
  const inner = descendants(el);
  if (!inner) return '';
  const parts = [el, ...inner];
  for (const p of parts) {
    const svgTitle = p.localName === 'svg' ? p.querySelector(':scope > title')?.textContent : null;
    if (svgTitle && normalizeSpace(svgTitle)) return clip(normalizeSpace(svgTitle), MAX_CHARS);
  }
  for (const p of parts) {
    const named =
      fromAttribute(p.getAttribute('data-icon')) ||
      fromTestId(p.getAttribute('data-testid')) ||
      (p.localName === 'use'
        ? fromUrl(p.getAttribute('href') ?? p.getAttribute('xlink:href'))
        : '');
    if (named) return named;
  }
  for (const p of parts) {
    const file =
      (p.localName === 'img' ? fromUrl(p.getAttribute('src')) : '') ||
      fromBackground(styles.get(p).backgroundImage);
    if (file) return file;
  }
  // An icon set's class anywhere first (the `<i class="fa fa-trash">` inside a button), then the
  // control's own descriptive class (flatpickr's `flatpickr-prev-month`). A widget part's class
  // (`ql-picker-label`) says what the part is, not what it does: its parent's may (`ql-header`).
  const own = fromClasses(parts);
  if (own) return own;
  // Only a control whose own class names a widget part looks to its parent's (a row's `view`
  // class names nothing the control does).
  const part = classTokens(el).some((t) => GENERIC.test(wordsOf(t.replace(ICON_PREFIX, ''))));
  return (
    (part && el.parentElement ? fromClasses([el.parentElement]) : '') || swatchOf(el, inner, styles)
  );
}

/**
 * A colour swatch is called by its colour: an empty control in a palette, that is among at least
 * three empty siblings of its kind painted in at least three colours (so a lone empty button is
 * not named after its default grey).
 */
function swatchOf(el: Element, inner: Element[], styles: StyleCache): string {
  if (inner.length || el.textContent?.trim()) return '';
  const kin = [...(el.parentElement?.children ?? [])].filter(
    (c) => c.localName === el.localName && !c.childElementCount && !c.textContent?.trim(),
  );
  if (kin.length < 3 || new Set(kin.map((c) => styles.get(c).backgroundColor)).size < 3) return '';
  const hex = hexOf(styles.get(el).backgroundColor ?? '');
  return hex ? `colour #${hex}` : '';
}

/** `rgb(255, 136, 0)` (Chromium's computed form) or `#ff8800` → `ff8800`; '' when transparent. */
function hexOf(colour: string): string {
  const short = /^#([0-9a-f]{6})$/i.exec(colour);
  if (short) return short[1].toLowerCase();
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/.exec(colour);
  if (!m || m[4] === '0') return '';
  return m
    .slice(1, 4)
    .map((n) => Number(n).toString(16).padStart(2, '0'))
    .join('');
}

const SHAPES = new Set([
  'path',
  'g',
  'line',
  'polyline',
  'polygon',
  'rect',
  'circle',
  'ellipse',
  'use',
  'defs',
  'symbol',
]);

/** Names of a widget's parts, not of what they do. */
const GENERIC =
  /^(?:\w+ )?(?:label|toggle|trigger|handle|picker|dropdown|control|wrapper|inner|content|item|container|arrow)$/;

function fromClasses(parts: Element[]): string {
  const found: string[] = [];
  for (const p of parts) {
    // The shapes inside an SVG carry drawing classes (`ql-stroke`, `ql-fill`): not icon names.
    if (p !== parts[0] && SHAPES.has(p.localName)) continue;
    for (const t of classTokens(p))
      if (ICON_PREFIX.test(t)) found.push(wordsOf(t.replace(ICON_PREFIX, '')));
  }
  for (const t of classTokens(parts[0])) if (!ICON_PREFIX.test(t)) found.push(wordsOf(t));
  return found.find((w) => w && !GENERIC.test(w)) ?? '';
}

/** The elements inside `el`; null when there are too many for an icon control. */
function descendants(el: Element): Element[] | null {
  const out: Element[] = [];
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n && out.length <= MAX_DESCENDANTS; n = walker.nextNode())
    out.push(n as Element);
  // A control with many parts is a composite (a card, a row), not an icon: nothing to derive.
  return out.length > MAX_DESCENDANTS ? null : out;
}

function classTokens(el: Element): string[] {
  const cls = el.getAttribute('class');
  if (!cls) return [];
  return cls
    .split(/\s+/)
    .filter((t) => t && !NOISE.has(t.toLowerCase()) && !looksGenerated(t) && !t.includes('--'));
}

/** CSS-in-JS and hashed module classes (`css-1x2y3z`, `sc-bdVaJa`, `_btn_1a2b3`). */
function looksGenerated(t: string): boolean {
  if (/^(?:css|sc|jsx|emotion|styled|svelte|astro|chakra)-/i.test(t)) return true;
  if (/^[A-Z][A-Za-z]+-(?:root|label|icon|container)$/.test(t)) return true;
  const digits = t.replace(/[^0-9]/g, '').length;
  return digits >= 2 && /[a-z][0-9]|[0-9][a-z]/i.test(t);
}

function fromAttribute(v: string | null): string {
  return v ? wordsOf(v) : '';
}

/** MUI's `data-testid="DeleteOutlinedIcon"` and the like. */
function fromTestId(v: string | null): string {
  if (!v || !/Icon$/.test(v)) return '';
  return wordsOf(v.replace(/Icon$/, ''));
}

/** The file (or fragment) name of a URL: `/img/icons/trash-can.svg` → "trash can". */
function fromUrl(raw: string | null): string {
  if (!raw || raw.startsWith('data:')) return '';
  const hash = raw.indexOf('#');
  const tail = hash >= 0 ? raw.slice(hash + 1) : (raw.split('?')[0].split('/').pop() ?? '');
  return wordsOf(tail.replace(/\.(?:svg|png|gif|jpe?g|webp|ico)$/i, '').replace(ICON_PREFIX, ''));
}

function fromBackground(bg: string | undefined): string {
  const m = bg && bg !== 'none' ? /url\(["']?([^"')]+)["']?\)/.exec(bg) : null;
  return m ? fromUrl(m[1]) : '';
}

/** `arrow-left_small`, `ArrowLeft` → "arrow left small", fillers dropped; '' when nothing is left. */
function wordsOf(token: string): string {
  const words = token
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[-_\s.:]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w && !FILLER.has(w) && !/^\d+$/.test(w));
  return words.length ? clip(words.join(' '), MAX_CHARS) : '';
}
