/**
 * Loopback sites for the receiver-at-dispatch tests: each serves fixed pages by path and logs
 * every request it receives (the ground truth: did the victim get the POST?). Two distinct
 * origins at least: 127.0.0.1 and a `*.localhost` name, which Chromium resolves to loopback, so
 * a frame from one inside the other is cross-site (and out of process).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hit } from './support';

export interface PageSite {
  origin: string;
  hits: Hit[];
  /** Non-GET requests received (what a harmful click or key would cause). */
  writes(): Hit[];
  close(): Promise<void>;
}

/**
 * `pages(origin)` maps a path to its HTML, given this site's own origin (pages link each other).
 * Anything else answers 200 with a short page, whatever the method.
 */
export async function pageSite(
  host: string,
  pages: (origin: string) => Record<string, string>,
): Promise<PageSite> {
  const hits: Hit[] = [];
  let table: Record<string, string> = {};
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = Object.hasOwn(table, path) ? table[path] : '<!doctype html><p>ok</p>';
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  table = pages(origin);
  return {
    origin,
    hits,
    writes: () => hits.filter((h) => h.method !== 'GET' && h.method !== 'HEAD'),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
