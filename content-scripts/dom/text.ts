/** Text helpers shared by the snapshot, find and readable-text extraction. */

// Private-use code points are icon-font glyphs (Font Awesome, Material Icons): noise for the model.
const PRIVATE_USE = /[\uE000-\uF8FF]/g;
const WHITESPACE = /(?:[\s\u00a0\u200b\u200c\ufeff]|\u200d)+/g;

export function normalizeSpace(s: string): string {
  return s.replace(PRIVATE_USE, '').replace(WHITESPACE, ' ').trim();
}

/** Cuts at a word boundary near `max` and marks the cut, so the model knows there is more. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.lastIndexOf(' ', max);
  if (cut < max * 0.6) cut = max;
  return `${s.slice(0, cut).trimEnd()}…`;
}

/** Double-quoted name as in PROTOCOL.md; embedded quotes are escaped so the line stays parseable. */
export function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * A cheap o200k-like token estimate: about 4 characters per token for Latin text and about one
 * per CJK character. The content script cannot carry a real tokenizer (megabytes of tables);
 * the estimate only has to keep a budget roughly honest.
 */
export function estimateTokens(s: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) < 0x0300) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4 + other / 1.3);
}
