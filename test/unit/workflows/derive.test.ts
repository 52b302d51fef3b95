import { describe, expect, it } from 'vitest';
import type { Item } from '../../../src/protocol';
import { checkFinalPage } from '../../../src/workflows/check';
import { deriveWorkflow } from '../../../src/workflows/derive';
import { fillInputs, inputValues, occursInTask } from '../../../src/workflows/inputs';
import { outlineOf } from '../../../src/workflows/outline';
import { matchesUrlPattern, urlPattern } from '../../../src/workflows/url-pattern';
import {
  callsOf,
  capturedTurn,
  snapshotsOf,
  type ToolCall,
  type ToolResult,
} from './real-snapshots';

/** The demo shop task run by the scripted model in Chromium, as the store kept it. */
const MODEL = capturedTurn('shop-qty2-model-turn');
const O = MODEL.origin;

function derived() {
  const d = deriveWorkflow(MODEL.items);
  if (d.kind !== 'ok') throw new Error(d.message);
  return d.workflow;
}

/** A copy of the turn's items with one tool call (by index among calls) changed. */
function withCall(
  index: number,
  change: (c: { call: ToolCall; result: ToolResult }) => void,
): Item[] {
  const items = structuredClone(MODEL.items);
  change(callsOf(items)[index]);
  return items;
}

describe('deriveWorkflow on a real turn (the demo shop, "add 2 to the cart")', () => {
  it('keeps the acting steps with locators from the structured snapshots, makes task values inputs', () => {
    const w = derived();
    expect(w.steps.map((s) => s.tool)).toEqual([
      'browser_type',
      'browser_click',
      'browser_type',
      'browser_click',
    ]);
    expect(w.steps[0]).toMatchObject({
      params: { text: '{{search_products}}', submit: true },
      locator: { role: 'searchbox', name: 'Search products', landmarks: ['banner', 'search'] },
    });
    for (const s of w.steps) {
      expect(s.params).not.toHaveProperty('tabId');
      expect(s.params).not.toHaveProperty('ref');
    }
    expect(w.steps[1].locator).toMatchObject({ role: 'link', urlPattern: `${O}/search` });
    expect(w.steps[2]).toMatchObject({
      params: { text: '{{quantity}}' },
      locator: {
        role: 'spinbutton',
        name: 'Quantity',
        urlPattern: `${O}/product/linkwire-c-braided`,
      },
    });
    expect(w.steps[3].locator).toMatchObject({ role: 'button', name: 'Add to cart' });
    expect(w.inputs).toEqual([
      { name: 'search_products', default: 'USB-C cable' },
      { name: 'quantity', default: '2' },
    ]);
    expect(w.task).toContain('add {{quantity}} to the cart');
    expect(w.startUrl).toBe(`${O}/`);
  });

  it('the final check is what the cart page shows, never the URL (?qty=2), header or wrapper', () => {
    const w = derived();
    // The last page's URL carries the typed quantity: the check matches it by pattern only.
    const last = snapshotsOf(MODEL.items).at(-1)!;
    expect(last.url).toMatch(/\/cart\?added=.*&qty=2$/);
    expect(w.check.urlPattern).toBe(`${O}/cart`);
    expect(w.check.texts[0]).toBe('Your cart');
    expect(w.check.texts).toContain(
      'Added {{quantity}} × Linkwire Braided {{search_products}}, 0.5 m to your cart.',
    );
    // The model-facing text of that snapshot holds all of these; the check holds none of them.
    const modelText = callsOf(MODEL.items)
      .filter((c) => c.call.name === 'browser_snapshot')
      .at(-1)!
      .result.content.map((b) => (b.type === 'text' ? b.text : ''))
      .join('\n');
    for (const leak of ['untrusted_page_content', 'Snapshot of tab', 'qty=', 'URL:', O]) {
      expect(modelText).toContain(leak);
      for (const t of w.check.texts) expect(t).not.toContain(leak);
    }
  });

  it('reads structure only: the model-facing text can change and nothing derived changes', () => {
    const garbled = structuredClone(MODEL.items).map((i) =>
      i.kind === 'tool_result'
        ? { ...i, content: [{ type: 'text' as const, text: '<x>not an outline</x>' }] }
        : i,
    );
    expect(deriveWorkflow(garbled)).toEqual(deriveWorkflow(MODEL.items));
    // And without the structure (a record from before it existed) nothing is guessed from text.
    const bare = structuredClone(MODEL.items).map((i) =>
      i.kind === 'tool_result' && i.details && typeof i.details === 'object'
        ? { ...i, details: { ...(i.details as object), outline: undefined } }
        : i,
    );
    expect(deriveWorkflow(bare)).toMatchObject({ kind: 'not_replayable' });
  });

  it('refuses turns with nothing to replay, refs no snapshot showed, and coordinate clicks', () => {
    const firstAct = MODEL.items.findIndex((i) => i.kind === 'tool_call' && i.effects === 'write');
    expect(deriveWorkflow(MODEL.items.slice(0, firstAct))).toMatchObject({
      kind: 'not_replayable',
    });
    const unseen = withCall(1, (c) => void ((c.call.params as { ref: string }).ref = 'e999'));
    expect(deriveWorkflow(unseen)).toMatchObject({
      kind: 'not_replayable',
      message: expect.stringContaining('e999'),
    });
    const byPoint = withCall(1, (c) => {
      c.call.name = 'browser_mouse';
      c.call.params = { action: 'click', x: 5, y: 5 };
    });
    expect(deriveWorkflow(byPoint)).toMatchObject({
      kind: 'not_replayable',
      message: expect.stringContaining('coordinates'),
    });
  });

  it('failed, denied and builtin calls are not steps', () => {
    const failed = withCall(1, (c) => void (c.result.ok = false));
    const denied = withCall(3, (c) => {
      c.result.ok = false;
      c.result.outcome = 'denied';
    });
    const builtin = withCall(5, (c) => void (c.call.level = 'builtin'));
    for (const items of [failed, denied, builtin]) {
      const d = deriveWorkflow(items);
      expect(d.kind === 'ok' && d.workflow.steps.length).toBe(3);
    }
  });
});

