/**
 * "Would a sighted user see this?" The snapshot drops what fails, and that is also the defence
 * against hidden prompt-injection text: display:none, visibility:hidden, aria-hidden, zero size,
 * screen-reader-only clipping, off-screen positioning, tiny fonts, text painted in the
 * background colour, near-zero opacity, a transparent text fill, a clip-path that leaves nothing
 * and a transform that scales to nothing never reach the model.
 */
import type { Box } from '../env';

export interface Viewport {
  width: number;
  height: number;
  scrollX: number;
  scrollY: number;
  /** Scrollable document width: content positioned beyond it is off-screen. */
  docWidth: number;
}

export type Rgba = readonly [number, number, number, number];

/** Computed styles memoized for one snapshot (styles do not change while we walk). */
export class StyleCache {
  private readonly map = new Map<Element, CSSStyleDeclaration>();

  get(el: Element): CSSStyleDeclaration {
    let s = this.map.get(el);
    if (!s) {
      const view = el.ownerDocument.defaultView;
      s = view ? view.getComputedStyle(el) : (el as HTMLElement).style;
      this.map.set(el, s);
    }
    return s;
  }

  /** The getComputedStyle shape dom-accessibility-api accepts, backed by the cache. */
  readonly computed = (el: Element, pseudo?: string | null): CSSStyleDeclaration => {
    if (pseudo) {
      const view = el.ownerDocument.defaultView;
      return view ? view.getComputedStyle(el, pseudo) : (el as HTMLElement).style;
    }
    return this.get(el);
  };
}

/**
 * `visibility: hidden` or `collapse`. Comparisons are against the hiding values, so an empty
 * value (DOM implementations without full CSS, like happy-dom) counts as the visible default.
 */
export function isInvisible(style: CSSStyleDeclaration): boolean {
  const v = style.visibility;
  return v === 'hidden' || v === 'collapse';
}

/** Overflow other than the initial `visible` on either axis. */
export function clipsOverflow(style: CSSStyleDeclaration): boolean {
  const clips = (v: string) => v !== '' && v !== 'visible';
  return clips(style.overflowX) || clips(style.overflowY) || clips(style.overflow);
}

/** Hidden together with everything inside (no descendant can override these). */
export function isSubtreeHidden(el: Element, style: CSSStyleDeclaration): boolean {
  if (el.getAttribute('aria-hidden') === 'true') return true;
  // [hidden] is hidden (as in accname), even where an author style would show it again: losing
  // such rare content is better than showing hidden text, and DOMs without a UA stylesheet agree.
  if (el.hasAttribute('hidden')) return true;
  if ((el as HTMLElement).inert) return true;
  if (style.display === 'none') return true;
  if (style.contentVisibility === 'hidden') return true;
  // Near-zero, not only zero: 0.01 paints nothing a reader can see.
  if (parseFloat(style.opacity) < NEAR_ZERO_ALPHA && !isFormControl(el)) return true;
  if (clipsEverything(style.clipPath)) return true;
  if (scalesToNothing(style.transform) || /^0(\.0+)?(\s|$)/.test(style.scale ?? '')) return true;
  return false;
}

/** Alpha (or opacity) below which nothing is visible to a reader. */
const NEAR_ZERO_ALPHA = 0.05;

/**
 * A clip-path that leaves no visible area, on any element (clip-path needs no positioning):
 * inset() whose opposite sides meet (≥ 100% together, or 50% each side), circle/ellipse of
 * radius 0, a polygon whose points are all one.
 */
export function clipsEverything(clipPath: string | undefined): boolean {
  if (!clipPath || clipPath === 'none') return false;
  const inset = /inset\(([^)]*)\)/.exec(clipPath);
  if (inset) {
    const v = inset[1]
      .split(/\s+round\s+/)[0]
      .trim()
      .split(/\s+/)
      .map((x) => (x.endsWith('%') ? parseFloat(x) : parseFloat(x) === 0 ? 0 : NaN));
    const [top, right = top, bottom = top, left = right] = v;
    if (top + bottom >= 100 || left + right >= 100) return true;
  }
  if (/(circle|ellipse)\(\s*0(px|%)?(\s|\)|at)/.test(clipPath)) return true;
  if (/ellipse\(\s*[\d.]+(px|%)?\s+0(px|%)?(\s|\)|at)/.test(clipPath)) return true;
  const polygon = /polygon\(([^)]*)\)/.exec(clipPath);
  if (polygon) {
    const points = new Set(
      polygon[1].split(',').map((p) => p.trim().replace(/^(nonzero|evenodd)\s*/, '')),
    );
    if (points.size <= 1) return true;
  }
  return false;
}

/** A computed transform (matrix / matrix3d) that maps the box to zero area: scale(0), scaleX(0). */
export function scalesToNothing(transform: string | undefined): boolean {
  if (!transform || transform === 'none') return false;
  const m = /^matrix(3d)?\(([^)]*)\)$/.exec(transform.trim());
  if (!m) return false;
  const n = m[2].split(',').map(Number);
  const [a, b, c, d] = m[1] ? [n[0], n[1], n[4], n[5]] : [n[0], n[1], n[2], n[3]];
  return Math.abs(a * d - b * c) < 1e-3;
}

