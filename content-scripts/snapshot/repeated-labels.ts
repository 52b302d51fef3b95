/**
 * A visible label drawn beside its control (a `<span id>` the control points to with
 * aria-labelledby, a caption over a named group) is walked as a text line, and its words are
 * the control's name on the very next or previous line: the text line says nothing the control
 * line does not, and costs a line on every form field labelled that way (issue 26, point 3).
 * Such a line is dropped. Only an exact repeat beside the line that carries it goes: text that
 * differs by a word, or sits elsewhere, stays, so nothing the page shows is lost.
 */
import type { OutlineNode } from './outline-lines';

interface Line {
  depth: number;
  node?: OutlineNode;
}

/** The name a control or a named section line carries, '' for any other line. */
function nameOf(line: Line | undefined): string {
  const n = line?.node;
  if (n?.kind === 'control' || n?.kind === 'section') return n.name;
  return '';
}

/** The lines without text lines that repeat an adjacent control's or group's name. */
export function dropRepeatedLabels<L extends Line>(lines: readonly L[]): L[] {
  return lines.filter((line, i) => {
    const n = line.node;
    if (n?.kind !== 'text' || n.item) return true;
    const next = lines[i + 1];
    const prev = lines[i - 1];
    const repeats = (other: L | undefined) =>
      other !== undefined && other.depth >= line.depth && nameOf(other) === n.text;
    return !(repeats(next) || (prev?.node?.kind === 'control' && repeats(prev)));
  });
}
