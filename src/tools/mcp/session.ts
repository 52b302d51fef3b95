import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { ToolCallContext } from '../types';
import { CALL_REF_META, linkingFetch } from './call-streams';
import { CallTimer } from './call-timer';
import {
  McpCallTimeoutError,
  McpConnectionLostError,
  McpSessionClosedError,
  McpSessionGoneError,
} from './errors';
import { toElicitResult } from './elicitation';
import type { FetchLike, McpElicitationPayload, McpLogger, McpSavedSession } from './types';

/**
 * One MCP session: an SDK `Client` over Streamable HTTP with its `Mcp-Session-Id`. It runs calls
 * with their own deadlines, routes the server's elicitation requests to the call that caused
 * them, and reports itself broken when the transport gives up reconnecting its SSE streams.
 * Reconnecting is the owner's job (server-connection.ts): a session is never revived.
 */

const MAX_TOOL_PAGES = 50;
const MAX_TOOLS = 1000;
/** The SDK's own per-request timer is disabled for calls: `CallTimer` owns their deadlines. */
const NO_SDK_TIMEOUT = 2_147_483_647;

export interface McpSessionOptions {
  serverId: string;
  url: string;
  token: string | null;
  fetch?: FetchLike;
  clientInfo: { name: string; version: string };
  requestTimeoutMs: number;
  log: McpLogger;
  onToolsChanged(): void;
  onBroken(session: McpSession, reason: Error): void;
  /** Continue a session opened by an earlier worker (no initialize; the server may have forgotten it). */
  resume?: McpSavedSession;
}

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress(text: string): void;
  ctx: ToolCallContext;
  idleTimeoutMs: number;
  maxCallMs: number;
  /** What the UI shows if the server asks the user something during this call. */
  elicitation: Omit<McpElicitationPayload, 'message' | 'requestedSchema'>;
}

interface InFlightCall {
  ref: string;
  name: string;
  opts: McpCallOptions;
  timer: CallTimer;
  abort: AbortController;
}

export class McpSession {
  private closed = false;
  private retired = false;
  private brokenReason: Error | null = null;
  private seq = 0;
  private readonly inFlight = new Map<string, InFlightCall>();
  /** Server request id → call ref, learned from the SSE stream the request arrived on. */
  private readonly requestCalls = new Map<string, string>();

  private constructor(
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
    private readonly opts: McpSessionOptions,
  ) {}

