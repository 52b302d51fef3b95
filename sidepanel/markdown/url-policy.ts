/**
 * Which URLs model-written content may point at. Model output can be steered by page content
 * (prompt injection), so links and images are treated as hostile input.
 */

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/]+=*$/i;

/** An absolute http(s)/mailto URL, normalized; null for anything else (javascript:, data:, relative). */
export function safeLinkHref(href: string | null | undefined): string | null {
  if (!href) return null;
  try {
    // The URL parser strips tabs/newlines and decodes the scheme, so `java\tscript:` is caught here.
    const url = new URL(href.trim());
    return LINK_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** An https image or an inline raster data URL (no SVG: it can carry script). */
export function safeImageSrc(src: string | null | undefined): string | null {
  if (!src) return null;
  const trimmed = src.trim();
  if (DATA_IMAGE.test(trimmed)) return trimmed;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
