/**
 * The snapshot cursor (content-scripts/snapshot/pages.ts), as properties over generated
 * outlines: the pages of an outline, read one after another, hold every line exactly once, in
 * order, each page within the budget; continuing after a ref resumes right after its line.
 */
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../content-scripts/dom/text';
import { pageOf } from '../../../content-scripts/snapshot/pages';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function outline(seed: number): string[] {
  const r = rng(seed);
  const n = 1 + Math.floor(r() * 400);
  return Array.from({ length: n }, (_, i) =>
    r() < 0.4
      ? `${'  '.repeat(Math.floor(r() * 3))}- button "Item ${i}" [ref=e${i + 1}]`
      : `text ${i} ${'word '.repeat(Math.floor(r() * 40))}`,
  );
}

const body = (text: string) =>
  text.split('\n').filter((l) => !/^\[(continued|truncated|no page|ref )/.test(l));

describe('snapshot pages', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`pages cover every line once, in order, within budget (seed ${seed})`, () => {
      const lines = outline(seed);
      const budget = 500 + Math.floor(rng(seed * 7)() * 1500);
      const seen: string[] = [];
      let pages = 0;
      for (let page = 1; page <= 1000; page++) {
        const p = pageOf(lines, budget, false, { page });
        pages = p.pages;
        expect(p.estTokens, `seed ${seed} page ${page}`).toBeLessThanOrEqual(budget + 20);
        expect(estimateTokens(p.text)).toBe(p.estTokens);
        seen.push(...body(p.text));
        if (!p.truncated) break;
        expect(p.text).toContain(`browser_snapshot page ${page + 1}`);
      }
      expect(seen, `seed ${seed}`).toEqual(lines);
      expect(pages).toBeGreaterThanOrEqual(1);
    });
  }

  it('continues after a ref, and says when the ref is gone', () => {
    const lines = outline(3);
    const withRef = lines.findIndex((l) => l.includes('[ref='));
    const ref = /\[ref=(e\d+)\]/.exec(lines[withRef])![1];
    const next = pageOf(lines, 100_000, false, { afterRef: ref });
    expect(body(next.text)).toEqual(lines.slice(withRef + 1));
    const gone = pageOf(lines, 100_000, false, { afterRef: 'e999999' });
    expect(gone.text.split('\n')[0]).toMatch(/ref e999999 is not on the page now/);
    expect(body(gone.text)).toEqual(lines);
  });

  it('a walk cut short for time still offers the next page', () => {
    const lines = ['- button "A" [ref=e1]', '- button "B" [ref=e2]'];
    const p = pageOf(lines, 1000, true, {});
    expect(p.truncated).toBe(true);
    expect(p.text).toMatch(/page 1 of 1\+.*browser_snapshot page 2 \(or afterRef "e2"\)/);
  });
});
