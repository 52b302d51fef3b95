import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderKind } from '../../../src/protocol';
import { isDelta, planReply } from './model-script';
import type { RecordedRequest, ScriptedReply, ScriptStep } from './model-script';
import { anthropicWire } from './wire-anthropic';
import { openaiChatWire } from './wire-openai-chat';
import { openaiResponsesWire } from './wire-openai-responses';
import type { WireFormat } from './wire';

export type {
  ApiKind,
  RecordedRequest,
  ScriptedReply,
  ScriptedStop,
  ScriptedToolCall,
  ScriptedUsage,
  ScriptStep,
} from './model-script';

/**
 * A scripted model endpoint on 127.0.0.1 that speaks the streaming wire formats of OpenAI Chat
 * Completions, Anthropic Messages and OpenAI Responses. Each model request takes the next step of
 * the script; every request is recorded. docs/testing.md describes the script format.
 */

export interface ModelServerOptions {
  script?: ScriptStep[];
  /**
   * Consulted before the script for every request; return a reply to answer without consuming a
   * step (e.g. non-streaming title requests), or undefined to fall through to the script.
   */
  respond?: (request: RecordedRequest) => ScriptedReply | undefined;
  /** When set, a request without this key (Bearer or x-api-key) gets the API's 401. */
  apiKey?: string;
}

export interface ProviderConfig {
  id: string;
  kind: ProviderKind;
  baseURL: string;
  apiKey: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every model request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Things a test did not plan for: unknown paths, bad JSON, an exhausted script. Expect it empty. */
  readonly failures: readonly string[];
  /** Script steps not used yet. */
  readonly remaining: number;
  /** The baseURL a provider of this kind needs: `${url}/v1` for the OpenAI kinds, `url` for Anthropic. */
  baseURL(kind: ProviderKind): string;
  /** A `settings.update` provider entry pointing at this server. */
  provider(kind: ProviderKind, id?: string): ProviderConfig;
  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): void;
  /** Resolves with the n-th request (1-based) once it has arrived. */
  waitForRequest(n: number, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const ROUTES: Record<string, WireFormat> = {
  '/v1/chat/completions': openaiChatWire,
  '/chat/completions': openaiChatWire,
  '/v1/responses': openaiResponsesWire,
  '/responses': openaiResponsesWire,
  '/v1/messages': anthropicWire,
};

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-expose-headers': 'retry-after, retry-after-ms, request-id, x-request-id',
  'access-control-max-age': '600',
};

