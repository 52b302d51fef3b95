/**
 * A small OpenAI-compatible endpoint (Chat Completions, streamed as SSE) on 127.0.0.1. A `respond`
 * function decides each reply from the request: the demo's scripted shopper, or the benchmarks'
 * instant, timed and hanging replies. The stream has the shape of OpenAI's (data-only chunks,
 * tool calls by index with the id and name first, a finish chunk, a usage chunk when asked for,
 * `[DONE]`), which is what the extension's `openai` provider kind parses.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface ChatRequest {
  /** 1-based, in arrival order. */
  index: number;
  body: {
    model?: string;
    messages?: unknown[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    tools?: unknown[];
  };
  /** Wall-clock arrival time in ms (performance.timeOrigin + performance.now()). */
  receivedAt: number;
  /** A title request from the engine (its own small task), not a step of the conversation. */
  isTitle: boolean;
  /** Wall-clock time the response's last byte was written (unset while it streams). */
  sentAt?: number;
}

export interface ReplyToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Reply {
  text?: string;
  toolCalls?: ReplyToolCall[];
  /** Explicit text deltas (default: one per word of `text`). */
  chunks?: string[];
  usage?: { inputTokens: number; outputTokens: number };
  /** Pause before each text delta. */
  deltaDelayMs?: number;
  /** Stop sending after this many text deltas and hold the stream open until the client leaves. */
  hangAfterDeltas?: number;
  /** Called right after each text delta was written to the socket, with its wall-clock time. */
  onDeltaSent?: (index: number, atMs: number) => void;
}

export interface ChatServer {
  url: string;
  /** `${url}/v1`: the provider's baseURL. */
  baseURL: string;
  readonly requests: ChatRequest[];
  /** Resolves when the n-th request (1-based) has arrived. */
  waitForRequest(n: number, timeoutMs?: number): Promise<ChatRequest>;
  close(): Promise<void>;
}

export interface ChatServerOptions {
  respond(req: ChatRequest): Reply | Promise<Reply>;
}

export const wallClock = (): number => performance.timeOrigin + performance.now();

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
};

export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  const waiters: { n: number; resolve: (r: ChatRequest) => void }[] = [];
  const server = createServer({ noDelay: true }, (req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        json(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return void res.end();
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, {
        object: 'list',
        data: [{ id: 'keel-demo-model', object: 'model', created: 0, owned_by: 'keel' }],
      });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return json(res, 404, {
        error: { message: `unknown endpoint ${req.method} ${path}`, type: 'invalid_request_error' },
      });
    }
    const receivedAt = wallClock();
    const body = JSON.parse(await readBody(req)) as ChatRequest['body'];
    const system = JSON.stringify((body.messages ?? [])[0] ?? '');
    const request: ChatRequest = {
      index: requests.length + 1,
      body,
      receivedAt,
      isTitle: system.includes('You write titles'),
    };
    requests.push(request);
    for (const w of [...waiters]) if (requests.length >= w.n) w.resolve(requests[w.n - 1]);
    const reply = await options.respond(request);
    if (body.stream === false)
      json(res, 200, completion(reply, body.model ?? 'model', request.index));
    else await stream(req, res, reply, body, request.index);
    request.sentAt = wallClock();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    waitForRequest(n, timeoutMs = 30_000) {
      if (requests.length >= n) return Promise.resolve(requests[n - 1]);
      return new Promise((resolve, reject) => {
        const w = { n, resolve: (r: ChatRequest) => (clearTimeout(t), resolve(r)) };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(
            new Error(
              `model server: request ${n} did not arrive within ${timeoutMs} ms (got ${requests.length})`,
            ),
          );
        }, timeoutMs);
        waiters.push(w);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function usageOf(reply: Reply, body: ChatRequest['body']) {
  const u = reply.usage ?? {
    inputTokens: Math.ceil(JSON.stringify(body.messages ?? []).length / 4),
    outputTokens: Math.ceil(
      ((reply.text ?? '').length + JSON.stringify(reply.toolCalls ?? []).length) / 4,
    ),
  };
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

async function stream(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  body: ChatRequest['body'],
  seq: number,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...CORS,
  });
  res.flushHeaders();
  let gone = false;
  res.on('close', () => (gone = true));
  const id = `chatcmpl-demo${seq}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? 'model';
  const includeUsage = body.stream_options?.include_usage === true;
  const frame = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  const write = (s: string) => (gone ? false : res.write(s));

  write(frame({ role: 'assistant', content: '' }));
  const chunks = reply.chunks ?? (reply.text ? (reply.text.match(/\S+\s*|\s+/g) ?? []) : []);
  for (let i = 0; i < chunks.length; i++) {
    if (reply.hangAfterDeltas !== undefined && i >= reply.hangAfterDeltas) return hang(req, res);
    if (reply.deltaDelayMs) await sleep(reply.deltaDelayMs);
    if (gone) return;
    write(frame({ content: chunks[i] }));
    reply.onDeltaSent?.(i, wallClock());
  }
  if (reply.hangAfterDeltas !== undefined && chunks.length <= reply.hangAfterDeltas)
    return hang(req, res);
  const calls = reply.toolCalls ?? [];
  calls.forEach((c, index) => {
    const callId = `call_demo${seq}_${index}`;
    const args = JSON.stringify(c.args);
    write(
      frame({
        tool_calls: [
          { index, id: callId, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      }),
    );
    // Arguments arrive in fragments, as real models send them.
    for (let at = 0; at < args.length; at += 24)
      write(frame({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 24) } }] }));
  });
  write(frame({}, calls.length ? 'tool_calls' : 'stop'));
  if (includeUsage) {
    write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(reply, body) })}\n\n`,
    );
  }
  write('data: [DONE]\n\n');
  res.end();
}

/** Keeps the response open until the client goes away (a stopped worker, an interrupt). */
function hang(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || req.destroyed) return resolve();
    res.on('close', () => resolve());
  });
}

function completion(reply: Reply, model: string, seq: number) {
  const calls = reply.toolCalls ?? [];
  return {
    id: `chatcmpl-demo${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(calls.length
            ? {
                tool_calls: calls.map((c, i) => ({
                  id: `call_demo${seq}_${i}`,
                  type: 'function',
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(reply, { messages: [] }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', ...CORS });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
