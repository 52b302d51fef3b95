// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { mainBlock, readableText } from '../../../content-scripts/readable-text';
import { diffLines } from '../../../content-scripts/snapshot/diff';
import { applyBudget } from '../../../content-scripts/snapshot/render';
import { clip, estimateTokens, normalizeSpace } from '../../../content-scripts/dom/text';

const para = (n: number) =>
  `<p>Paragraph ${n}, with enough words, commas, and substance to count as article prose for the scorer.</p>`;

beforeEach(() => {
  document.title = 'A story';
  document.body.innerHTML = '';
});

describe('readable text', () => {
  it('finds the article body and skips navigation, asides and hidden text', () => {
    document.body.innerHTML = `
      <nav><a href="/">Home</a> <a href="/news">News</a></nav>
      <div class="sidebar"><a href="/x">Trending one</a><a href="/y">Trending two</a></div>
      <div id="story"><h1>Big news</h1>${[1, 2, 3, 4, 5, 6].map(para).join('')}
        <ul><li>First point</li><li>Second point</li></ul>
        <p style="display:none">HIDDEN INJECTION</p>
        <aside>Related: other story</aside>
      </div>
      <footer>© Example</footer>`;
    expect(mainBlock(document).id).toBe('story');
    const r = readableText(document, 10_000, 0);
    expect(r.title).toBe('A story');
    expect(r.text.startsWith('# Big news\n\nParagraph 1, with enough words')).toBe(true);
    expect(r.text).toContain('- First point\n- Second point');
    expect(r.text).not.toMatch(/HIDDEN|Trending|Home|Related|©/);
    expect(r.nextOffset).toBeUndefined();
  });

  it('pages long text with offsets', () => {
    document.body.innerHTML = `<article>${Array.from({ length: 40 }, (_, i) => para(i)).join('')}</article>`;
    const first = readableText(document, 1000, 0);
    expect(first.text).toHaveLength(1000);
    expect(first.nextOffset).toBe(1000);
    const second = readableText(document, 1000, first.nextOffset ?? 0);
    expect(second.offset).toBe(1000);
    expect(first.text + second.text).toBe(readableText(document, 2000, 0).text);
  });
});

describe('serialization helpers', () => {
  it('normalizes space, drops icon glyphs, clips at words', () => {
    expect(normalizeSpace('  a\u00a0\n b\u200b \uE001c ')).toBe('a b c');
    expect(clip('one two three four five', 16)).toBe('one two three…');
    expect(clip('supercalifragilistic', 10)).toBe('supercalif…');
    expect(clip('short', 12)).toBe('short');
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('中文字符')).toBeGreaterThanOrEqual(3);
  });

  it('diffs lines with anchors and removals', () => {
    expect(diffLines(['a', 'b'], ['a', 'b'])).toEqual({ kind: 'unchanged' });
    const d = diffLines(['# T', 'x', 'y', 'z'], ['# T', 'x', 'new', 'z', 'tail']);
    expect(d).toEqual({
      kind: 'diff',
      added: 2,
      removed: 1,
      text: ['@@ after: x', '+ new', '@@ after: z', '+ tail', '@@ removed:', '- y'].join('\n'),
    });
    expect(diffLines([], ['a'])).toEqual({
      kind: 'diff',
      added: 1,
      removed: 0,
      text: '@@ at the top\n+ a',
    });
  });

  it('keeps a budgeted snapshot within its budget, note included', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `- button "Item number ${i}" [ref=e${i}]`);
    const b = applyBudget(lines, 1000, false);
    expect(b.truncated).toBe(true);
    expect(b.estTokens).toBeLessThanOrEqual(1000);
    expect(estimateTokens(b.text)).toBeLessThanOrEqual(1000);
    expect(b.text.endsWith('browser_snapshot with mode "viewport".]')).toBe(true);
    expect(applyBudget(lines.slice(0, 3), 1000, false).truncated).toBe(false);
  });
});
