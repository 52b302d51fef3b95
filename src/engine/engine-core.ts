import { Outbox } from './host/outbox';
import {
  type AgentEvent,
  Op,
  eventThreadId,
  type EngineConnection,
  type EngineEndpoint,
  type OpOf,
  type OpType,
} from '../protocol';
import type { Store } from '../store/store';
import { ReceiptsRepo } from '../store/receipts-repo';
import type { ToolRegistry } from '../tools/registry';
import {
  EngineKilled,
  InteractionWaiters,
  LiveStatus,
  type EngineContext,
} from './host/engine-context';
import type { Client, EngineHost } from './turn/engine-host';
import { READ_ONLY_OPS, opFingerprint, reject, type Outcome } from './ops/receipts';
import { RunDriver } from './turn/run-driver';
import { ActorPool } from './turn/thread-actor';
import {
  DEFAULT_OPTIONS,
  consoleLogger,
  randomIds,
  systemClock,
  type EngineDeps,
} from './host/types';
import { handlers, type HandlerResult, type OpContext } from './ops/ops';
import { readPublicSettings } from './env/settings-service';
import { startNextQueued } from './turn/queue';
import { recoverRuns } from './turn/recovery';

/** Ops whose relative order within a thread is part of their meaning. */
const ORDERED_OPS = new Set(['turn.steer', 'turn.enqueue', 'queue.update', 'queue.remove']);

/**
 * The lane an op joins, so ops that compete for one thing are decided in the order they arrived:
 * a thread's steers and queue edits, and the answers to one request ("the first response
 * decides", spec/001 §5.1). Without a lane two answers sent at once race through the async steps
 * before their commit (the op's fingerprint is a WebCrypto digest, which may finish in either
 * order), and the later one could claim the request.
 */
function laneOf(op: Op): string | undefined {
  if (ORDERED_OPS.has(op.type) && 'threadId' in op) return `thread:${op.threadId}`;
  if (op.type === 'approval.response') return `approval:${op.approvalId}`;
  if (op.type === 'interaction.response') return `interaction:${op.interactionId}`;
  if (op.type === 'run.resolveUncertain') return `run:${op.runId}`;
  return undefined;
}

/**
 * EngineCore (ARCHITECTURE.md "Engine"): validates ops at the boundary, applies command receipts,
 * routes each op to its handler, and routes events to the clients subscribed to their thread.
 * Invalid input is rejected with `invalid_command` and never wedges the engine.
 */
export class Engine implements EngineEndpoint, EngineHost {
  readonly ctx: EngineContext;
  readonly driver: RunDriver;
  readonly actors = new ActorPool();
  private readonly clients = new Set<Client>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly lanes = new Map<string, Promise<void>>();
  /** Ops wait for recovery: resolved only by `start()`. */
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  private killed = false;

  constructor(deps: EngineDeps) {
    const options = { ...DEFAULT_OPTIONS, ...deps.options };
    const faults = deps.faults;
    const ctx: EngineContext = {
      store: deps.store,
      registry: deps.registry,
      providers: deps.providers,
      clock: deps.clock ?? systemClock,
      ids: deps.ids ?? randomIds,
      ...(deps.browser ? { browser: deps.browser } : {}),
      log: deps.log ?? consoleLogger,
      options,
      emit: (ev) => this.emit(ev),
      waiters: new InteractionWaiters(),
      live: new LiveStatus(),
      boundary: async (name) => {
        if (this.killed) throw new EngineKilled(name);
        if (faults) await faults.at(name);
        if (this.killed) throw new EngineKilled(name);
      },
      commit: async (name, fn) => {
        await ctx.boundary(`tx:${name}:before`);
        const out = new Outbox();
        // Under a fault injector (the simulation) the transaction's last moment is a boundary
        // too: a worker stopped there has done all the work of a commit that never lands, and
        // recovery must find none of it. Without one the transaction runs `fn` as it is.
        const result = await deps.store.transaction(
          faults
            ? async () => {
                const r = await fn(out);
                await ctx.boundary(`tx:${name}:inside`);
                return r;
              }
            : // An async function: Dexie keeps its zone across the awaits only for those.
              async () => fn(out),
        );
        await ctx.boundary(`tx:${name}:after`);
        for (const ev of out.drain()) this.emit(ev);
        return result;
      },
    };
    this.ctx = ctx;
    // A recording's progress goes to every client (the Workflows view shows it live).
    deps.browser?.recorder?.onChange((recording) =>
      this.emit({ type: 'workflow.recording', recording }),
    );
    this.ready = new Promise<void>((r) => (this.markReady = r));
    this.driver = new RunDriver(ctx, {
      runEnded: async (run) => {
        if (run.state === 'completed' || run.state === 'failed')
          void startNextQueued(this, run.threadId).catch((e) => this.onBackgroundError(e));
      },
    });
  }

