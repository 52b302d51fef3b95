import type { AgentEvent, EngineTransport, OpInput, RejectCode } from '../../src/protocol';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff';
import { newId } from './ids';

/** What one op came to: exactly one of these per submission (PROTOCOL.md). */
export type OpOutcome =
  | { ok: true; result?: unknown }
  | { ok: false; code: RejectCode; message: string };

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

export interface EngineClientOptions {
  /** Opens a fresh transport (a new Port in the extension, a fake in tests). */
  connect: () => EngineTransport;
  clientId: string;
  /** Threads to subscribe to on every (re)connect; `['*']` = all. */
  subscribe?: string[];
  newSubmissionId?: () => string;
  setTimer?: (cb: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  backoff?: BackoffOptions;
  random?: () => number;
}

interface PendingOp {
  op: Record<string, unknown>;
  resolve: (outcome: OpOutcome) => void;
}

/**
 * The panel's only link to the engine.
 *
 * Guarantees to callers:
 * - `send` resolves exactly once, with the engine's ack or reject; it never rejects and never
 *   resolves because of a disconnect. An unanswered op is resent after every reconnect with the
 *   same submissionId, which the engine's receipts turn into a replay of the first outcome.
 * - Every (re)connect sends `initialize` first, so the `initialized` snapshot replaces whatever the
 *   panel missed while disconnected (events are not replayed across reconnects).
 */
export class EngineClient {
  private transport: EngineTransport | null = null;
  private detach: Array<() => void> = [];
  /** Insertion-ordered, so resends keep the user's order. */
  private readonly pending = new Map<string, PendingOp>();
  private readonly eventListeners = new Set<(ev: AgentEvent) => void>();
  private readonly statusListeners = new Set<(s: ConnectionStatus) => void>();
  private initializeId: string | null = null;
  /**
   * Events that came on this connection before its `initialized`. The engine sends a connection
   * thread events as soon as it connects (a run it is recovering), and reads the snapshot for
   * `initialized` while more of them go out: that snapshot can be older than events already
   * received. They are held and re-applied on top of the snapshot, in order, so the newest state
   * wins (replaying a committed event is harmless: items are upserted by id).
   */
  private early: AgentEvent[] | null = null;
  private status: ConnectionStatus = 'connecting';
  private attempt = 0;
  private timer: unknown = null;
  private disposed = false;
  private readonly opts: Required<Omit<EngineClientOptions, 'subscribe'>> & { subscribe: string[] };

  constructor(options: EngineClientOptions) {
    this.opts = {
      subscribe: ['*'],
      newSubmissionId: () => newId('sub'),
      setTimer: (cb, ms) => setTimeout(cb, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      backoff: DEFAULT_BACKOFF,
      random: Math.random,
      ...options,
    };
  }

  get clientId(): string {
    return this.opts.clientId;
  }

  getStatus(): ConnectionStatus {
    return this.status;
  }

  /** Number of ops still waiting for their ack or reject (shown while reconnecting). */
  pendingCount(): number {
    return this.pending.size;
  }

  start(): void {
    if (!this.transport && !this.disposed) this.connectNow();
  }

  send(op: OpInput): Promise<OpOutcome> {
    const submissionId = this.opts.newSubmissionId();
    const full = { ...op, clientId: this.opts.clientId, submissionId } as Record<string, unknown>;
    return new Promise<OpOutcome>((resolve) => {
      this.pending.set(submissionId, { op: full, resolve });
      // While disconnected the op waits in `pending` and goes out right after the next initialize.
      this.transport?.send(full);
    });
  }

  onEvent(cb: (ev: AgentEvent) => void): () => void {
    this.eventListeners.add(cb);
    return () => this.eventListeners.delete(cb);
  }

  onStatus(cb: (s: ConnectionStatus) => void): () => void {
    this.statusListeners.add(cb);
    return () => this.statusListeners.delete(cb);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.opts.clearTimer(this.timer);
    this.timer = null;
    const t = this.transport;
    this.dropTransport();
    t?.close();
  }

  private connectNow(): void {
    this.timer = null;
    let transport: EngineTransport;
    try {
      transport = this.opts.connect();
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.transport = transport;
    this.detach = [
      transport.onEvent((ev) => this.handleEvent(ev)),
      transport.onClose(() => this.handleClose(transport)),
    ];
    this.initializeId = this.opts.newSubmissionId();
    this.early = [];
    transport.send({
      type: 'initialize',
      clientId: this.opts.clientId,
      submissionId: this.initializeId,
      subscribe: this.opts.subscribe,
    });
    for (const { op } of this.pending.values()) transport.send(op);
  }

  private handleEvent(ev: AgentEvent): void {
    if (ev.type === 'command.ack' || ev.type === 'command.reject') {
      if (ev.submissionId === this.initializeId) return;
      const entry = this.pending.get(ev.submissionId);
      if (!entry) return; // a replayed answer we already took, or another panel's
      this.pending.delete(ev.submissionId);
      entry.resolve(
        ev.type === 'command.ack'
          ? { ok: true, result: ev.result }
          : { ok: false, code: ev.code, message: ev.message },
      );
      return;
    }
    if (ev.type !== 'initialized' && this.early) {
      this.early.push(ev);
      return;
    }
    if (ev.type === 'initialized') {
      this.attempt = 0;
      this.setStatus('open');
    }
    const held = ev.type === 'initialized' ? (this.early ?? []) : [];
    if (ev.type === 'initialized') this.early = null;
    for (const e of [ev, ...held]) for (const cb of [...this.eventListeners]) cb(e);
  }

  private handleClose(transport: EngineTransport): void {
    if (transport !== this.transport) return;
    this.dropTransport();
    if (!this.disposed) this.scheduleReconnect();
  }

  private dropTransport(): void {
    for (const off of this.detach) off();
    this.detach = [];
    this.transport = null;
    this.initializeId = null;
    this.early = null;
  }

  private scheduleReconnect(): void {
    this.setStatus('reconnecting');
    const delay = backoffDelay(this.attempt++, this.opts.backoff, this.opts.random);
    this.timer = this.opts.setTimer(() => {
      if (!this.disposed) this.connectNow();
    }, delay);
  }

  private setStatus(next: ConnectionStatus): void {
    if (next === this.status) return;
    this.status = next;
    for (const cb of [...this.statusListeners]) cb(next);
  }
}
