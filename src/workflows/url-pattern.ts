/**
 * The URL pattern of a step's page: origin and path, with segments that look like generated ids
 * (numbers, long hex or mixed tokens) as `*`, and no query or fragment. A page "differs" when its
 * URL does not match the pattern its step was recorded on.
 */

const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8,}|[0-9a-z_-]*\d[0-9a-z_-]*\d[0-9a-z_-]*)$/i;

/** `https://shop.example/product/42?x=1` → `https://shop.example/product/*`; null for a non-URL. */
export function urlPattern(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'file:') return null;
  const path = u.pathname
    .split('/')
    .map((seg) => (seg && ID_SEGMENT.test(decodeURIComponent(seg)) ? '*' : seg))
    .join('/');
  return `${u.origin}${path}`;
}

/** The URL is on the pattern's origin with the same path (each `*` standing for one segment). */
export function matchesUrlPattern(pattern: string, url: string): boolean {
  const p = urlPattern(url);
  if (p === null) return false;
  const a = pattern.split('/');
  const b = p.split('/');
  if (a.length !== b.length) return false;
  return a.every((seg, i) => seg === '*' || seg === b[i]);
}
