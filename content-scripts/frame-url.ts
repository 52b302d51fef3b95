/**
 * How well an iframe's URL matches a frame's URL: 3 same URL, 2 same origin and path, 1 same
 * origin, 0 unrelated. Used on both sides (page and service worker) to pair a cross-origin
 * iframe element with the extension frame that renders it. Pure: safe in either bundle.
 */
export function urlScore(a: string, b: string): number {
  if (a === b) return 3;
  try {
    const ua = new URL(a);
    const ub = new URL(b);
    if (ua.origin !== ub.origin) return 0;
    return ua.pathname === ub.pathname ? 2 : 1;
  } catch {
    return 0;
  }
}

/** The same size within rounding: the tie-breaker between frames of one origin. */
export function sameSize(w1: number, h1: number, w2: number, h2: number): boolean {
  return Math.abs(w1 - w2) <= 2 && Math.abs(h1 - h2) <= 2;
}
