import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model endpoint on 127.0.0.1 for adapter tests: each request takes the next planned response
 * and is recorded (method, path, headers, body) for assertions.
 */

export interface PlannedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Sent in one write. */
  body?: string;
  /** Sent one write at a time (with `chunkDelayMs` between). */
  chunks?: string[];
  chunkDelayMs?: number;
  /** Keep the connection open after the body/chunks until the client goes away. */
  hang?: boolean;
  /** Send nothing at all (not even headers) until the client goes away. */
  silent?: boolean;
}

export interface RecordedHttpRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface MockServer {
  /** e.g. http://127.0.0.1:12345 */
  origin: string;
  requests: RecordedHttpRequest[];
  plan(...responses: PlannedResponse[]): void;
  /** Forgets planned responses and recorded requests (between tests). */
  reset(): void;
  /** Resolves when the server has seen the client close a hanging response. */
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
export const JSON_HEADERS = { 'content-type': 'application/json' };

export async function startMockServer(): Promise<MockServer> {
  const queue: PlannedResponse[] = [];
  const requests: RecordedHttpRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let closedWaiters: (() => void)[] = [];

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', async () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const planned = queue.shift();
      if (!planned) {
        res.writeHead(500, JSON_HEADERS);
        res.end(JSON.stringify({ error: { message: 'mock server: no response planned' } }));
        return;
      }
      res.on('close', () => {
        const waiters = closedWaiters;
        closedWaiters = [];
        for (const resolve of waiters) resolve();
      });
      if (planned.silent) return;
      res.writeHead(planned.status ?? 200, planned.headers ?? SSE_HEADERS);
      if (planned.body !== undefined) res.write(planned.body);
      for (const chunk of planned.chunks ?? []) {
        if (res.destroyed) return;
        res.write(chunk);
        if (planned.chunkDelayMs)
          await new Promise((resolve) => setTimeout(resolve, planned.chunkDelayMs));
      }
      if (!planned.hang) res.end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    plan: (...responses) => queue.push(...responses),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    clientClosed: () => new Promise<void>((resolve) => closedWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
