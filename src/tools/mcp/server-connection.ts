import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  classifyMcpError,
  describeMcpError,
  McpSignInRequiredError,
  McpUnavailableError,
  type SignInChallenge,
} from './errors';
import { afterFailedCall } from './resend-policy';
import { askToSignIn } from './sign-in';
import { McpSession, type McpCallOptions } from './session';
import type {
  FetchLike,
  McpIsolation,
  McpLogger,
  McpSavedSession,
  McpServerState,
  McpSessionStore,
  McpTiming,
} from './types';

/**
 * Everything about one configured server's connection: its sessions (one shared, or one per
 * thread), reconnection with exponential backoff, session expiry, and the tool list it reports
 * upwards. Listing:
 * - shared: the shared session lists tools and stays open (it receives tools/list_changed);
 * - per_thread: a probe session lists tools and is closed at once (spec/000 per_conversation);
 *   threads open their own sessions on their first call.
 * A lost or expired session is replaced, never revived. A call that failed because the session
 * expired or the connection dropped is retried once on a new session when the tool is read-only;
 * any other call fails with a message that says what is known about whether it ran.
 */

export interface ServerConnectionOptions {
  serverId: string;
  url: string;
  token: string | null;
  isolation: McpIsolation;
  fetch?: FetchLike;
  clientInfo: { name: string; version: string };
  timing: McpTiming;
  log: McpLogger;
  /** A fresh, complete tool list. */
  onTools(tools: Tool[]): void;
  /** State, message, sessions or retry time changed. */
  onChange(): void;
  /** Runs the OAuth sign-in (the user's agent opens); absent: the server has no OAuth. */
  signIn?(challenge: SignInChallenge): Promise<void>;
  serverLabel?: string;
  /** Per-thread session ids, kept so the next worker resumes them. */
  sessionStore?: McpSessionStore;
}

/**
 * Sign-ins one call may go through before it gives up (the first, then one step-up): a server
 * that keeps asking after granting what it asked for is not asked again (the retry limit).
 */
const MAX_SIGN_INS_PER_CALL = 2;

export interface ConnectionCall extends Omit<McpCallOptions, 'idleTimeoutMs' | 'maxCallMs'> {
  serverTool: string;
  args: Record<string, unknown>;
  readOnly: boolean;
}

/** A session being opened or open; `session` is set once it is. */
interface Slot {
  promise: Promise<McpSession>;
  session?: McpSession;
  idle?: ReturnType<typeof setTimeout>;
}

export class ServerConnection {
  state: McpServerState = 'connecting';
  message?: string;
  server?: string;
  lastConnectedAt?: number;
  nextRetryAt?: number;

  private shared: Slot | null = null;
  private readonly threads = new Map<string, Slot>();
  private retryTimer?: ReturnType<typeof setTimeout>;
  private refreshTimer?: ReturnType<typeof setTimeout>;
  private attempt = 0;
  private closed = false;
  private listing: Promise<void> | null = null;

  constructor(private readonly o: ServerConnectionOptions) {}

  get sessions(): number {
    return (this.shared ? 1 : 0) + this.threads.size;
  }

  /** Connect and list tools. Never rejects: a failure sets `error` and schedules a retry. */
  start(): Promise<void> {
    return this.refresh().catch(() => undefined);
  }

