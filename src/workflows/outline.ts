/**
 * Reads the snapshot outline (content-scripts/snapshot: `- role "name" [ref=e41] [flags]: value`
 * control lines, `# heading` lines, `- landmark "name":` section lines whose children are
 * indented, and clipped text lines) back into entries with their context. Workflows build and
 * resolve semantic locators on this, so they see exactly what the model saw.
 *
 * The outline is page-controlled text: nothing here trusts it beyond matching; an entry only
 * names a ref, and acting on a ref still goes through the tools and the Gatekeeper.
 */

export interface OutlineControl {
  /** Position in the outline (document order). */
  index: number;
  role: string;
  name: string;
  /** The model-facing ref (`e41`, `f3e41`) and its frame (0 = top). */
  ref: string;
  frameId: number;
  /** Bracketed flags after the ref (`type=email`, `checked`, …). */
  flags: string[];
  /** Landmarks enclosing the line, outermost first (`main`, `region "Cart"`). */
  landmarks: string[];
  /** The headings in force at the line, by level, outermost first. */
  headings: string[];
  /** Up to three text lines just before the line, after its heading and inside its landmark, nearest first. */
  nearText: string[];
}

export interface Outline {
  url?: string;
  title?: string;
  controls: OutlineControl[];
  /** Every non-control line's text, trimmed (headings without their `#`). */
  texts: string[];
  /** The heading lines' texts, in order. */
  headingTexts: string[];
}

const CONTROL =
  /^- ([a-zA-Z][\w-]*)(?: ("(?:[^"\\]|\\.)*"))? \[ref=((?:f(\d{1,9}))?e\d{1,9})\](.*)$/;
const SECTION = /^- ([a-zA-Z][\w-]*)(?: ("(?:[^"\\]|\\.)*"))?:$/;
const HEADING = /^(#{1,6}) (.*)$/;
const FLAG = /\[([^\]]+)\]/g;
const NEAR_LIMIT = 3;

/** Names compare on collapsed whitespace, case-insensitively (markup changes spacing, not words). */
export function normalizeText(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

function unquote(q: string | undefined): string {
  if (!q) return '';
  return q.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** Strips the snapshot tool's wrapper (header, untrusted note and tags), keeping Title/URL. */
function bodyLines(text: string): string[] {
  const lines = text.split('\n');
  const open = lines.findIndex((l) => /^<untrusted_page_content\b/.test(l));
  const close = lines.findIndex((l, i) => i > open && l === '</untrusted_page_content>');
  if (open < 0) return lines;
  return lines.slice(open + 1, close < 0 ? undefined : close);
}

/** Parse a snapshot (or find) result text; lines that match no known shape are text. */
export function parseOutline(text: string): Outline {
  const out: Outline = { controls: [], texts: [], headingTexts: [] };
  const sections: { depth: number; label: string }[] = [];
  const headings: { level: number; text: string }[] = [];
  // Recent text lines, each with the landmark stack length when it was seen.
  let recent: { text: string; scope: string }[] = [];
  let index = 0;
  for (const raw of bodyLines(text)) {
    if (!raw.trim()) continue;
    if (out.url === undefined && raw.startsWith('URL: ')) {
      out.url = raw.slice(5).trim();
      continue;
    }
    if (out.title === undefined && raw.startsWith('Title: ')) {
      out.title = raw.slice(7).trim();
      continue;
    }
    const depth = Math.floor((raw.length - raw.trimStart().length) / 2);
    const line = raw.trim();
    while (sections.length && sections[sections.length - 1].depth >= depth) sections.pop();
    const scope = sections.map((s) => s.label).join('/');
    const c = CONTROL.exec(line);
    if (c) {
      const flags = [...c[5].split(': ')[0].matchAll(FLAG)].map((m) => m[1]);
      out.controls.push({
        index: index++,
        role: c[1],
        name: unquote(c[2]),
        ref: c[3],
        frameId: c[4] === undefined ? 0 : Number(c[4]),
        flags,
        landmarks: sections.map((s) => s.label),
        headings: headings.map((h) => h.text),
        nearText: recent
          .filter((r) => r.scope === scope)
          .slice(-NEAR_LIMIT)
          .reverse()
          .map((r) => r.text),
      });
      continue;
    }
    index++;
    const s = SECTION.exec(line);
    if (s) {
      sections.push({ depth, label: s[2] ? `${s[1]} ${s[2]}` : s[1] });
      recent = [];
      continue;
    }
    const h = HEADING.exec(line);
    const t = h ? h[2].trim() : line;
    if (h) {
      const level = h[1].length;
      while (headings.length && headings[headings.length - 1].level >= level) headings.pop();
      headings.push({ level, text: t });
      out.headingTexts.push(t);
      // Near text stays inside the heading's part of the page (the previous card is not near).
      recent = [];
      out.texts.push(t);
      continue;
    }
    out.texts.push(t);
    recent.push({ text: t, scope });
    if (recent.length > 8) recent.shift();
  }
  return out;
}
