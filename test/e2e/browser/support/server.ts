/**
 * Static servers for fixture pages on 127.0.0.1. Two servers on two ports are two origins, which
 * is what the cross-origin iframe fixtures need. `{{OTHER_ORIGIN}}` and `{{MAIN_ORIGIN}}` in
 * served HTML are replaced with the respective origins.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Substitutions applied to HTML responses. */
  vars?: () => Record<string, string>;
  /** Artificial latency for paths matching, to exercise waits. */
  delayMs?: (path: string) => number;
}

export async function serveDir(dir: string, opts: ServeOptions = {}): Promise<StaticServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let path = decodeURIComponent(url.pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(dir, path));
      if (!file.startsWith(normalize(dir))) {
        res.writeHead(403).end();
        return;
      }
      const delay = opts.delayMs?.(path) ?? 0;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      try {
        let body: Buffer | string = await readFile(file);
        const type = TYPES[extname(file)] ?? 'application/octet-stream';
        if (type.startsWith('text/html') && opts.vars) {
          let text = body.toString('utf8');
          for (const [k, v] of Object.entries(opts.vars())) text = text.split(`{{${k}}}`).join(v);
          body = text;
        }
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server did not bind');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fixture site on two origins: `main` serves pages, `other` the same files for cross-origin frames. */
export async function serveFixtureSite(
  dir: string,
): Promise<{ main: StaticServer; other: StaticServer; close(): Promise<void> }> {
  const origins = { MAIN_ORIGIN: '', OTHER_ORIGIN: '' };
  const vars = () => origins;
  const delayMs = (path: string) => (path.startsWith('/slow/') ? 600 : 0);
  const main = await serveDir(dir, { vars, delayMs });
  const other = await serveDir(dir, { vars, delayMs });
  origins.MAIN_ORIGIN = main.origin;
  origins.OTHER_ORIGIN = other.origin;
  return {
    main,
    other,
    close: async () => {
      await main.close();
      await other.close();
    },
  };
}