const SECRET_HEADERS = new Set(['authorization', 'x-api-key']);
const TEST_API_KEY = 'sk-keel-test';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function presentedKey(req: IncomingMessage): { auth: RecordedRequest['auth']; key?: string } {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (bearer) return { auth: 'bearer', key: bearer[1] };
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return { auth: 'x-api-key', key: header };
  return { auth: 'none' };
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const script: ScriptStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const waiters = new Set<() => void>();

  function json(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  /** Answers a request that never became a recorded model call. */
  function fail(res: ServerResponse, status: number, message: string, wire?: WireFormat) {
    failures.push(message);
    const body = wire ? wire.errorBody(status, message) : { error: { message } };
    json(res, status, body);
  }

  async function nextReply(record: RecordedRequest): Promise<ScriptedReply | undefined> {
    const immediate = options.respond?.(record);
    if (immediate) return immediate;
    const step = script.shift();
    return typeof step === 'function' ? step(record) : step;
  }

  async function handleModelCall(
    req: IncomingMessage,
    res: ServerResponse,
    wire: WireFormat,
    path: string,
  ) {
    const raw = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return fail(res, 400, `model server: ${path} body is not JSON`, wire);
    }
    const { auth, key } = presentedKey(req);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!SECRET_HEADERS.has(name) && value !== undefined)
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const record: RecordedRequest = {
      index: requests.length,
      api: wire.api,
      method: req.method ?? 'POST',
      path,
      headers,
      auth,
      body,
      raw,
      stream: body.stream === true,
      status: 0,
      aborted: false,
    };
    requests.push(record);
    for (const wake of [...waiters]) wake();

    const abort = new AbortController();
    // A client that goes away mid-write is a scenario under test, not a server failure.
    res.on('error', () => {});
    res.on('close', () => {
      if (!res.writableFinished) {
        record.aborted = true;
        abort.abort();
      }
    });
    const send = (status: number, payload: unknown, extra?: Record<string, string>) => {
      record.status = status;
      json(res, status, payload, extra);
    };

    if (options.apiKey !== undefined && key !== options.apiKey) {
      return send(401, wire.errorBody(401, 'Incorrect API key provided.'));
    }
    // A test's own mistakes answer 400, not 5xx: a client would retry a server error and hide them.
    const refuse = (message: string) => {
      failures.push(message);
      send(400, wire.errorBody(400, message));
    };
    let reply: ScriptedReply | undefined;
    try {
      reply = await nextReply(record);
    } catch (err) {
      return refuse(
        `model server: script step for request #${record.index + 1} threw: ${String(err)}`,
      );
    }
    if (!reply)
      return refuse(`model server: script exhausted at request #${record.index + 1} (${path})`);
    if (reply.httpStatus) {
      const status = reply.httpStatus;
      const extra: Record<string, string> = {};
      if (reply.retryAfter !== undefined) extra['retry-after'] = String(reply.retryAfter);
      return send(
        status,
        wire.errorBody(status, reply.errorMessage ?? `scripted HTTP ${status}`),
        extra,
      );
    }

    const plan = planReply(reply, `${wire.toolIdPrefix}${record.index}_`, raw.length);
    const ctx = {
      model: typeof body.model === 'string' ? body.model : 'keel-test-model',
      seq: record.index,
      body,
    };
    if (!record.stream) {
      if (reply.hangMs) await sleep(reply.hangMs, abort.signal);
      if (abort.signal.aborted) return;
      return send(200, wire.message(plan, ctx));
    }

    record.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    req.socket.setNoDelay(true);
    const renderer = wire.stream(plan, ctx);
    const write = (frames: string[]) => {
      for (const f of frames) res.write(f);
    };
    const error = reply.midStreamError;
    const errorAfter = error ? (error === true ? 1 : (error.afterDeltas ?? 1)) : -1;
    const errorMessage = typeof error === 'object' && error.message ? error.message : 'Overloaded';
    const hangAfter = reply.hangMs ? (reply.hangAfterDeltas ?? 1) : -1;
    let deltas = 0;
    // Faults are placed by how many deltas went out: 0 means right after the opening events.
    const checkpoint = async (): Promise<'continue' | 'stop'> => {
      if (deltas === hangAfter) await sleep(reply.hangMs!, abort.signal);
      if (abort.signal.aborted) return 'stop';
      if (deltas === errorAfter) {
        write(renderer.error(errorMessage));
        res.end();
        return 'stop';
      }
      return 'continue';
    };

    write(renderer.open());
    if ((await checkpoint()) === 'stop') return;
    for (const part of plan.parts) {
      const delta = isDelta(part);
      if (delta && reply.delayMs) await sleep(reply.delayMs, abort.signal);
      if (abort.signal.aborted) return;
      write(renderer.part(part));
      if (!delta) continue;
      deltas++;
      if ((await checkpoint()) === 'stop') return;
    }
    // A fault placed beyond the last delta happens before the stream's end.
    if (hangAfter > deltas) await sleep(reply.hangMs!, abort.signal);
    if (abort.signal.aborted) return;
    if (errorAfter > deltas) {
      write(renderer.error(errorMessage));
      return void res.end();
    }
    write(renderer.close());
    res.end();
  }

  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
    res.setHeader('x-request-id', `req_keel_${requests.length}`);
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'OPTIONS') {
      res.setHeader(
        'access-control-allow-headers',
        req.headers['access-control-request-headers'] ?? '*',
      );
      res.writeHead(204);
      return void res.end();
    }
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      // One list that both SDKs' model listing accepts.
      const model = {
        id: 'keel-test-model',
        object: 'model',
        type: 'model',
        display_name: 'Keel test model',
        created: 0,
        created_at: '2025-01-01T00:00:00Z',
        owned_by: 'keel',
      };
      return json(res, 200, {
        object: 'list',
        data: [model],
        has_more: false,
        first_id: model.id,
        last_id: model.id,
      });
    }
    const wire = ROUTES[path];
    if (req.method !== 'POST' || !wire)
      return fail(res, 404, `model server: no route for ${req.method} ${path}`);
    handleModelCall(req, res, wire, path).catch((err: unknown) => {
      failures.push(`model server: ${path} crashed: ${String(err)}`);
      if (!res.headersSent) json(res, 500, { error: { message: String(err) } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const baseURL = (kind: ProviderKind) => (kind === 'anthropic' ? url : `${url}/v1`);

  return {
    url,
    requests,
    failures,
    get remaining() {
      return script.length;
    },
    baseURL,
    provider: (kind, id = `test-${kind}`) => ({
      id,
      kind,
      baseURL: baseURL(kind),
      apiKey: options.apiKey ?? TEST_API_KEY,
    }),
    push: (...steps) => void script.push(...steps),
    waitForRequest(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < n) return;
          cleanup();
          resolve(requests[n - 1]);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `model server: request #${n} did not arrive within ${timeoutMs} ms (got ${requests.length})`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
