/**
 * The demo shop's HTML: plain server-rendered pages with ordinary forms and links, so what the
 * agent meets is what a real small shop looks like (labels, a search landmark, a product list with
 * prices, a quantity field, buttons), not markup tuned for the snapshot.
 */
import { formatPrice, type Product } from './catalog';

export const SHOP_NAME = 'Voltage Goods';

export interface CartLine {
  product: Product;
  quantity: number;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const STYLE = `
  :root { font-family: system-ui, sans-serif; color: #1d232b; background: #f5f6f8; }
  body { margin: 0; }
  header { display: flex; gap: 16px; align-items: center; padding: 12px 24px; background: #12324a; color: #fff; flex-wrap: wrap; }
  header a { color: #fff; text-decoration: none; }
  .brand { font-weight: 700; font-size: 20px; }
  header form { flex: 1; display: flex; gap: 6px; min-width: 260px; }
  header input[type=search] { flex: 1; padding: 8px 10px; border-radius: 6px; border: 0; font-size: 15px; }
  button { padding: 8px 14px; border-radius: 6px; border: 0; background: #f2a516; color: #1d232b; font-weight: 600; cursor: pointer; font-size: 15px; }
  .cart-link { background: #ffffff22; padding: 8px 12px; border-radius: 6px; }
  main { max-width: 960px; margin: 0 auto; padding: 20px 24px 48px; }
  .products { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 14px; }
  .products li { background: #fff; border-radius: 10px; padding: 14px; box-shadow: 0 1px 3px #0002; display: flex; flex-direction: column; gap: 6px; }
  .products a { color: #12324a; font-weight: 600; text-decoration: none; }
  .price { font-weight: 700; font-size: 18px; color: #0a6b3b; }
  .cat { color: #667; font-size: 13px; }
  .product { background: #fff; border-radius: 10px; padding: 24px; box-shadow: 0 1px 3px #0002; }
  .product form { display: flex; gap: 10px; align-items: center; margin-top: 16px; }
  .product input[type=number] { width: 64px; padding: 7px; font-size: 15px; }
  table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 10px; overflow: hidden; }
  th, td { text-align: left; padding: 10px 12px; border-bottom: 1px solid #e4e6ea; }
  .notice { background: #e4f5ea; border-left: 4px solid #0a6b3b; padding: 10px 14px; border-radius: 6px; }
  .checkout { display: grid; gap: 10px; max-width: 420px; background: #fff; padding: 20px; border-radius: 10px; }
  .checkout input { padding: 7px; font-size: 15px; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  footer { text-align: center; color: #778; font-size: 13px; padding: 24px; }
`;

function layout(title: string, cartCount: number, body: string, query = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · ${SHOP_NAME}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <a class="brand" href="/">${SHOP_NAME}</a>
  <form role="search" action="/search" method="get">
    <input type="search" name="q" aria-label="Search products" placeholder="Search products" value="${esc(query)}">
    <button type="submit">Search</button>
  </form>
  <a class="cart-link" href="/cart">Cart (${cartCount})</a>
</header>
<main>
${body}
</main>
<footer>${SHOP_NAME} is a demo shop served by Keel's demo on 127.0.0.1. Nothing here is for sale.</footer>
</body>
</html>`;
}

function productList(products: readonly Product[]): string {
  if (!products.length) return '<p>No products match your search.</p>';
  const items = products
    .map(
      (p) => `  <li>
    <a href="/product/${esc(p.id)}">${esc(p.name)}</a>
    <span class="price">${formatPrice(p.priceCents)}</span>
    <span class="cat">${esc(p.category)}</span>
  </li>`,
    )
    .join('\n');
  return `<ul class="products" aria-label="Products">\n${items}\n</ul>`;
}

export function homePage(products: readonly Product[], cartCount: number): string {
  return layout(
    'Home',
    cartCount,
    `<h1>Cables, chargers and desk gear</h1>
<p>Free shipping on orders over $25.</p>
<h2>All products</h2>
${productList(products)}`,
  );
}

export function searchPage(query: string, results: readonly Product[], cartCount: number): string {
  return layout(
    `Search: ${query}`,
    cartCount,
    `<h1>Results for “${esc(query)}”</h1>
<p>${results.length} product${results.length === 1 ? '' : 's'} found.</p>
${productList(results)}`,
    query,
  );
}

export function productPage(p: Product, cartCount: number): string {
  return layout(
    p.name,
    cartCount,
    `<nav aria-label="Breadcrumb"><a href="/">Home</a> › ${esc(p.category)}</nav>
<article class="product">
  <h1>${esc(p.name)}</h1>
  <p class="price">${formatPrice(p.priceCents)}</p>
  <p>${esc(p.blurb)}</p>
  <p class="cat">In stock · ships in 1–2 days</p>
  <form method="post" action="/cart/add">
    <input type="hidden" name="productId" value="${esc(p.id)}">
    <label for="quantity">Quantity</label>
    <input id="quantity" name="quantity" type="number" min="1" max="10" value="1">
    <button type="submit">Add to cart</button>
  </form>
</article>`,
  );
}

export function cartPage(lines: readonly CartLine[], added: CartLine | undefined): string {
  const count = lines.reduce((n, l) => n + l.quantity, 0);
  const total = lines.reduce((n, l) => n + l.quantity * l.product.priceCents, 0);
  const notice = added
    ? `<p class="notice" role="status">Added ${added.quantity} × ${esc(added.product.name)} to your cart.</p>`
    : '';
  const body = lines.length
    ? `<table>
  <caption class="sr-only">Items in your cart</caption>
  <thead><tr><th>Product</th><th>Quantity</th><th>Price</th><th>Subtotal</th><th></th></tr></thead>
  <tbody>
${lines
  .map(
    (l) => `    <tr>
      <td><a href="/product/${esc(l.product.id)}">${esc(l.product.name)}</a></td>
      <td>${l.quantity}</td>
      <td>${formatPrice(l.product.priceCents)}</td>
      <td>${formatPrice(l.quantity * l.product.priceCents)}</td>
      <td><form method="post" action="/cart/remove"><input type="hidden" name="productId" value="${esc(l.product.id)}"><button type="submit" aria-label="Remove ${esc(l.product.name)}">Remove</button></form></td>
    </tr>`,
  )
  .join('\n')}
  </tbody>
</table>
<p>Total: <strong>${formatPrice(total)}</strong> (${count} item${count === 1 ? '' : 's'})</p>
<p><a href="/checkout">Proceed to checkout</a></p>`
    : '<p>Your cart is empty.</p>';
  return layout('Cart', count, `<h1>Your cart</h1>\n${notice}\n${body}`);
}

export function checkoutPage(lines: readonly CartLine[]): string {
  const count = lines.reduce((n, l) => n + l.quantity, 0);
  const total = lines.reduce((n, l) => n + l.quantity * l.product.priceCents, 0);
  return layout(
    'Checkout',
    count,
    `<h1>Checkout</h1>
<p>${count} item${count === 1 ? '' : 's'}, total ${formatPrice(total)}.</p>
<form class="checkout" method="post" action="/checkout">
  <label for="name">Full name</label><input id="name" name="name" autocomplete="name" required>
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required>
  <label for="address">Shipping address</label><input id="address" name="address" autocomplete="street-address" required>
  <label for="card">Card number</label><input id="card" name="card" autocomplete="cc-number" inputmode="numeric" required>
  <label for="exp">Expiry (MM/YY)</label><input id="exp" name="exp" autocomplete="cc-exp" required>
  <button type="submit">Place order</button>
</form>`,
  );
}

export function orderPlacedPage(): string {
  return layout(
    'Order placed',
    0,
    `<h1>Thank you!</h1><p class="notice" role="status">This is a demo: no order was placed and nothing was charged.</p>`,
  );
}

export function notFoundPage(cartCount: number): string {
  return layout(
    'Not found',
    cartCount,
    '<h1>Page not found</h1><p><a href="/">Back to the shop</a></p>',
  );
}