  get store(): Store {
    return this.ctx.store;
  }

  get registry(): ToolRegistry {
    return this.ctx.registry;
  }

  /**
   * Recover every unfinished run (ARCHITECTURE.md recovery table) before any op is served. Call
   * once when the service worker starts.
   */
  start(): Promise<void> {
    void this.pruneReceipts();
    void recoverRuns(this)
      .catch((e) => this.ctx.log.error('recovery failed', { error: String(e) }))
      .finally(() => this.markReady());
    return this.ready;
  }

  private receiptsSincePrune = 0;
  private pruning: Promise<void> | null = null;
  private pruneAgain = false;

  /**
   * Keep the receipts table bounded: by age, then by count (oldest first). Runs at start and
   * after every tenth of `maxReceipts` new receipts, outside any op's transaction.
   */
  private pruneReceipts(): Promise<void> {
    this.receiptsSincePrune = 0;
    if (this.pruning !== null) {
      // One pass at a time; a request meanwhile runs one more pass after it.
      this.pruneAgain = true;
      return this.pruning;
    }
    this.pruning = (async () => {
      const { options, clock } = this.ctx;
      do {
        this.pruneAgain = false;
        if (this.killed) return;
        await this.store.receipts.prune(clock.now() - options.receiptTtlMs);
        await this.store.receipts.pruneToNewest(options.maxReceipts);
      } while (this.pruneAgain);
    })()
      .catch((e) => this.onBackgroundError(e))
      .finally(() => (this.pruning = null));
    return this.pruning;
  }

  /** Whether any run is being driven right now (keeps the worker alive). */
  hasLiveRuns(): boolean {
    return this.driver.liveCount > 0;
  }

  /** Stop everything (the crash harness's "worker died"): no further effects or events. */
  kill(): void {
    this.killed = true;
  }

  get isKilled(): boolean {
    return this.killed;
  }

  connect(conn: EngineConnection): void {
    // Nothing is delivered before the client initializes (it has no snapshot to apply events to).
    const client: Client = { conn, subs: new Set(), held: null };
    this.clients.add(client);
    conn.onOp((raw) => void this.onOp(client, raw));
    conn.onClose(() => this.clients.delete(client));
  }

  private readonly observers = new Set<(ev: AgentEvent) => void>();

  /** In-process listeners (the service worker's MCP wiring): every event, after clients. */
  observe(cb: (ev: AgentEvent) => void): () => void {
    this.observers.add(cb);
    return () => this.observers.delete(cb);
  }

  /** Deliver an event: thread events to subscribers, others to everyone. */
  emit(ev: AgentEvent): void {
    if (this.killed) return;
    for (const o of this.observers) {
      try {
        o(ev);
      } catch (e) {
        this.ctx.log.warn('event observer failed', { error: String(e) });
      }
    }
    const threadId = eventThreadId(ev);
    for (const c of this.clients) {
      if (threadId === undefined ? c.subs.size === 0 : !(c.subs.has('*') || c.subs.has(threadId)))
        continue;
      if (c.held) c.held.push(ev);
      else c.conn.deliver(ev);
    }
  }

  sendTo(client: Client, ev: AgentEvent): void {
    if (!this.killed) client.conn.deliver(ev);
  }

  /** Start holding a client's events (its snapshot is being read). */
  holdEvents(client: Client): void {
    client.held ??= [];
  }

  /** Deliver `first` (the snapshot), then everything held meanwhile, in order. */
  releaseEvents(client: Client, first: AgentEvent): void {
    const held = client.held ?? [];
    client.held = null;
    this.sendTo(client, first);
    for (const ev of held) this.sendTo(client, ev);
  }

  setSubscriptions(
    client: Client,
    subs: string[] | undefined,
    mode: 'replace' | 'add' | 'remove',
  ): void {
    if (mode === 'replace') client.subs = new Set(subs ?? ['*']);
    else if (mode === 'add') for (const s of subs ?? []) client.subs.add(s);
    else for (const s of subs ?? []) client.subs.delete(s);
  }

  /** Background work (drives, titles, queue starts) reports here instead of throwing into the void. */
  onBackgroundError(e: unknown): void {
    if (e instanceof EngineKilled || this.killed) return;
    this.ctx.log.error('background task failed', {
      error: e instanceof Error ? e.message : String(e),
    });
  }

