// @vitest-environment happy-dom
/**
 * Locators built from the real snapshotter (content-scripts, on happy-dom) resolve to the same
 * element after ids, classes, refs and product order change; ambiguity and absence are
 * divergences, never guesses. Seeded: a failure prints its seed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Box, PageEnv } from '../../../content-scripts/env';
import { createPageAgent, type PageAgent } from '../../../content-scripts/page-agent';
import type { PageResponse, SnapshotResult } from '../../../src/protocol/page-messages';
import type { SnapshotOutline } from '../../../src/tools/browser/details';
import { locatorFromSnapshot } from '../../../src/workflows/locator';
import { resolveInSnapshot } from '../../../src/workflows/resolve';

function fakeBox(): Box {
  return { x: 10, y: 10, width: 100, height: 20 };
}

function env(): PageEnv {
  return {
    win: window,
    now: () => performance.now(),
    shadowRootOf: (el) => el.shadowRoot,
    boxOf: fakeBox,
  };
}

/** mulberry32: small, seedable, good enough for shuffles. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(xs: T[], r: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const NAMES = [
  'Blue mug',
  'Red mug',
  'Green teapot',
  'Oak tray',
  'Glass jar',
  'Steel kettle',
  'Linen towel',
  'Clay bowl',
];

interface Product {
  name: string;
  price: number;
}

/** A shop page whose markup (ids, classes, wrappers, order, filler) varies with the seed. */
function shopHtml(products: Product[], r: () => number): string {
  const id = () => `x${Math.floor(r() * 1e9).toString(36)}`;
  const filler = () => (r() < 0.5 ? `<span class="${id()}"></span>` : '');
  const cards = products
    .map(
      (p) => `<article class="${id()} card" id="${id()}">${filler()}
        <h2 class="${id()}">${p.name}</h2>
        <div class="${id()}"><p>$${p.price}.00</p></div>
        <label for="q-${p.name.replace(/\s/g, '')}">Quantity</label><input id="q-${p.name.replace(/\s/g, '')}" type="number" value="1">
        <button class="${id()}" data-product="${p.name}">Add to cart</button>
      </article>`,
    )
    .join('\n');
  return `<header class="${id()}"><input type="search" aria-label="Search products"><a href="/cart">Cart</a></header>
    <main id="${id()}"><h1>Products</h1>${filler()}${cards}</main>`;
}

let agent: PageAgent;
let docN = 0;

/** The page's structured outline, as the snapshot tool puts it in `details.outline`. */
async function load(html: string, url = 'https://shop.example/'): Promise<SnapshotOutline> {
  document.body.innerHTML = html;
  agent = createPageAgent(env(), `doc${++docN}`);
  // A fresh agent per page, and a few throwaway snapshots so refs differ from the recording.
  const res = (await agent.handle({
    op: 'snapshot',
    mode: 'full',
    incremental: false,
    maxTokens: 20_000,
    textLimit: 200,
    includeUrls: false,
    refPrefix: '',
  })) as PageResponse<SnapshotResult>;
  if (!res.ok) throw new Error(res.error.message);
  const lines = res.result.outline;
  if (!lines) throw new Error('a full snapshot carries its structured outline');
  return { frameId: 0, url, title: res.result.title, lines };
}

async function clickedBy(ref: string): Promise<string | undefined> {
  // happy-dom has no layout, so a click is refused as invisible; focus goes through the same
  // ref registry to the same element.
  const res = await agent.handle({ op: 'focus', ref });
  if (!res.ok) throw new Error(`focus ${ref}: ${res.error.message}`);
  // The action runs after the reply (page-agent `defer`).
  await new Promise((r) => setTimeout(r, 5));
  return (document.activeElement as HTMLElement | null)?.dataset.product;
}

/** The ref of the first "Add to cart" button after the product's heading. */
function refOfProductButton(page: SnapshotOutline, product: string): string {
  const h = page.lines.findIndex((l) => l.kind === 'heading' && l.text === product);
  const line = page.lines
    .slice(h)
    .find((l) => l.kind === 'control' && l.role === 'button' && l.name === 'Add to cart');
  if (h < 0 || line?.kind !== 'control') throw new Error(`no Add to cart under ${product}`);
  return line.ref;
}

beforeEach(() => {
  document.body.innerHTML = '';
});