/** Screen-reader-only clipping and similar tricks: a box that paints nothing. */
export function isClippedAway(style: CSSStyleDeclaration, position: string, box: Box): boolean {
  if (box.width <= 1 && box.height <= 1 && clipsOverflow(style)) return true;
  // The clip tricks are used with absolute positioning (that is what makes `clip` apply at all).
  if (position !== 'absolute' && position !== 'fixed') return false;
  const clip = style.clip;
  if (clip && clip !== 'auto') {
    const nums = clip.match(/-?\d+(\.\d+)?/g);
    if (nums && nums.length === 4) {
      const [top, right, bottom, left] = nums.map(Number);
      if (right - left <= 1 || bottom - top <= 1) return true;
    }
  }
  return false;
}

/** Zero area with clipping overflow: nothing inside can show either. */
export function isCollapsedBox(style: CSSStyleDeclaration, box: Box): boolean {
  if (box.width > 0 && box.height > 0) return false;
  const display = style.display || 'inline';
  if (display === 'contents' || display.startsWith('inline')) return false;
  return clipsOverflow(style);
}

/** Positioned outside the page (left:-9999px and friends). Content below the fold is not off-screen. */
export function isOffscreen(position: string, box: Box, vp: Viewport): boolean {
  // A box without area paints nothing itself; its children are judged on their own boxes.
  if (box.width === 0 || box.height === 0) return false;
  if (position === 'fixed') {
    return (
      box.x + box.width <= 0 || box.y + box.height <= 0 || box.x >= vp.width || box.y >= vp.height
    );
  }
  const left = box.x + vp.scrollX;
  const top = box.y + vp.scrollY;
  return left + box.width <= 0 || top + box.height <= 0 || left >= Math.max(vp.docWidth, vp.width);
}

export function intersectsViewport(box: Box, vp: Viewport): boolean {
  return box.x < vp.width && box.y < vp.height && box.x + box.width > 0 && box.y + box.height > 0;
}

/** Text of this element is unreadable even though its box is there. */
export function hidesOwnText(style: CSSStyleDeclaration, background: Rgba | null): boolean {
  if (isInvisible(style)) return true;
  if (parseFloat(style.fontSize) < 4) return true;
  const indent = parseFloat(style.textIndent);
  if (indent <= -999 && clipsOverflow(style)) return true;
  if (indent <= -5000) return true;
  // -webkit-text-fill-color paints the glyphs instead of `color` (transparent hides them), unless
  // a background is clipped to the text — that is how gradient headings are drawn.
  const fill = parseColor(style.getPropertyValue?.('-webkit-text-fill-color') ?? '');
  const clippedBackground = /text/.test(
    style.getPropertyValue?.('background-clip') ||
      style.getPropertyValue?.('-webkit-background-clip') ||
      '',
  );
  if (fill && fill[3] < NEAR_ZERO_ALPHA && !clippedBackground) return true;
  const color = fill ?? parseColor(style.color);
  if (!color) return false;
  if (color[3] < NEAR_ZERO_ALPHA) return !clippedBackground;
  return background !== null && color[3] > 0.9 && sameColor(color, background);
}

/**
 * The background text is painted on, as far as a cheap walk can tell: an element's own opaque
 * background colour, else inherited from the parent; unknown (null) under images, gradients and
 * absolutely positioned boxes, where the DOM parent is not what lies underneath.
 */
export function backgroundFor(style: CSSStyleDeclaration, parentBg: Rgba | null): Rgba | null {
  if (style.backgroundImage && style.backgroundImage !== 'none') return null;
  const own = parseColor(style.backgroundColor);
  if (own && own[3] >= 0.95) return own;
  if (style.position === 'absolute' || style.position === 'fixed') return null;
  if (own && own[3] > 0.05) return null;
  return parentBg;
}

export const WHITE: Rgba = [255, 255, 255, 1];

const colorCache = new Map<string, Rgba | null>();

/** Computed colours repeat across a page: parse each distinct string once. */
export function parseColor(value: string): Rgba | null {
  let c = colorCache.get(value);
  if (c === undefined) {
    c = parseColorUncached(value);
    if (colorCache.size < 500) colorCache.set(value, c);
  }
  return c;
}

function parseColorUncached(value: string): Rgba | null {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(
    value,
  );
  if (!m) return null;
  let alpha = 1;
  if (m[4] !== undefined) alpha = m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
  return [Number(m[1]), Number(m[2]), Number(m[3]), alpha];
}

function sameColor(a: Rgba, b: Rgba): boolean {
  return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) <= 24;
}

function isFormControl(el: Element): boolean {
  const tag = el.localName;
  return tag === 'input' || tag === 'select' || tag === 'textarea';
}
