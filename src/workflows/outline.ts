/**
 * A snapshot's structured outline (`details.outline` of browser_snapshot: the lines as the
 * content script produced them, content-scripts/snapshot/outline-lines.ts) read into controls
 * with their context: the landmarks around each, the headings in force, the text just before
 * it. Workflows build and resolve semantic locators and final checks on this. They never parse
 * the model-facing text: its header, its untrusted wrapper (whose tag carries a random marker)
 * and its notes are not page content, and their format may change at any time.
 *
 * The outline is page-controlled data: nothing here trusts it beyond matching; an entry only
 * names a ref, and acting on a ref still goes through the tools and the Gatekeeper.
 */
import type { OutlineLine } from '../../content-scripts/snapshot/outline-lines';
import type { SnapshotOutline } from '../tools/browser/details';

export interface OutlineControl {
  /** Position in the outline (document order). */
  index: number;
  role: string;
  name: string;
  /** The model-facing ref (`e41`, `f3e41`) and the frame the snapshot read it in (0 = top). */
  ref: string;
  frameId: number;
  /** State flags (`checked`, `disabled`, …). */
  flags: string[];
  /** The `type=` hint of an input, when it has one. */
  inputType?: string;
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
  /** The page's text lines and headings, in order (never the tool's header or wrapper). */
  texts: string[];
  /** The heading lines' texts, in order. */
  headingTexts: string[];
}

const NEAR_LIMIT = 3;

/** Names compare on collapsed whitespace, case-insensitively (markup changes spacing, not words). */
export function normalizeText(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** `main`, `region "Cart"`: how a landmark is named in a locator. */
function sectionLabel(l: Extract<OutlineLine, { kind: 'section' }>): string {
  return l.name ? `${l.role} ${JSON.stringify(l.name)}` : l.role;
}

/** Context of every control of a structured outline. */
export function outlineOf(snapshot: SnapshotOutline): Outline {
  const out: Outline = {
    url: snapshot.url,
    title: snapshot.title,
    controls: [],
    texts: [],
    headingTexts: [],
  };
  const sections: { depth: number; label: string }[] = [];
  const headings: { level: number; text: string }[] = [];
  // Recent text lines, each with the landmark path it was seen in.
  let recent: { text: string; scope: string }[] = [];
  snapshot.lines.forEach((line, index) => {
    // A line closes every section at its depth or deeper (their children are one level in).
    while (sections.length && sections[sections.length - 1].depth >= line.depth) sections.pop();
    const scope = sections.map((s) => s.label).join('/');
    switch (line.kind) {
      case 'control':
        out.controls.push({
          index,
          role: line.role,
          name: line.name,
          ref: line.ref,
          frameId: snapshot.frameId,
          flags: line.flags,
          ...(line.inputType ? { inputType: line.inputType } : {}),
          landmarks: sections.map((s) => s.label),
          headings: headings.map((h) => h.text),
          nearText: recent
            .filter((r) => r.scope === scope)
            .slice(-NEAR_LIMIT)
            .reverse()
            .map((r) => r.text),
        });
        return;
      case 'section':
        sections.push({ depth: line.depth, label: sectionLabel(line) });
        recent = [];
        return;
      case 'heading':
        while (headings.length && headings[headings.length - 1].level >= line.level) headings.pop();
        headings.push({ level: line.level, text: line.text });
        out.headingTexts.push(line.text);
        out.texts.push(line.text);
        // Near text stays inside the heading's part of the page (the previous card is not near).
        recent = [];
        return;
      case 'text':
        out.texts.push(line.text);
        recent.push({ text: line.text, scope });
        if (recent.length > 8) recent.shift();
        return;
      case 'frame':
        // A same-origin frame's lines follow one level deeper: it is part of their place.
        if (line.crossOrigin === undefined) {
          sections.push({
            depth: line.depth,
            label: line.name ? `iframe ${JSON.stringify(line.name)}` : 'iframe',
          });
          recent = [];
        }
        return;
      case 'media':
        return;
    }
  });
  return out;
}

/**
 * The structured outline a tool result carries in `details.outline`, or undefined (a diff, a
 * find, an older record). Only its shape is checked: the values are the page's words.
 */
export function snapshotOutlineOf(details: unknown): SnapshotOutline | undefined {
  if (!details || typeof details !== 'object') return undefined;
  const o = (details as { outline?: unknown }).outline;
  if (!o || typeof o !== 'object') return undefined;
  const s = o as Partial<SnapshotOutline>;
  if (typeof s.frameId !== 'number' || typeof s.url !== 'string' || !Array.isArray(s.lines))
    return undefined;
  return { frameId: s.frameId, url: s.url, title: s.title ?? '', lines: s.lines };
}
