// @vitest-environment happy-dom
/**
 * The snapshot walker and serializer on happy-dom. happy-dom has no layout, so geometry is a fake
 * that reads the element's inline position and size (the real thing is covered in Chromium).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Box, PageEnv } from '../../../content-scripts/env';
import { createPageAgent, type PageAgent } from '../../../content-scripts/page-agent';
import type { PageResponse, SnapshotResult } from '../../../src/protocol/page-messages';

function fakeBox(el: Element): Box {
  const style = (el as HTMLElement).style;
  const num = (v: string | undefined, d: number) => (v && v.endsWith('px') ? parseFloat(v) : d);
  return {
    x: num(style?.left, 10),
    y: num(style?.top, 10),
    width: num(style?.width, 100),
    height: num(style?.height, 20),
  };
}

function env(): PageEnv {
  return {
    win: window,
    now: () => performance.now(),
    shadowRootOf: (el) => el.shadowRoot,
    boxOf: fakeBox,
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

beforeEach(() => {
  document.head.innerHTML = '';
  document.body.innerHTML = '';
  agent = createPageAgent(env(), 'doc1');
});

describe('outline', () => {
  it('puts each control on its own line with role, quoted name, ref and state', async () => {
    document.body.innerHTML = `
      <main>
        <h1>Shop</h1>
        <p>Fresh <b>bread</b> daily.</p>
        <button>Add to cart</button>
        <label>Qty <input type="number" value="2"></label>
        <input type="checkbox" aria-label="Gift wrap" checked>
        <a href="/help">Help</a>
        <button disabled>Sold "out"</button>
        <div role="tab" aria-selected="true">Reviews</div>
      </main>`;
    const { text, refs } = await snap();
    expect(text).toBe(
      [
        '- main:',
        '  # Shop',
        '  Fresh bread daily.',
        '  - button "Add to cart" [ref=e1]',
        '  - spinbutton "Qty" [ref=e2]: 2',
        '  - checkbox "Gift wrap" [ref=e3] [checked]',
        '  - link "Help" [ref=e4]',
        '  - button "Sold \\"out\\"" [ref=e5] [disabled]',
        '  - tab "Reviews" [ref=e6] [selected]',
      ].join('\n'),
    );
    expect(refs).toBe(6);
  });

  it('drops hidden content: display, visibility, aria-hidden, hidden, off-screen, zero size', async () => {
    document.body.innerHTML = `
      <p>Visible text</p>
      <p style="display:none">INJ1</p>
      <p style="visibility:hidden">INJ2</p>
      <p aria-hidden="true">INJ3 <button>INJ3b</button></p>
      <p hidden>INJ4</p>
      <p style="position:absolute; left:-9999px">INJ5</p>
      <div style="width:0px; height:0px; overflow:hidden">INJ6</div>
      <p style="opacity:0">INJ7</p>
      <p style="font-size:0px">INJ8</p>
      <p style="color:rgb(255, 255, 255)">INJ9</p>
      <script>INJ10</script><template>INJ11</template>`;
    const { text } = await snap();
    expect(text).toBe('Visible text');
  });

  it('keeps refs stable for unchanged elements and never reuses them', async () => {
    document.body.innerHTML = '<button id="a">One</button><button id="b">Two</button>';
    const first = await snap();
    document.getElementById('a')?.remove();
    document.body.insertAdjacentHTML('afterbegin', '<button>Zero</button>');
    const second = await snap();
    expect(first.text).toBe('- button "One" [ref=e1]\n- button "Two" [ref=e2]');
    expect(second.text).toBe('- button "Zero" [ref=e3]\n- button "Two" [ref=e2]');
    const stale = await agent.handle({ op: 'describe', ref: 'e1' });
    expect(stale).toMatchObject({ ok: false, error: { code: 'stale_ref' } });
  });

  it('walks open shadow roots and slots', async () => {
    const host = document.createElement('div');
    host.innerHTML = '<span slot="t">Slotted title</span>';
    const root = host.attachShadow({ mode: 'open' });
    root.innerHTML = '<h2><slot name="t"></slot></h2><button>Inside</button>';
    document.body.appendChild(host);
    const { text } = await snap();
    expect(text).toBe('## Slotted title\n- button "Inside" [ref=e1]');
  });

  it('labels, lists, tables and landmarks', async () => {
    document.body.innerHTML = `
      <nav aria-label="Main"><ul><li><a href="/a">A</a></li><li>Plain item</li></ul></nav>
      <table><tr><th>Name</th><th>Qty</th></tr><tr><td>Tea</td><td>3</td></tr></table>
      <section><p>Unnamed section is not a landmark</p></section>
      <nav aria-label="Empty"></nav>`;
    const { text } = await snap();
    expect(text).toBe(
      [
        '- navigation "Main":',
        '  - link "A" [ref=e1]',
        '  - Plain item',
        'Name | Qty',
        'Tea | 3',
        'Unnamed section is not a landmark',
      ].join('\n'),
    );
  });

  it('masks secrets and lists select options', async () => {
    document.body.innerHTML = `
      <label>Password <input type="password" value="hunter2"></label>
      <label>Card <input autocomplete="cc-number" value="4111 1111 1111 1234"></label>
      <label>Size <select><option>S</option><option selected>M</option><option>L</option></select></label>`;
    const { text } = await snap();
    expect(text).toContain('- textbox "Password" [ref=e1] [type=password]: •••••••');
    expect(text).toContain('- textbox "Card" [ref=e2]: •••• 1234');
    expect(text).toContain('- combobox "Size" [ref=e3]: M [options: S, M, L]');
    expect(text).not.toContain('hunter2');
  });

  it('clips long text and ends over-budget snapshots with a note', async () => {
    document.body.innerHTML = `<p>${'word '.repeat(200)}</p>` + '<button>b</button>'.repeat(300);
    const clipped = await snap({ textLimit: 50 });
    expect(clipped.text.split('\n')[0]).toMatch(/^(word ){9}word…$/);
    const budget = await snap({ maxTokens: 500 });
    expect(budget.truncated).toBe(true);
    expect(budget.text).toMatch(
      /\[truncated: the page is larger than the 500-token snapshot budget; page 1 of \d+ \(\d+ of \d+ lines\)\. Continue with browser_snapshot page 2 \(or afterRef "e\d+"\); use browser_find/,
    );
  });
});

describe('incremental snapshots', () => {
  it('reports added and removed lines only (and the whole page when most of it changed)', async () => {
    document.body.innerHTML =
      '<h1>List</h1><ul><li>Milk</li><li>Bread</li></ul><p>2 items</p>' +
      '<button>Other</button>'.repeat(6);
    await snap();
    expect((await snap({ incremental: true })).kind).toBe('unchanged');
    document.querySelector('ul')?.insertAdjacentHTML('beforeend', '<li>Eggs</li>');
    document.querySelector('p')!.textContent = '3 items';
    const diff = await snap({ incremental: true });
    expect(diff.kind).toBe('diff');
    expect(diff.text).toBe(
      ['@@ after: - Bread', '+ - Eggs', '+ 3 items', '@@ removed:', '- 2 items'].join('\n'),
    );
    document.body.innerHTML = '<p>Completely new</p>';
    expect((await snap({ incremental: true })).kind).toBe('full');
  });
});

describe('requests', () => {
  it('rejects malformed requests without throwing', async () => {
    expect(await agent.handle({ op: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
    expect(await agent.handle({ op: 'click', ref: 'e1' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
    expect(await agent.handle(null)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await agent.handle({ op: 'ping' })).toMatchObject({
      ok: true,
      result: { docId: 'doc1' },
    });
  });

  it('rejects refs from another document', async () => {
    document.body.innerHTML = '<button>Go</button>';
    await snap();
    expect(await agent.handle({ op: 'describe', ref: 'e1', docId: 'doc1' })).toMatchObject({
      ok: true,
    });
    expect(await agent.handle({ op: 'describe', ref: 'e1', docId: 'doc2' })).toMatchObject({
      ok: false,
      error: { code: 'stale_ref' },
    });
  });
});
