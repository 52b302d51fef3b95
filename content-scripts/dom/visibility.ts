/**
 * "Would a sighted user see this?" The snapshot drops what fails, and that is also the defence
 * against hidden prompt-injection text: display:none, visibility:hidden, aria-hidden, zero size,
 * screen-reader-only clipping, off-screen positioning, tiny fonts and text painted in the
 * background colour never reach the model.
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
  if (style.opacity === '0' && !isFormControl(el)) return true;
  return false;
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
  const clipPath = style.clipPath;
  if (clipPath && clipPath !== 'none' && /inset\(\s*(50|100)%|circle\(\s*0/.test(clipPath)) return true;
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
    return box.x + box.width <= 0 || box.y + box.height <= 0 || box.x >= vp.width || box.y >= vp.height;
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
  const color = parseColor(style.color);
  if (!color) return false;
  if (color[3] < 0.05) return true;
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
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(value);
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
