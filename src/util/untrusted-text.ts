/**
 * The shared core of every untrusted block (page, tool and MCP text the model must treat as
 * data): neutralising forged block tags, and the per-block marker.
 *
 * A page forges a closing tag in ways a plain regex misses: `< /untrusted_data>`, a word joiner
 * (U+2060) or a Unicode tag character inside the name, fullwidth brackets (＜／…＞) that a model
 * reads as `<`, `-` for `_`. So the text is first stripped of format characters (Unicode Cf:
 * zero-width, bidi controls, tag characters U+E0000–E007F) and NFKC-normalised — what the model
 * reads is what was checked — and then every `<` that opens something tag-like named
 * "untrusted…" is escaped. The block's own tag also carries a marker the page cannot know, so
 * even a closing tag that slipped through would not match the real one.
 */

/** Unicode format characters: zero-width, bidi embedding/isolates, tag characters, BOM. */
const FORMAT_CHARS = /\p{Cf}/gu;

/** `<`, optional space and `/`, then a name that starts like one of Keel's block tags. */
const FORGED_TAG = /<(\s*\/?\s*)(untrusted[\s_-]*(?:data|page[\s_-]*content)?)/giu;
/**
 * Only the data-block family (`untrusted_data…`, `untrusted…` alone): for the engine's outer
 * block, whose content may hold a tool's own page block (already neutralised inside, by the tool).
 */
const FORGED_DATA_TAG = /<(\s*\/?\s*)(untrusted(?![\s_-]*page[\s_-]*content)[\s_-]*(?:data)?)/giu;

/** Text as the model will read it: no invisible characters, compatibility forms folded. */
export function normalizeUntrusted(text: string): string {
  return text.replace(FORMAT_CHARS, '').normalize('NFKC').replace(FORMAT_CHARS, '');
}

/**
 * Normalised text with every tag-like "untrusted…" opener escaped — or with `family: 'data'`,
 * only the data-block ones (the engine's wrapper around a tool's result, which may contain the
 * tool's own untrusted_page_content block).
 */
export function neutralizeUntrusted(text: string, family: 'all' | 'data' = 'all'): string {
  return normalizeUntrusted(text).replace(family === 'all' ? FORGED_TAG : FORGED_DATA_TAG, '&lt;$1$2');
}

/** Source attributes: one line, no quotes or brackets that could end the attribute or tag. */
export function untrustedAttr(value: string): string {
  // A source is a URL or a name: a page-made 1 MB URL must not become a 1 MB attribute.
  const chars = [...normalizeUntrusted(value)];
  return (chars.length > 500 ? `${chars.slice(0, 500).join('')}…` : chars.join(''))
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\r\n]+/g, ' ');
}

/** 12 hex characters from a random source (crypto by default; tests inject their own). */
export function randomMarker(random: (bytes: number) => Uint8Array = cryptoBytes): string {
  return [...random(6)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function cryptoBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/**
 * A marker derived from the block's content, for blocks rebuilt on every model request: the same
 * stored result must wrap to the same bytes (prompt caching), and a page cannot embed the hash of
 * the text that contains it. Forged tags are escaped regardless; the marker is the second layer.
 */
export function contentMarker(...parts: string[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    h1 = Math.imul(h1 ^ 0xff, 0x01000193);
  }
  return ((h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')).slice(0, 12);
}
