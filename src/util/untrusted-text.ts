/**
 * The shared core of every untrusted block (page, tool and MCP text the model must treat as
 * data): neutralising forged block tags, and the per-block marker.
 *
 * A page forges a closing tag in ways a plain regex misses: `< /untrusted_data>`, a word joiner
 * (U+2060) or a Unicode tag character inside the name, fullwidth brackets (＜／…＞) that a model
 * reads as `<`, `-` for `_`. So the text is first stripped of format characters (Unicode Cf:
 * zero-width, bidi controls, tag characters U+E0000–E007F), and every `<`-like character whose
 * NFKC-normalised continuation opens something tag-like named "untrusted…" is escaped. The block's own tag also carries a marker the page cannot know, so
 * even a closing tag that slipped through would not match the real one.
 */

/** Unicode format characters: zero-width, bidi embedding/isolates, tag characters, BOM. */
const FORMAT_CHARS = /\p{Cf}/gu;

/** Characters a model reads as `<` (NFKC folds the small and fullwidth forms to it). */
const LESS_THAN = /[<\ufe64\uff1c]/g;

/** What follows a `<` that opens one of Keel's block tags, on NFKC text: `/untrusted_data…`. */
const FORGED_TAG = /^\s*\/?\s*untrusted/iu;
/**
 * Only the data-block family (`untrusted_data…`, `untrusted…` alone): for the engine's outer
 * block, whose content may hold a tool's own page block (already neutralised inside, by the tool).
 */
const FORGED_DATA_TAG = /^\s*\/?\s*untrusted(?![\s_-]*page[\s_-]*content)/iu;

/** Text without invisible characters: what is checked is what the model reads. */
export function normalizeUntrusted(text: string): string {
  return text.replace(FORMAT_CHARS, '');
}

/**
 * Text stripped of format characters, with every `<` (or its small/fullwidth form) that opens
 * a tag-like "untrusted…" — judged on the NFKC form of what follows, so fullwidth letters and
 * slashes count — escaped as `&lt;`. The rest of the text is kept as written (NFKC is only
 * used to match: it would rewrite ordinary text, "…" into "..."). With `family: 'data'`, only
 * the data-block tags are escaped (the engine's wrapper around a tool's result, which may
 * contain the tool's own untrusted_page_content block).
 */
export function neutralizeUntrusted(text: string, family: 'all' | 'data' = 'all'): string {
  const clean = normalizeUntrusted(text);
  const opens = family === 'all' ? FORGED_TAG : FORGED_DATA_TAG;
  return clean.replace(LESS_THAN, (lt, at: number) =>
    opens.test(clean.slice(at + 1, at + 80).normalize('NFKC')) ? '&lt;' : lt,
  );
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
  return (
    (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')
  ).slice(0, 12);
}