describe('semantic locators', () => {
  it('resolve to the same product after ids, classes, refs and order change (seeded)', async () => {
    const seed0 = Number(process.env.WORKFLOW_SEED ?? 20261201);
    for (let k = 0; k < 10; k++) {
      const seed = seed0 + k;
      const r = rng(seed);
      const products = shuffle(NAMES, r)
        .slice(0, 3 + Math.floor(r() * 5))
        .map((name) => ({ name, price: 5 + Math.floor(r() * 40) }));
      const target = products[Math.floor(r() * products.length)];
      const a = await load(shopHtml(products, r));
      const locator = locatorFromSnapshot(a, refOfProductButton(a, target.name));
      expect(locator, `seed ${seed}`).not.toBeNull();
      // The changed shop: new ids/classes/filler, reordered products, prices moved, new refs.
      const changed = shuffle(products, r).map((p) => ({
        ...p,
        price: p.price + (r() < 0.5 ? 1 : 0),
      }));
      const b = await load(shopHtml(changed, r));
      const res = resolveInSnapshot(locator!, b);
      expect(res.kind, `seed ${seed}: ${JSON.stringify(res)}`).toBe('match');
      if (res.kind !== 'match') continue;
      expect(await clickedBy(res.ref), `seed ${seed}`).toBe(target.name);
    }
  });

  it('a product that is gone is a divergence (none), never another product', async () => {
    const a = await load(
      shopHtml(
        [
          { name: 'Blue mug', price: 9 },
          { name: 'Red mug', price: 7 },
        ],
        rng(1),
      ),
    );
    const locator = locatorFromSnapshot(a, refOfProductButton(a, 'Blue mug'))!;
    const b = await load(
      shopHtml(
        [
          { name: 'Red mug', price: 7 },
          { name: 'Oak tray', price: 12 },
        ],
        rng(2),
      ),
    );
    const res = resolveInSnapshot(locator, b);
    expect(res).toMatchObject({ kind: 'diverged', reason: 'none' });
  });

  it('two elements with the same context are ambiguous', async () => {
    const a = await load(shopHtml([{ name: 'Blue mug', price: 9 }], rng(3)));
    const locator = locatorFromSnapshot(a, refOfProductButton(a, 'Blue mug'))!;
    const b = await load(
      shopHtml(
        [
          { name: 'Blue mug', price: 9 },
          { name: 'Blue mug', price: 9 },
        ],
        rng(4),
      ),
    );
    expect(resolveInSnapshot(locator, b)).toMatchObject({
      kind: 'diverged',
      reason: 'ambiguous',
      candidates: 2,
    });
  });

  it('a page on another path differs', async () => {
    const a = await load(
      shopHtml([{ name: 'Blue mug', price: 9 }], rng(5)),
      'https://shop.example/product/42',
    );
    const locator = locatorFromSnapshot(a, refOfProductButton(a, 'Blue mug'))!;
    expect(locator.urlPattern).toBe('https://shop.example/product/*');
    expect(resolveInSnapshot(locator, a, 'https://shop.example/product/77').kind).toBe('match');
    expect(resolveInSnapshot(locator, a, 'https://shop.example/cart')).toMatchObject({
      kind: 'diverged',
      reason: 'page_differs',
    });
    expect(resolveInSnapshot(locator, a, 'https://evil.example/product/42')).toMatchObject({
      kind: 'diverged',
      reason: 'page_differs',
    });
  });

  it('keeps role, name, landmarks, heading path, input type and frame', async () => {
    const a = await load(shopHtml([{ name: 'Blue mug', price: 9 }], rng(6)));
    const search = a.lines.find((x) => x.kind === 'control' && x.name === 'Search products');
    const ref = search?.kind === 'control' ? search.ref : undefined;
    expect(ref).toBeDefined();
    expect(search).toMatchObject({ role: 'searchbox' });
    const qty = a.lines.find((x) => x.kind === 'control' && x.name === 'Quantity');
    expect(qty).toMatchObject({ role: 'spinbutton', value: '1' });
    const l = locatorFromSnapshot(a, ref!)!;
    expect(l).toMatchObject({ name: 'Search products', frameId: 0 });
    expect(l.landmarks).toEqual(['banner']);
    const add = locatorFromSnapshot(a, refOfProductButton(a, 'Blue mug'))!;
    expect(add).toMatchObject({
      role: 'button',
      name: 'Add to cart',
      landmarks: ['main'],
      headings: ['Products', 'Blue mug'],
    });
    expect(add.nearText[0]).toMatch(/Quantity|\$9/);
  });
});
