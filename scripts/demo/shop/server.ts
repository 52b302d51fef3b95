/**
 * The demo shop on 127.0.0.1: server-rendered pages, an in-memory cart (one shopper: the demo), and
 * `/api/cart` so the demo can check the outcome from outside the browser.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PRODUCTS, productById, searchProducts, type Product } from './catalog';
import {
  cartPage,
  checkoutPage,
  homePage,
  notFoundPage,
  orderPlacedPage,
  productPage,
  searchPage,
  type CartLine,
} from './pages';

export interface CartState {
  items: { productId: string; name: string; quantity: number; unitPriceCents: number }[];
  totalCents: number;
  count: number;
}

export interface ShopServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  cart(): CartState;
  /** Every request, for the transcript ("GET /search?q=…"). */
  readonly log: string[];
  /**
   * Test variants of the same shop: `remix` serves different ids and classes and the products in
   * reverse order (what a redesign does); `removed` products are gone from every page;
   * `addDelayMs` holds the answer to an add to the cart (the cart has changed already).
   */
  configure(options: { remix?: boolean; removed?: readonly string[]; addDelayMs?: number }): void;
  /** Empties the cart (same as `DELETE /api/cart`). */
  resetCart(): void;
  close(): Promise<void>;
}

const MAX_QUANTITY = 10;

export async function startShop(): Promise<ShopServer> {
  const cart = new Map<string, number>();
  const log: string[] = [];
  let remix = false;
  let removed = new Set<string>();
  let addDelayMs = 0;
  const visible = (ps: readonly Product[]) => {
    const kept = ps.filter((p) => !removed.has(p.id));
    return remix ? kept.reverse() : kept;
  };
  const find = (id: string) => (removed.has(id) ? undefined : productById(id));
  const lines = (): CartLine[] =>
    [...cart.entries()]
      .map(([id, quantity]) => ({ product: productById(id)!, quantity }))
      .filter((l) => l.product);
  const count = () => [...cart.values()].reduce((n, q) => n + q, 0);
  const state = (): CartState => {
    const ls = lines();
    return {
      items: ls.map((l) => ({
        productId: l.product.id,
        name: l.product.name,
        quantity: l.quantity,
        unitPriceCents: l.product.priceCents,
      })),
      totalCents: ls.reduce((n, l) => n + l.quantity * l.product.priceCents, 0),
      count: count(),
    };
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `shop error: ${String(err)}`);
    });
  });

  const html = (res: ServerResponse, body: string, status = 200) =>
    page(res, remix ? remixMarkup(body) : body, status);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path !== '/favicon.ico') log.push(`${req.method} ${path}${url.search}`);
    if (req.method === 'GET' && path === '/')
      return html(res, homePage(visible(PRODUCTS), count()));
    if (req.method === 'GET' && path === '/search') {
      const q = (url.searchParams.get('q') ?? '').trim();
      return html(res, searchPage(q, visible(searchProducts(q)), count()));
    }
    const productMatch = /^\/product\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && productMatch) {
      const p = find(productMatch[1]);
      return p ? html(res, productPage(p, count())) : html(res, notFoundPage(count()), 404);
    }
    if (req.method === 'GET' && path === '/cart') {
      const added = url.searchParams.get('added');
      const line = added ? lines().find((l) => l.product.id === added) : undefined;
      const addedQty = Number(url.searchParams.get('qty'));
      return html(
        res,
        cartPage(
          lines(),
          line && addedQty > 0 ? { product: line.product, quantity: addedQty } : undefined,
        ),
      );
    }
    if (req.method === 'POST' && path === '/cart/add') {
      const form = await readForm(req);
      const p: Product | undefined = find(form.get('productId') ?? '');
      const qty = Math.floor(Number(form.get('quantity') ?? '1'));
      if (!p || !Number.isFinite(qty) || qty < 1)
        return send(res, 400, 'text/plain', 'bad product or quantity');
      const next = Math.min(MAX_QUANTITY, (cart.get(p.id) ?? 0) + qty);
      cart.set(p.id, next);
      if (addDelayMs) await new Promise((r) => setTimeout(r, addDelayMs));
      return redirect(res, `/cart?added=${encodeURIComponent(p.id)}&qty=${qty}`);
    }
    if (req.method === 'POST' && path === '/cart/remove') {
      const form = await readForm(req);
      cart.delete(form.get('productId') ?? '');
      return redirect(res, '/cart');
    }
    if (req.method === 'GET' && path === '/checkout') return html(res, checkoutPage(lines()));
    if (req.method === 'POST' && path === '/checkout') {
      await readForm(req);
      cart.clear();
      return html(res, orderPlacedPage());
    }
    if (path === '/api/cart') {
      if (req.method === 'DELETE') cart.clear();
      return send(res, 200, 'application/json', JSON.stringify(state()));
    }
    if (path === '/favicon.ico') return send(res, 204, 'text/plain', '');
    return html(res, notFoundPage(count()), 404);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    cart: state,
    log,
    configure(options) {
      remix = options.remix ?? false;
      removed = new Set(options.removed ?? []);
      addDelayMs = options.addDelayMs ?? 0;
    },
    resetCart: () => cart.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
  res.end(body);
}

function page(res: ServerResponse, body: string, status = 200): void {
  send(res, status, 'text/html', body);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The same page with every id, `for` and class renamed (and the style sheet following them). */
function remixMarkup(body: string): string {
  return body
    .replace(/\b(id|for)="([^"]+)"/g, '$1="rx-$2-field"')
    .replace(
      /\bclass="([^"]+)"/g,
      (_m, c: string) =>
        `class="${c
          .split(/\s+/)
          .map((k) => `rx-${k}`)
          .join(' ')}"`,
    )
    .replace(
      /<style>([\s\S]*?)<\/style>/,
      (_m, css: string) => `<style>${css.replace(/\.([a-z][\w-]*)/g, '.rx-$1')}</style>`,
    );
}