  /** List tools again (and connect if needed). Concurrent callers share one listing. */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.listing ??= this.list().finally(() => {
      this.listing = null;
    });
    return this.listing;
  }

  async callTool(call: ConnectionCall): Promise<CallToolResult> {
    for (let signIns = 0; ; signIns++) {
      try {
        return await this.callOnce(call);
      } catch (err) {
        if (!(err instanceof McpSignInRequiredError) || call.signal.aborted) throw err;
        if (!this.o.signIn || !call.ctx.requestInteraction || signIns >= MAX_SIGN_INS_PER_CALL)
          throw new Error(
            `${err.message}: sign in from Keel's settings (MCP servers → Connect); "${call.serverTool}" did not run.`,
          );
        await askToSignIn(err, call, {
          serverId: this.o.serverId,
          ...(this.o.serverLabel ? { serverLabel: this.o.serverLabel } : {}),
          signIn: this.o.signIn,
        });
      }
    }
  }

  private async callOnce(call: ConnectionCall): Promise<CallToolResult> {
    const opts: McpCallOptions = {
      ...call,
      idleTimeoutMs: this.o.timing.callIdleTimeoutMs,
      maxCallMs: this.o.timing.callMaxMs,
    };
    const threadId = call.ctx.threadId;
    let session = await this.sessionFor(threadId);
    try {
      return await this.run(session, threadId, call, opts);
    } catch (err) {
      if (call.signal.aborted) throw err;
      const kind = classifyMcpError(err);
      const next = afterFailedCall({
        kind,
        readOnly: call.readOnly,
        isolation: this.o.isolation,
        serverId: this.o.serverId,
        tool: call.serverTool,
        error: err,
      });
      if (next.kind === 'rethrow') throw err;
      this.discard(session, err);
      if (next.kind === 'fail') throw new Error(next.message);
      this.o.log('info', 'sending a call again on a new session', {
        serverId: this.o.serverId,
        tool: call.serverTool,
        kind,
      });
      session = await this.sessionFor(threadId);
      return await this.run(session, threadId, call, opts);
    }
  }

  /** Close the thread's own session (per_thread servers). */
  async closeThread(threadId: string): Promise<void> {
    const slot = this.threads.get(threadId);
    if (slot) await this.dropThread(threadId, slot);
    else this.forgetSaved(threadId); // saved by an earlier worker, never resumed in this one
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.refreshTimer);
    const slots = [...this.threads.values()];
    if (this.shared) slots.push(this.shared);
    for (const threadId of this.threads.keys()) this.forgetSaved(threadId);
    this.threads.clear();
    this.shared = null;
    await Promise.all(slots.map((slot) => closeSlot(slot)));
  }

  private async run(
    session: McpSession,
    threadId: string,
    call: ConnectionCall,
    opts: McpCallOptions,
  ): Promise<CallToolResult> {
    const slot = this.threads.get(threadId);
    const own = slot?.session === session ? slot : undefined;
    if (own) clearTimeout(own.idle);
    try {
      return await session.callTool(call.serverTool, call.args, opts);
    } finally {
      if (own && this.threads.get(threadId) === own) this.armIdle(threadId, own);
    }
  }

  private async list(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.state !== 'connected') this.setState('connecting', 'connecting…');
    let probe: McpSession | undefined;
    try {
      const session =
        this.o.isolation === 'shared' ? await this.sharedSession() : (probe = await this.open());
      const tools = await session.listTools();
      if (this.closed) return;
      this.server = session.server;
      this.attempt = 0;
      this.lastConnectedAt = Date.now();
      this.o.onTools(tools);
      this.setState('connected');
    } catch (err) {
      if (this.closed) return;
      if (this.shared) this.dropShared(this.shared.session);
      if (err instanceof McpSignInRequiredError) {
        // Retrying cannot help until the user signs in (which refreshes the connection).
        clearTimeout(this.retryTimer);
        this.setState('needs_sign_in', err.message);
      } else this.scheduleRetry(err);
      throw err;
    } finally {
      await probe?.close();
    }
  }

  /** A usable session for this thread; connects now (not at the next retry) if there is none. */
  private async sessionFor(threadId: string): Promise<McpSession> {
    if (this.closed)
      throw new McpUnavailableError(`MCP server "${this.o.serverId}" is not enabled`);
    try {
      if (this.o.isolation === 'shared') {
        const current = this.shared ? await this.shared.promise : undefined;
        if (current?.usable) return current;
        if (current) this.dropShared(current);
        await this.refresh(); // opens the shared session and lists tools (the server may have changed)
        const fresh = this.shared ? await this.shared.promise : undefined;
        if (!fresh?.usable) throw new Error('the session closed right after it opened');
        return fresh;
      }
      const existing = this.threads.get(threadId);
      if (existing) {
        const s = await existing.promise.catch(() => undefined);
        if (s?.usable) return s;
        void this.dropThread(threadId, existing, 'retire');
      }
      const slot = this.threadSlot(threadId);
      this.threads.set(threadId, slot);
      this.o.onChange();
      try {
        return await slot.promise;
      } catch (err) {
        if (this.threads.get(threadId) === slot) this.threads.delete(threadId);
        void this.refresh().catch(() => undefined); // the status should say the server is down
        throw err;
      }
    } catch (err) {
      if (err instanceof McpUnavailableError || err instanceof McpSignInRequiredError) throw err;
      throw new McpUnavailableError(
        `MCP server "${this.o.serverId}" is unavailable: ${describeMcpError(err)}. Keel keeps retrying in the background.`,
      );
    }
  }

  private sharedSession(): Promise<McpSession> {
    if (!this.shared) {
      const slot = this.slot();
      this.shared = slot;
      slot.promise.catch(() => {
        if (this.shared === slot) this.shared = null;
      });
      this.o.onChange();
    }
    return this.shared.promise;
  }

  private slot(): Slot {
    const slot: Slot = { promise: this.open() };
    slot.promise.then(
      (s) => (slot.session = s),
      () => undefined,
    );
    return slot;
  }

  /**
   * A thread's session: the one an earlier worker opened if it was saved (resumed without a new
   * initialize; if the server forgot it, the first request says so and a new one replaces it),
   * else a new one, saved for the next worker.
   */
  private threadSlot(threadId: string): Slot {
    const store = this.o.sessionStore;
    const key = this.savedKey(threadId);
    const promise = (async () => {
      const saved = store ? await store.load(key).catch(() => null) : null;
      if (saved)
        this.o.log('info', 'resuming a per-thread MCP session', {
          serverId: this.o.serverId,
          threadId,
        });
      const session = await this.open(saved ?? undefined);
      const now = session.saved;
      if (store && now && now.sessionId !== saved?.sessionId)
        await store.save(key, now).catch(() => undefined);
      return session;
    })();
    const slot: Slot = { promise };
    promise.then(
      (s) => (slot.session = s),
      () => undefined,
    );
    return slot;
  }

  private savedKey(threadId: string): string {
    return JSON.stringify([this.o.serverId, this.o.url, threadId]);
  }

  private forgetSaved(threadId: string): void {
    void this.o.sessionStore?.remove(this.savedKey(threadId)).catch(() => undefined);
  }

  private async open(resume?: McpSavedSession): Promise<McpSession> {
    const session = await McpSession.open({
      ...(resume ? { resume } : {}),
      serverId: this.o.serverId,
      url: this.o.url,
      token: this.o.token,
      fetch: this.o.fetch,
      clientInfo: this.o.clientInfo,
      requestTimeoutMs: this.o.timing.requestTimeoutMs,
      log: this.o.log,
      onToolsChanged: () => this.toolsChanged(),
      onBroken: (s, reason) => this.broken(s, reason),
    });
    if (this.closed) {
      await session.close();
      throw new McpUnavailableError(`MCP server "${this.o.serverId}" is not enabled`);
    }
    return session;
  }

  private toolsChanged(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(
      () => void this.refresh().catch(() => undefined),
      this.o.timing.listChangedDebounceMs,
    );
  }

  /** The transport gave up on a session: replace the shared one in the background. */
  private broken(session: McpSession, reason: Error): void {
    if (this.closed) return;
    this.o.log('warn', 'MCP session lost', { serverId: this.o.serverId, error: reason.message });
    this.discard(session, reason);
  }

  /** Stop using `session`; a shared session is reopened in the background (with backoff on failure). */
  private discard(session: McpSession, reason: unknown): void {
    this.o.log('info', 'discarding MCP session', {
      serverId: this.o.serverId,
      error: describeMcpError(reason),
    });
    for (const [threadId, slot] of this.threads)
      if (slot.session === session) void this.dropThread(threadId, slot, 'retire');
    if (this.shared?.session === session) {
      this.dropShared(session, describeMcpError(reason));
      void this.refresh().catch(() => undefined);
    }
    void session.retire();
  }

  private dropShared(session: McpSession | undefined, why?: string): void {
    if (!this.shared || this.shared.session !== session) return;
    const old = this.shared;
    this.shared = null;
    void closeSlot(old, 'retire');
    if (this.state === 'connected')
      this.setState('connecting', why ? `reconnecting: ${why}` : 'reconnecting…');
    else this.o.onChange();
  }

  private async dropThread(
    threadId: string,
    slot: Slot,
    how: 'close' | 'retire' = 'close',
  ): Promise<void> {
    if (this.threads.get(threadId) !== slot) return;
    this.threads.delete(threadId);
    this.forgetSaved(threadId);
    clearTimeout(slot.idle);
    this.o.onChange();
    await closeSlot(slot, how);
  }

  private armIdle(threadId: string, slot: Slot): void {
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.session?.busy) return this.armIdle(threadId, slot);
      this.o.log('debug', 'closing an idle per-thread session', {
        serverId: this.o.serverId,
        threadId,
      });
      void this.dropThread(threadId, slot);
    }, this.o.timing.threadSessionIdleMs);
  }

  private scheduleRetry(err: unknown): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    const wait = Math.min(
      this.o.timing.reconnectBaseMs * 2 ** this.attempt,
      this.o.timing.reconnectMaxMs,
    );
    this.attempt = Math.min(this.attempt + 1, 30);
    this.nextRetryAt = Date.now() + wait;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.refresh().catch(() => undefined);
    }, wait);
    this.setState('error', describeMcpError(err));
  }

  private setState(state: McpServerState, message?: string): void {
    this.state = state;
    this.message = message;
    if (state !== 'error') this.nextRetryAt = undefined;
    this.o.onChange();
  }
}

/** `close` ends calls in flight (settings changed, thread deleted); `retire` lets them finish. */
function closeSlot(slot: Slot, how: 'close' | 'retire' = 'close'): Promise<void> {
  clearTimeout(slot.idle);
  return slot.promise.then(
    (s) => (how === 'close' ? s.close() : s.retire()),
    () => undefined,
  );
}
