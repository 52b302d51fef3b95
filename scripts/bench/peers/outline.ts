/**
 * Reads the page the way a careful model reads either agent's snapshot: one element a line,
 * `- role "name" [attrs] [ref=e12]: inline text`, nested by indentation (Playwright's YAML) or
 * flat (Keel's outline, where a row's text is a plain line between its controls). Nothing here knows a framework, a CSS class or an agent: only roles,
 * names, values, visible text and rows.
 */

export interface OutlineLine {
  /** Indentation in characters (0 for a flat outline). */
  indent: number;
  role: string;
  /** The quoted accessible name, unescaped; '' when there is none. */
  name: string;
  ref?: string;
  /** Text after the final `: ` (a value, or a generic element's text). */
  text: string;
  /** The line as written. */
  raw: string;
}

/** What to act on: by role, name, value or visible text, optionally inside the row showing `row`. */
export interface Locator {
  role?: string;
  /** Exact accessible name. */
  name?: string;
  /** Exact text shown: the name or the inline text (a value, a generic's text). */
  text?: string;
  /** Inside the list / table / grid row that shows this text. */
  row?: string;
}

const LINE = /^(\s*)(?:- )?([a-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?(.*)$/;
const REF = /\[ref=((?:f\d+)?e\d+)\]/;

/** Parses the lines of a tool result that look like outline lines; others are skipped. */
export function parseOutline(text: string): OutlineLine[] {
  const out: OutlineLine[] = [];
  for (const raw of text.split('\n')) {
    const trimmed = raw.replace(/^(\s*)(element now: |appeared: |element: )/, '$1');
    const plain = /^(\s*)- (?!\w[\w-]*(?: "| \[|:|$))(.+)$/.exec(trimmed);
    if (plain && !REF.test(trimmed)) {
      // Keel's plain text lines: `- Buy milk` (no role).
      out.push({ indent: plain[1].length, role: 'text', name: '', text: unquote(plain[2]), raw });
      continue;
    }
    if (!trimmed.trimStart().startsWith('- ')) {
      // Keel's plain text lines carry no dash ("Buy oat milk" between a row's controls); tags,
      // headings' marks and blank lines say nothing about the page's rows.
      const t = trimmed.trim().replace(/^#+\s*/, '');
      if (t && !t.startsWith('<'))
        out.push({
          indent: raw.length - raw.trimStart().length,
          role: 'text',
          name: '',
          text: t,
          raw,
        });
      continue;
    }
    const m = LINE.exec(trimmed);
    if (!m) continue;
    const rest = m[4] ?? '';
    const inline = /(?:^|\]|\s):\s(.*)$/.exec(rest)?.[1] ?? '';
    out.push({
      indent: m[1].length,
      role: m[2],
      name: m[3] ? m[3].replace(/\\(.)/g, '$1') : '',
      ref: REF.exec(rest)?.[1],
      text: unquote(inline.trim()),
      raw,
    });
  }
  return out;
}

function unquote(s: string): string {
  return /^"(.*)"$/.test(s) ? s.slice(1, -1).replace(/\\(.)/g, '$1') : s;
}

const shows = (l: OutlineLine, text: string) => l.name === text || l.text === text;

function matches(l: OutlineLine, loc: Locator, loose = false): boolean {
  if (!l.ref) return false;
  if (loc.role && l.role !== loc.role) return false;
  if (
    loc.name !== undefined &&
    l.name !== loc.name &&
    !(loose && l.name?.startsWith(`${loc.name} `))
  )
    return false;
  if (loc.text !== undefined && !shows(l, loc.text)) return false;
  return true;
}

/** Row-like containers in a nested outline. */
const ROWS = new Set(['listitem', 'row', 'treeitem', 'article', 'option', 'gridcell']);

/**
 * The lines that belong to the row showing `row`: the enclosing row container in a nested
 * outline; in a flat one, from the row's text to the next line of plain text (the next row),
 * then the controls just before it back to the previous plain text (a checkbox precedes its
 * label) — groups in that order, so the nearest row's control wins.
 */
function rowLines(lines: OutlineLine[], row: string): OutlineLine[][] {
  const found: OutlineLine[][] = [];
  lines.forEach((l, i) => {
    if (!shows(l, row)) return;
    for (let j = i - 1; j >= 0; j--) {
      if (lines[j].indent < l.indent && ROWS.has(lines[j].role)) {
        const out: OutlineLine[] = [];
        for (let k = j + 1; k < lines.length && lines[k].indent > lines[j].indent; k++)
          out.push(lines[k]);
        found.push(out);
        return;
      }
      if (lines[j].indent < l.indent && lines[j].indent === 0) break;
    }
    // Flat: the controls after the text first, then those just before it, nearest first.
    const isPlain = (x: OutlineLine) => !x.ref && x.role === 'text';
    const after: OutlineLine[] = [];
    for (let k = i + 1; k < lines.length && !isPlain(lines[k]); k++) after.push(lines[k]);
    const before: OutlineLine[] = [];
    for (let k = i - 1; k >= 0 && !isPlain(lines[k]) && lines[k].indent === l.indent; k--)
      before.push(lines[k]);
    found.push(after, before);
  });
  return found;
}

/** The ref of the element `loc` names in one tool result, if it shows one. */
export function locate(text: string, loc: Locator): string | undefined {
  const lines = parseOutline(text);
  // A name that only begins with the one looked for ("Country Choose a country": a label and the
  // button's own text, as Playwright names a Headless UI Listbox button) is what a careful model
  // takes when nothing is named exactly so.
  if (!loc.row)
    return (lines.find((l) => matches(l, loc)) ?? lines.find((l) => matches(l, loc, true)))?.ref;
  // Named for its row by the page or the agent (`… in row "Buy milk"`): the line says so itself.
  const quoted = `"${loc.row}"`;
  const own = lines.find(
    (l) => matches(l, { ...loc, row: undefined }) && l.raw.includes(quoted) && !shows(l, loc.row!),
  );
  if (own?.ref) return own.ref;
  for (const group of rowLines(lines, loc.row)) {
    const hit = group.find((l) => matches(l, { ...loc, row: undefined }));
    if (hit?.ref) return hit.ref;
  }
  return undefined;
}

/** The words a search for `loc` uses (what a model would type into a find box). */
export function queryOf(loc: Locator): string {
  return loc.row ?? loc.name ?? loc.text ?? loc.role ?? '';
}

/** A description of `loc` for logs and failures. */
export function describe(loc: Locator): string {
  const parts = [
    loc.role ?? 'element',
    loc.name !== undefined ? `"${loc.name}"` : '',
    loc.text !== undefined ? `showing "${loc.text}"` : '',
    loc.row ? `in row "${loc.row}"` : '',
  ];
  return parts.filter(Boolean).join(' ');
}
