/**
 * Text lines that only repeat the adjacent control's or group's name are dropped
 * (content-scripts/snapshot/repeated-labels.ts); every other line stays, in order. Table cases,
 * then a property over generated outlines.
 */
import { describe, expect, it } from 'vitest';
import type { OutlineNode } from '../../../content-scripts/snapshot/outline-lines';
import { dropRepeatedLabels } from '../../../content-scripts/snapshot/repeated-labels';

interface L {
  depth: number;
  node: OutlineNode;
}
const text = (t: string, depth = 1, item = false): L => ({
  depth,
  node: { kind: 'text', text: t, ...(item ? { item } : {}) },
});
const control = (name: string, depth = 1): L => ({
  depth,
  node: { kind: 'control', role: 'textbox', name, ref: 'e1', flags: [] },
});
const group = (name: string, depth = 1): L => ({
  depth,
  node: { kind: 'section', role: 'group', name },
});
const shown = (lines: L[]) =>
  dropRepeatedLabels(lines).map(
    (l) =>
      `${l.node.kind}:${'name' in l.node ? l.node.name : ''}${'text' in l.node ? l.node.text : ''}`,
  );

describe('dropRepeatedLabels', () => {
  it('drops a label line before or after the control it names', () => {
    expect(shown([text('City'), control('City')])).toEqual(['control:City']);
    expect(shown([control('Dark mode'), text('Dark mode')])).toEqual(['control:Dark mode']);
  });

  it('drops a caption over the group it names', () => {
    expect(shown([text('Interests'), group('Interests'), control('Music', 2)])).toEqual([
      'section:Interests',
      'control:Music',
    ]);
  });

  it('keeps text that differs, sits apart, is a list item or follows a group header', () => {
    const kept = [
      [text('City:'), control('City')],
      [text('City'), text('x'), control('City')],
      [text('City', 1, true), control('City')],
      [group('Gender'), text('Gender', 1)],
      [text('Name', 2), control('Name', 1)],
      [text('Help'), control('')],
    ];
    for (const lines of kept) expect(dropRepeatedLabels(lines)).toEqual(lines);
  });

  it('keeps every line that is not an exact adjacent repeat (generated outlines)', () => {
    let s = 7;
    const r = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const names = ['A', 'B', 'C', ''];
    for (let run = 0; run < 200; run++) {
      const lines: L[] = Array.from({ length: 1 + Math.floor(r() * 30) }, () => {
        const name = names[Math.floor(r() * names.length)];
        const depth = Math.floor(r() * 3);
        const k = r();
        return k < 0.5
          ? text(name || 'z', depth, r() < 0.1)
          : k < 0.85
            ? control(name, depth)
            : group(name, depth);
      });
      const out = dropRepeatedLabels(lines);
      // Order kept, only text lines dropped, and each dropped one repeats a neighbour's name.
      let j = 0;
      lines.forEach((line, i) => {
        if (out[j] === line) {
          j++;
          return;
        }
        expect(line.node.kind).toBe('text');
        const t = (line.node as { text: string }).text;
        const near = [lines[i - 1], lines[i + 1]].filter(
          (o) => o && (o.node.kind === 'control' || o.node.kind === 'section'),
        );
        expect(near.some((o) => (o.node as { name: string }).name === t)).toBe(true);
      });
      expect(j).toBe(out.length);
    }
  });
});
