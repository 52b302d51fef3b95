// @vitest-environment happy-dom
/**
 * The snapshot's structured lines (content-scripts/snapshot/outline-lines.ts) say what its text
 * lines say: one structured line per shown text line, in order, with the same depth, and each
 * control's role, name, ref, flags and value as its rendered line shows them. Checked on the real
 * walker's output (happy-dom), including a name with quotes, a named landmark, list items, a
 * page larger than the budget and a diff (which has no structure).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { PageEnv } from '../../../content-scripts/env';
import { createPageAgent, type PageAgent } from '../../../content-scripts/page-agent';
import type { PageResponse, SnapshotResult } from '../../../src/protocol/page-messages';
import { quote } from '../../../content-scripts/dom/text';

function env(): PageEnv {
  return {
    win: window,
    now: () => performance.now(),
    shadowRootOf: (el) => el.shadowRoot,
    boxOf: () => ({ x: 10, y: 10, width: 100, height: 20 }),
  };
}

let agent: PageAgent;

async function snap(extra: Record<string, unknown> = {}): Promise<SnapshotResult> {
  const res = (await agent.handle({
    op: 'snapshot',
    mode: 'full',
    incremental: false,
    maxTokens: 20_000,
    textLimit: 200,
    includeUrls: false,
    refPrefix: '',
    ...extra,
  })) as PageResponse<SnapshotResult>;
  if (!res.ok) throw new Error(res.error.message);
  return res.result;
}

const PAGE = `<header><input type="search" aria-label='Say "hi"'><a href="/cart">Cart (2)</a></header>
  <nav aria-label="Shop"><ul><li>Mugs</li><li>Trays</li></ul></nav>
  <main><h1>Your cart</h1><p>Added 2 × Blue mug.</p>
  <label>Quantity <input type="number" value="2"></label>
  <input type="checkbox" aria-label="Gift wrap" checked disabled>
  <img alt="A blue mug" src="x.png"><button>Checkout</button></main>`;

beforeEach(() => {
  document.body.innerHTML = PAGE;
  agent = createPageAgent(env(), 'doc1');
});

describe('structured snapshot lines', () => {
  it('match the rendered lines one to one', async () => {
    const r = await snap();
    const text = r.text.split('\n');
    const lines = r.outline!;
    expect(lines).toHaveLength(text.length);
    lines.forEach((l, i) => {
      const shown = text[i];
      expect(shown.length - shown.trimStart().length, shown).toBe(l.depth * 2);
      const t = shown.trim();
      switch (l.kind) {
        case 'control': {
          expect(
            t.startsWith(`- ${l.role}${l.name ? ` ${quote(l.name)}` : ''} [ref=${l.ref}]`),
            t,
          ).toBe(true);
          for (const f of l.flags) expect(t).toContain(`[${f}]`);
          if (l.inputType) expect(t).toContain(`[type=${l.inputType}]`);
          if (l.value !== undefined) expect(t.endsWith(`: ${l.value}`), t).toBe(true);
          break;
        }
        case 'heading':
          expect(t).toBe(`${'#'.repeat(l.level)} ${l.text}`);
          break;
        case 'section':
          expect(t).toBe(`- ${l.role}${l.name ? ` ${quote(l.name)}` : ''}:`);
          break;
        case 'text':
          expect(t).toBe(`${l.item ? '- ' : ''}${l.text}`);
          break;
        case 'media':
          expect(t).toBe(`- img ${quote(l.name)}`);
          break;
        case 'frame':
          expect(t.startsWith('- iframe')).toBe(true);
          break;
      }
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ kind: 'control', name: 'Say "hi"', depth: 1 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        kind: 'control',
        name: 'Gift wrap',
        flags: ['checked', 'disabled'],
      }),
    );
    expect(lines).toContainEqual({ kind: 'section', role: 'navigation', name: 'Shop', depth: 0 });
    expect(lines).toContainEqual({ kind: 'text', text: 'Mugs', item: true, depth: 1 });
  });

  it('a page of a larger outline carries the structure of that page only; a diff carries none', async () => {
    document.body.innerHTML = `<main>${Array.from({ length: 400 }, (_, i) => `<p>Line number ${i} of a long page with some words</p>`).join('')}</main>`;
    const p2 = await snap({ maxTokens: 600, page: 2 });
    const shown = p2.text.split('\n').filter((l) => !l.startsWith('['));
    expect(p2.outline!.map((l) => (l.kind === 'text' ? l.text : ''))).toEqual(
      shown.map((l) => l.trim()),
    );
    await snap({ incremental: true });
    document.body.querySelector('p')!.textContent = 'Changed';
    const diff = await snap({ incremental: true });
    expect(diff.kind).toBe('diff');
    expect(diff.outline).toBeUndefined();
  });
});