  /** Send everyone the current PublicSettings (after a rule, skill, or provider change). */
  publishSettings(): void {
    void readPublicSettings(this.ctx)
      .then((settings) => this.emit({ type: 'settings.updated', settings }))
      .catch((e) => this.onBackgroundError(e));
  }

  /** Schedule a run's drive on its thread's actor. */
  schedule(threadId: string, runId: string): void {
    void this.actors
      .for(threadId)
      .run(() => this.driver.drive(runId))
      .catch((e) => this.onBackgroundError(e));
  }

  private async onOp(client: Client, raw: unknown): Promise<void> {
    const submissionId =
      raw &&
      typeof raw === 'object' &&
      typeof (raw as { submissionId?: unknown }).submissionId === 'string'
        ? (raw as { submissionId: string }).submissionId
        : '';
    const send = (o: Outcome) =>
      this.sendTo(
        client,
        o.kind === 'ack'
          ? {
              type: 'command.ack',
              submissionId,
              ...(o.result !== undefined ? { result: o.result } : {}),
            }
          : {
              type: 'command.reject',
              submissionId,
              code: o.code as 'invalid_command',
              message: o.message,
            },
      );
    let size = 0;
    try {
      size = JSON.stringify(raw)?.length ?? 0;
    } catch {
      return send(reject('invalid_command', 'The op is not serializable JSON.'));
    }
    if (size > this.ctx.options.maxOpBytes) {
      return send(
        reject(
          'invalid_command',
          `The op is too large (${size} bytes; limit ${this.ctx.options.maxOpBytes}).`,
        ),
      );
    }
    const parsed = Op.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      return send(
        reject('invalid_command', `Invalid op${where}: ${issue?.message ?? 'malformed'}`),
      );
    }
    const op = parsed.data;
    // Join the op's lane now, before any await, so a later op cannot overtake an earlier one.
    const laneId = laneOf(op);
    if (laneId !== undefined) {
      const lane = this.lanes.get(laneId) ?? Promise.resolve();
      const next = lane.then(() => this.processOp(client, op, send));
      this.lanes.set(laneId, next);
      void next.finally(() => {
        if (this.lanes.get(laneId) === next) this.lanes.delete(laneId);
      });
      return next;
    }
    return this.processOp(client, op, send);
  }

  private async processOp(client: Client, op: Op, send: (o: Outcome) => void): Promise<void> {
    try {
      await this.ready;
      await this.ctx.boundary(`op:${op.type}`);
      if (READ_ONLY_OPS.has(op.type)) {
        const res = await this.runHandler(client, op, null);
        send(res.outcome);
        res.after?.();
        return;
      }
      const key = ReceiptsRepo.key(op.clientId, op.submissionId);
      // The same submission twice at once: the second waits, then replays the first's receipt.
      while (this.inflight.has(key)) await this.inflight.get(key);
      let release!: () => void;
      this.inflight.set(key, new Promise<void>((r) => (release = r)));
      try {
        const fingerprint = await opFingerprint(op);
        const existing = await this.store.receipts.get(key);
        if (existing) {
          if (existing.fingerprint === fingerprint && existing.type === op.type)
            return send(existing.outcome);
          return send(
            reject(
              'invalid_command',
              'This submissionId was already used for a different command.',
            ),
          );
        }
        const opCtx: OpContext = {
          written: false,
          writeReceipt: async (outcome) => {
            opCtx.written = true;
            await this.store.receipts.put({
              key,
              type: op.type,
              fingerprint,
              outcome,
              now: this.ctx.clock.now(),
            });
          },
        };
        const res = await this.runHandler(client, op, opCtx);
        if (!opCtx.written) await this.ctx.commit('receipt', () => opCtx.writeReceipt(res.outcome));
        send(res.outcome);
        res.after?.();
        if (++this.receiptsSincePrune >= Math.max(1, Math.floor(this.ctx.options.maxReceipts / 10)))
          void this.pruneReceipts();
      } finally {
        this.inflight.delete(key);
        release();
      }
    } catch (e) {
      if (e instanceof EngineKilled || this.killed) return;
      this.ctx.log.error('op failed', {
        type: op.type,
        error: e instanceof Error ? e.message : String(e),
      });
      send(
        reject(
          'internal',
          `Internal error while handling ${op.type}: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    }
  }

  private runHandler(client: Client, op: Op, opCtx: OpContext | null): Promise<HandlerResult> {
    const handler = handlers[op.type as OpType] as (
      engine: EngineHost,
      client: Client,
      op: OpOf<OpType>,
      ctx: OpContext,
    ) => Promise<HandlerResult>;
    const noReceipt: OpContext = { written: true, writeReceipt: async () => undefined };
    return handler(this, client, op, opCtx ?? noReceipt);
  }
}

export type { Client };