  static async open(opts: McpSessionOptions): Promise<McpSession> {
    const client = new Client(opts.clientInfo, {
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      // The default (Ajv) compiles validators with eval, which MV3 extension pages forbid.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    let session: McpSession | undefined;
    const transport = new StreamableHTTPClientTransport(new URL(opts.url), {
      fetch: linkingFetch(opts.fetch ?? ((url, init) => fetch(url, init)), (ref, id) =>
        session?.link(ref, id),
      ),
      ...(opts.token
        ? { requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } }
        : {}),
      reconnectionOptions: {
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 10_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 2,
      },
      ...(opts.resume ? { sessionId: opts.resume.sessionId } : {}),
    });
    session = new McpSession(client, transport, opts);
    client.onerror = (err) => session?.transportError(err);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => opts.onToolsChanged());
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      session!.elicit(request, extra.requestId),
    );
    try {
      // With a session id the SDK skips initialize: the session goes on where it was.
      await client.connect(transport, { timeout: opts.requestTimeoutMs });
      if (opts.resume?.protocolVersion) transport.setProtocolVersion(opts.resume.protocolVersion);
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  get server(): string | undefined {
    const v = this.client.getServerVersion();
    return v ? `${v.name} ${v.version}` : this.opts.resume?.server;
  }

  /** What a later worker needs to resume this session. */
  get saved(): McpSavedSession | undefined {
    const sessionId = this.transport.sessionId;
    if (!sessionId) return undefined;
    const server = this.server;
    const protocolVersion = this.transport.protocolVersion;
    return {
      sessionId,
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(server ? { server } : {}),
    };
  }

  /** Closed, retired or lost: the owner must open a new session. */
  get usable(): boolean {
    return !this.closed && !this.retired && !this.brokenReason;
  }

  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Every tool, following `nextCursor` pages. */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await this.client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.opts.requestTimeoutMs,
      });
      tools.push(...res.tools);
      if (tools.length > MAX_TOOLS)
        throw new Error(`the server lists more than ${MAX_TOOLS} tools`);
      if (!res.nextCursor) return tools;
      if (seen.has(res.nextCursor)) throw new Error('the server repeated a tools/list cursor');
      seen.add(res.nextCursor);
      cursor = res.nextCursor;
    }
    throw new Error(`the server's tool list has more than ${MAX_TOOL_PAGES} pages`);
  }

  async ping(): Promise<void> {
    await this.client.ping({ timeout: this.opts.requestTimeoutMs });
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: McpCallOptions,
  ): Promise<CallToolResult> {
    if (!this.usable)
      throw new McpSessionGoneError(
        `the session with MCP server "${this.opts.serverId}" no longer takes calls`,
      );
    opts.signal.throwIfAborted();
    const ref = `c${++this.seq}`;
    const abort = new AbortController();
    let timeout: McpCallTimeoutError | null = null;
    const timer = new CallTimer(opts.idleTimeoutMs, opts.maxCallMs, (kind) => {
      timeout = new McpCallTimeoutError(
        kind,
        this.opts.serverId,
        name,
        kind === 'idle' ? opts.idleTimeoutMs : opts.maxCallMs,
      );
      abort.abort(timeout);
    });
    const onAbort = () => abort.abort(opts.signal.reason);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.set(ref, { ref, name, opts, timer, abort });
    timer.start();
    try {
      const result = await this.client.callTool(
        { name, arguments: args, _meta: { [CALL_REF_META]: ref } },
        CallToolResultSchema,
        {
          signal: abort.signal,
          timeout: NO_SDK_TIMEOUT,
          onprogress: (p: Progress) => {
            timer.touch();
            opts.onProgress(progressText(p));
          },
        },
      );
      return result as CallToolResult;
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason ?? err;
      if (timeout) throw timeout;
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : undefined;
      if (reason instanceof McpConnectionLostError || reason instanceof McpSessionClosedError)
        throw reason;
      throw err;
    } finally {
      timer.stop();
      opts.signal.removeEventListener('abort', onAbort);
      this.inFlight.delete(ref);
      for (const [id, r] of this.requestCalls) if (r === ref) this.requestCalls.delete(id);
      if (this.retired && this.inFlight.size === 0) void this.close();
    }
  }

  /**
   * Take no new calls and close once the calls in flight have ended. For a session the server
   * no longer knows: its calls in flight get their own answer (a 404, or a result), rather than
   * an error of ours that would hide whether they ran.
   */
  retire(): Promise<void> {
    this.retired = true;
    return this.inFlight.size === 0 ? this.close() : Promise.resolve();
  }

  /** Ends the session on the server (DELETE, best effort) and locally. Calls in flight fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failInFlight(
      new McpSessionClosedError(`the session with MCP server "${this.opts.serverId}" was closed`),
    );
    if (this.transport.sessionId && !this.brokenReason) {
      await Promise.race([this.transport.terminateSession().catch(() => undefined), delay(2_000)]);
    }
    await this.client.close().catch(() => undefined);
  }

  private link(callRef: string, serverRequestId: string | number): void {
    if (this.inFlight.has(callRef)) this.requestCalls.set(String(serverRequestId), callRef);
  }

  /**
   * The call this server request belongs to: the one whose stream carried it; failing that (the
   * request came on the standalone stream), the only call in flight. Never a guess among several.
   */
  private callFor(serverRequestId: string | number): InFlightCall | undefined {
    const ref = this.requestCalls.get(String(serverRequestId));
    if (ref) return this.inFlight.get(ref);
    return this.inFlight.size === 1 ? [...this.inFlight.values()][0] : undefined;
  }

  private async elicit(
    request: ElicitRequest,
    serverRequestId: string | number,
  ): Promise<ElicitResult> {
    const call = this.callFor(serverRequestId);
    const params = request.params;
    if (
      !call ||
      !call.opts.ctx.requestInteraction ||
      params.mode === 'url' ||
      !('requestedSchema' in params)
    ) {
      this.opts.log('info', 'declined an elicitation request no running call can answer', {
        serverId: this.opts.serverId,
      });
      return { action: 'decline' };
    }
    const payload: McpElicitationPayload = {
      ...call.opts.elicitation,
      message: params.message,
      requestedSchema: params.requestedSchema as Record<string, unknown>,
    };
    call.timer.pause();
    call.opts.onProgress(`Waiting for your answer: ${clip(params.message, 200)}`);
    try {
      return toElicitResult(await call.opts.ctx.requestInteraction('elicitation', payload));
    } catch {
      // The run was interrupted (or the question withdrawn): the call's own signal ends it.
      return { action: 'cancel' };
    } finally {
      call.timer.resume();
    }
  }

  private transportError(err: Error): void {
    if (this.closed) return;
    this.opts.log('debug', 'MCP transport error', {
      serverId: this.opts.serverId,
      error: err.message,
    });
    // The SDK retries a dropped SSE stream a few times, then reports this and stops: the server is gone.
    if (/Maximum reconnection attempts/i.test(err.message))
      this.markBroken(
        new McpConnectionLostError(`the connection to MCP server "${this.opts.serverId}" was lost`),
      );
  }

  private markBroken(reason: Error): void {
    if (this.brokenReason || this.closed) return;
    this.brokenReason = reason;
    this.failInFlight(reason);
    this.opts.onBroken(this, reason);
  }

  private failInFlight(reason: Error): void {
    for (const call of this.inFlight.values()) call.abort.abort(reason);
  }
}

function progressText(p: Progress): string {
  const pct = p.total ? ` (${Math.round((p.progress / p.total) * 100)}%)` : '';
  const count = p.total ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message ? `${clip(p.message, 300)} — ${count}${pct}` : `Progress ${count}${pct}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