describe('inputs', () => {
  it.each([
    ['Buy 3 mugs', '3', true],
    ['Buy 13 mugs', '3', false],
    ['search for Blue Mug please', 'blue mug', true],
    ['bluemugs', 'blue mug', false],
    ['买 3 个杯子', '3', true],
    ['anything', '', false],
  ])('occursInTask(%j, %j) = %s', (task, value, want) => {
    expect(occursInTask(task, value)).toBe(want);
  });

  it('fills placeholders and refuses unknown inputs', () => {
    expect(fillInputs({ text: '{{q}} x{{n}}', list: ['{{n}}'] }, { q: 'mug', n: '2' })).toEqual({
      kind: 'ok',
      value: { text: 'mug x2', list: ['2'] },
    });
    expect(fillInputs('{{zz}}', {})).toEqual({ kind: 'missing', name: 'zz' });
    expect(inputValues([{ name: 'q', default: 'a' }, { name: 'n' }], { n: '5' })).toEqual({
      q: 'a',
      n: '5',
    });
  });
});

describe('url patterns', () => {
  it.each([
    ['https://shop.example/product/42?x=1#y', 'https://shop.example/product/*'],
    ['https://shop.example/', 'https://shop.example/'],
    ['https://shop.example/p/abc123def4', 'https://shop.example/p/*'],
    ['https://shop.example/cart', 'https://shop.example/cart'],
    ['chrome://settings', null],
    ['not a url', null],
  ])('urlPattern(%s) = %s', (url, want) => {
    expect(urlPattern(url)).toBe(want);
  });

  it.each([
    ['https://shop.example/product/*', 'https://shop.example/product/7', true],
    ['https://shop.example/product/*', 'https://shop.example/product/7/reviews', false],
    ['https://shop.example/cart', 'https://evil.example/cart', false],
    ['https://shop.example/cart', 'http://shop.example/cart', false],
  ])('matches(%s, %s) = %s', (p, url, want) => {
    expect(matchesUrlPattern(p, url)).toBe(want);
  });
});

describe('final check on real pages', () => {
  const w = derived();
  const values = { search_products: 'USB-C cable', quantity: '2' };
  const lastOf = (name: Parameters<typeof capturedTurn>[0]) =>
    outlineOf(snapshotsOf(capturedTurn(name).items).at(-1)!);

  it('passes on the cart the model ended on and on the carts both replays ended on', () => {
    for (const name of [
      'shop-qty2-model-turn',
      'shop-qty2-replay',
      'shop-qty2-replay-redesigned',
    ] as const)
      expect(checkFinalPage(w.check, lastOf(name), values), name).toEqual({ kind: 'passed' });
  });

  it('fails on another quantity, on the home page, and on a page off the pattern', () => {
    const cart = lastOf('shop-qty2-model-turn');
    expect(checkFinalPage(w.check, cart, { ...values, quantity: '3' })).toMatchObject({
      kind: 'failed',
    });
    const home = outlineOf(snapshotsOf(MODEL.items)[0]);
    expect(checkFinalPage(w.check, home, values)).toMatchObject({ kind: 'failed' });
    expect(checkFinalPage(w.check, cart, values, `${O}/checkout`)).toMatchObject({
      kind: 'failed',
    });
  });
});
