/**
 * The corpus's loopback origins, each its own server with its own request log: the oracle's
 * ground truth is what these servers received, not what the extension says it did.
 *
 * Names under `.localhost` resolve to loopback in Chromium without any resolver rule (checked on
 * Chromium 156), so shop, victim and attacker are three origins of one site (`localhost`), and
 * `evil` on 127.0.0.1 is another site as well.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ORIGIN_KEYS = ['shop', 'victim', 'attacker', 'evil'] as const;
export type OriginKey = (typeof ORIGIN_KEYS)[number];
export type Origins = Record<OriginKey, string>;

const HOSTS: Record<OriginKey, string> = {
  shop: 'shop.localhost',
  victim: 'victim.localhost',
  attacker: 'attacker.localhost',
  evil: '127.0.0.1',
};

/** One request as the origin's server saw it. */
export interface LoggedRequest {
  origin: OriginKey;
  method: string;
  /** Path and query, as requested. */
  url: string;
  /** `sec-fetch-mode`: `navigate` for a document or frame navigation. */
  mode: string;
  /** `sec-fetch-dest`: document, iframe, empty, image… */
  dest: string;
}

export interface CorpusOrigins {
  origins: Origins;
  /** Every request any origin received, oldest first. */
  log: LoggedRequest[];
  /** Serves `html` at `path` on `origin` (paths are unique per attack). */
  put(origin: OriginKey, path: string, html: string): void;
  close(): Promise<void>;
}

const html = (res: ServerResponse, status: number, body: string) =>
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(body);

/**
 * Every origin answers: `/__probe` (event reports from the probe script, 204), `/r?u=…` (an open
 * redirect that writes `u` into Location verbatim, whatever its spelling), the pages `put` there,
 * and any other path with a small landing page (the endpoint an attack wants to reach).
 */
export async function startOrigins(): Promise<CorpusOrigins> {
  const log: LoggedRequest[] = [];
  const pages = new Map<string, string>();
  const origins = {} as Origins;
  const servers = await Promise.all(
    ORIGIN_KEYS.map(async (key) => {
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const url = req.url ?? '/';
        log.push({
          origin: key,
          method: req.method ?? 'GET',
          url,
          mode: String(req.headers['sec-fetch-mode'] ?? ''),
          dest: String(req.headers['sec-fetch-dest'] ?? ''),
        });
        req.resume();
        const path = url.split('?')[0];
        if (path === '/__probe' || path === '/favicon.ico') return void res.writeHead(204).end();
        if (path === '/r') {
          const to = new URL(url, 'http://x').searchParams.get('u') ?? '/';
          return void res.writeHead(302, { location: to, 'cache-control': 'no-store' }).end();
        }
        const page = pages.get(`${key}${path}`);
        if (page) return html(res, 200, page);
        html(res, 200, `<!doctype html><title>${key}</title><p>${req.method} ${path}</p>`);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      origins[key] = `http://${HOSTS[key]}:${(server.address() as AddressInfo).port}`;
      return server;
    }),
  );
  return {
    origins,
    log,
    put: (origin, path, body) => pages.set(`${origin}${path}`, body),
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}

/** Which origin key an absolute URL belongs to, if any of ours. */
export function originKeyOf(origins: Origins, url: string): OriginKey | undefined {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return undefined;
  }
  return ORIGIN_KEYS.find((k) => origins[k] === origin);
}
