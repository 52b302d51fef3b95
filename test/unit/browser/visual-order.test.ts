/**
 * Controls drawn out of DOM order are listed in reading order (issue 26, point 3): which layouts
 * reorder, and the order itself on generated rows of boxes.
 */
import { describe, expect, it } from 'vitest';
import {
  drawnOutOfOrder,
  readingOrder,
  type OrderStyles,
} from '../../../content-scripts/snapshot/visual-order';
import { Rng } from '../../sim/rng';

const block: OrderStyles = { display: 'block', flexDirection: 'row', float: 'none', order: '0' };
const flex: OrderStyles = { ...block, display: 'flex' };

describe('drawnOutOfOrder', () => {
  it('is true for right floats, reversed flex boxes and reordered flex items only', () => {
    const kids = [block, block];
    expect(drawnOutOfOrder(block, kids)).toBe(false);
    expect(drawnOutOfOrder(flex, kids)).toBe(false);
    expect(drawnOutOfOrder(block, [block, { ...block, float: 'right' }])).toBe(true);
    expect(drawnOutOfOrder(block, [block, { ...block, float: 'left' }])).toBe(false);
    expect(drawnOutOfOrder({ ...flex, flexDirection: 'row-reverse' }, kids)).toBe(true);
    expect(drawnOutOfOrder({ ...flex, flexDirection: 'column-reverse' }, kids)).toBe(true);
    expect(
      drawnOutOfOrder({ ...flex, display: 'inline-flex' }, [block, { ...block, order: '2' }]),
    ).toBe(true);
    // `order` means nothing outside a flex (or grid) box; one child has no order to change.
    expect(drawnOutOfOrder(block, [block, { ...block, order: '2' }])).toBe(false);
    expect(drawnOutOfOrder({ ...flex, flexDirection: 'row-reverse' }, [block])).toBe(false);
  });
});

describe('readingOrder', () => {
  it('lists rows top to bottom and each row left to right (right to left when rtl), 2,000 layouts', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const rand = new Rng(seed);
      const r = () => rand.next();
      // Rows of boxes of mixed heights, centred on their row's line, in a shuffled DOM order.
      const rows = 1 + Math.floor(r() * 3);
      const laid: {
        row: number;
        x: number;
        box: { x: number; y: number; width: number; height: number };
      }[] = [];
      for (let row = 0; row < rows; row++) {
        const n = 1 + Math.floor(r() * 5);
        let x = 0;
        for (let i = 0; i < n; i++) {
          const height = 20 + Math.floor(r() * 20);
          const width = 30 + Math.floor(r() * 40);
          laid.push({ row, x, box: { x, y: row * 60 + 30 - height / 2, width, height } });
          x += width + 4;
        }
      }
      const dom = [...laid].sort(() => r() - 0.5);
      const boxes = dom.map((d) => d.box);
      const want = (rtl: boolean) =>
        [...dom.keys()].sort(
          (a, b) => dom[a].row - dom[b].row || (rtl ? dom[b].x - dom[a].x : dom[a].x - dom[b].x),
        );
      expect(readingOrder(boxes), `seed ${seed}`).toEqual(want(false));
      expect(readingOrder(boxes, true), `seed ${seed}`).toEqual(want(true));
    }
  });

  it('keeps DOM order for boxes drawn at the same place', () => {
    const box = { x: 0, y: 0, width: 10, height: 10 };
    expect(readingOrder([box, box, box])).toEqual([0, 1, 2]);
  });
});
