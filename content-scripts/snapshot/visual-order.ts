/**
 * Controls a page lays out out of DOM order — floated right (the first in the DOM is drawn
 * rightmost), a reversed flex row, flex `order` — are listed in the order a user sees them, so
 * that "the third icon" in a screenshot is the third line. Pure: the walker supplies the styles
 * and boxes.
 */
import type { Box } from '../env';

/** The styles that decide it, of a container and of its element children. */
export interface OrderStyles {
  display: string;
  flexDirection: string;
  float: string;
  order: string;
}

/**
 * The children are drawn in another order than the DOM's: some float right, or the container is
 * a flex box that reverses its direction or reorders its items.
 */
export function drawnOutOfOrder(parent: OrderStyles, children: readonly OrderStyles[]): boolean {
  if (children.length < 2) return false;
  if (parent.display === 'flex' || parent.display === 'inline-flex') {
    if (parent.flexDirection.endsWith('-reverse')) return true;
    if (children.some((c) => c.order !== '0' && c.order !== '')) return true;
  }
  return children.some((c) => c.float === 'right');
}

/**
 * Indices of `boxes` in reading order: top to bottom by rows (boxes that overlap vertically share
 * a row), then left to right — right to left on a right-to-left page. Stable for ties.
 */
export function readingOrder(boxes: readonly Box[], rtl = false): number[] {
  const idx = boxes.map((_, i) => i);
  // Rows first: a box joins the row of the earliest box it overlaps vertically by half its height.
  const byTop = [...idx].sort((a, b) => boxes[a].y - boxes[b].y || a - b);
  const row = new Array<number>(boxes.length).fill(0);
  let rows: { top: number; bottom: number }[] = [];
  for (const i of byTop) {
    const b = boxes[i];
    const mid = b.y + b.height / 2;
    let r = rows.findIndex((x) => mid >= x.top && mid <= x.bottom);
    if (r < 0) {
      rows = [...rows, { top: b.y, bottom: b.y + b.height }];
      r = rows.length - 1;
    }
    row[i] = r;
  }
  return idx.sort((a, b) => {
    if (row[a] !== row[b]) return row[a] - row[b];
    const dx = rtl
      ? boxes[b].x + boxes[b].width - (boxes[a].x + boxes[a].width)
      : boxes[a].x - boxes[b].x;
    return dx || a - b;
  });
}
