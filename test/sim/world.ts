import { z } from 'zod';
import { Engine, registerBuiltins } from '../../src/engine';
import type { FaultInjector } from '../../src/engine/host/types';
import { AgentEvent, DirectTransport } from '../../src/protocol';
import {
  ScriptedProvider,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedToolCall,
} from '../../src/providers/scripted';
import type { ProviderResolver } from '../../src/providers/types';
import { defaultSettings } from '../../src/store/settings-repo';
import type { StoreApi } from '../../src/store/store-api';
import { ToolRegistry } from '../../src/tools/registry';
import type { AgentTool } from '../../src/tools/types';
import { requestFacts, type GeneratedCall, type RequestFacts } from './loop-rules';
import type { History, KillTarget, Reply, SimToolName, ToolOutcome } from './plan';
import type { SimStore } from './sim-store';

/**
 * The simulated world around the engine: a virtual clock and id source, the model (a
 * ScriptedProvider playing the history's replies), the tools (fakes with faults and delays), a
 * kill switch at effect boundaries, and the UI (a client on a DirectTransport). Engines come and
 * go (a kill, then recovery on a new engine over the same data); the ledger outlives them.
 *
 * Time is virtual: the clock ticks once per read, and the engine's one wait on time (the backoff
 * between retries of a transient tool failure, `EngineOptions.sleep`) is a gate like a slow tool:
 * it ends when the scheduler releases it, and the clock moves on by the wait's length then.
 */

/** What a simulated tool throws for a failure that says "not ready yet" (tool-retry.ts). */
export const TRANSIENT_TOOL_ERROR = 'content script not ready (simulated)';

/** Counts of what the loop's rules and the recovery paths met in one history (reported by sim.ts). */
export interface SimStats {
  /** Turns that came to rest in paused_uncertain (a write's outcome unknown after a kill). */
  uncertainPauses: number;
  /** Retries of a transient tool failure (each backoff wait the engine started). */
  toolRetries: number;
  /** Runs whose failure breaker tripped (5 consecutive failures, as the simulation counts them). */
  breakerTrips: number;
  /** Turns paused by the token budget. */
  budgetPauses: number;
  /** Non-retryable provider errors the engine received. */
  nonRetryable: number;
  /** Kills that landed inside a transaction, and while a write tool executed. */
  insideKills: number;
  writeToolKills: number;
  /** Hand-overs to the user (request_takeover), and those handed back with Done. */
  takeovers: number;
  handedBack: number;
  /** Runs paused for the user's Take over (entries into user_control), acked run.handBack ops. */
  userTakeOvers: number;
  userHandBacks: number;
  /** Kills at a boundary of a Take over or hand-back transaction. */
  handOverKills: number;
}

export function emptyStats(): SimStats {
  return {
    uncertainPauses: 0,
    toolRetries: 0,
    breakerTrips: 0,
    budgetPauses: 0,
    nonRetryable: 0,
    insideKills: 0,
    writeToolKills: 0,
    takeovers: 0,
    handedBack: 0,
    userTakeOvers: 0,
    userHandBacks: 0,
    handOverKills: 0,
  };
}

export const ORIGIN = 'https://shop.example';
export const MCP_PREFIX = 'mcp__docs__';
const MCP_DOWN = 'MCP server docs disconnected';
/** The tools the simulation registers (ask_user and request_takeover are the engine's own). */
const SIM_TOOLS: SimToolName[] = ['read_page', 'fill_form', 'reload_tab', 'mcp__docs__search'];

export interface Seen {
  session: number;
  ev: AgentEvent;
}

/** Something waiting for the scheduler's `release`: a tool execution or a model reply. */
interface Gate {
  session: number;
  label: string;
  resolve(): void;
  reject(err: Error): void;
}

export interface SentOp {
  session: number;
  op: Record<string, unknown>;
  submissionId: string;
  /** `ledger.events.length` when it was sent (orders ops among events). */
  at: number;
  /** A re-send of an earlier submission id (the UI retrying). */
  repeat: boolean;
  answers: Extract<AgentEvent, { type: 'command.ack' | 'command.reject' }>[];
}

/** What lives across engines. */
export class Ledger {
  now = 1_700_000_000_000;
  private idCounter = 0;
  replyCursor = 0;
  toolCursor = 0;
  lastModelCallId = '';
  readonly events: Seen[] = [];
  readonly ops: SentOp[] = [];
  readonly gates: Gate[] = [];
  /** Executions per (tool, toolCallId). */
  readonly executions = new Map<string, number>();
  readonly executionLog: { tool: SimToolName; callId: string; runId: string }[] = [];
  readonly requests: RecordedRequest[] = [];
  /** What the world was when each request was sent (same index as `requests`; loop-rules.ts). */
  readonly requestLog: RequestFacts[] = [];
  /** Transient failures still to come for a call's current dispatch, by session and call id. */
  readonly transientLeft = new Map<string, { left: number; outcome: ToolOutcome }>();
  readonly stats = emptyStats();
  /** The calls the simulated model made, by the id it gave them (loop-rules.ts). */
  readonly calls = new Map<string, GeneratedCall>();
  /** The errors the simulated tools throw (a result quoting one reports a tool failure). */
  readonly toolErrors = [...SIM_TOOLS.map((t) => `${t} failed`), MCP_DOWN, TRANSIENT_TOOL_ERROR];
  mcpDown = false;
  /** The tab's version: a hand back moves it on (the user acted), so the fresh look differs. */
  pageVersion = 0;
  boundaries = 0;
  /** Tools that ran without the permission they needed (see `Session.checkPermission`). */
  readonly permissionProblems: string[] = [];
  /** What was stored for a run when its turn.complete arrived (see `Session.onEvent`). */
  readonly completions: { event: number; runId: string; state: string; nodes: number }[] = [];
  /** Bumped by anything the engine does; the settle loop runs until it stops changing. */
  activity = 0;

  constructor(readonly history: History) {}

  clock = { now: () => (this.now += 1) };
  ids = { next: (p: string) => `${p}_${++this.idCounter}` };
}

export class Session {
  readonly engine: Engine;
  readonly store: StoreApi;
  readonly registry = new ToolRegistry();
  readonly transport: DirectTransport;
  dead = false;
  killCountdown: number | null = null;
  /** Where the armed kill lands (plan.ts `KillTarget`); undefined = every boundary but `:inside` in memory mode. */
  killTarget: KillTarget | undefined;
  private submissionCounter = 0;

  constructor(
    readonly index: number,
    readonly ledger: Ledger,
    private readonly sim: SimStore,
  ) {
    this.store = sim.open();
    const faults: FaultInjector = {
      at: (name) => {
        if (this.dead) return new Promise<void>(() => undefined);
        const inside = name.endsWith(':inside');
        // Histories pinned before kills could land inside a memory transaction (no target) keep
        // their boundary numbering: for them that point is not a boundary in memory mode.
        if (inside && sim.mode !== 'dexie' && this.killTarget === undefined) return;
        ledger.boundaries += 1;
        ledger.activity += 1;
        const counts =
          this.killTarget === 'inside'
            ? inside
            : this.killTarget !== 'write_before' && this.killTarget !== 'write_after';
        if (this.killCountdown !== null && counts && --this.killCountdown <= 0) {
          if (inside) ledger.stats.insideKills += 1;
          // The transactions of Take over and hand back (ops-hand-over.ts, turn/hand-over.ts).
          if (/tx:(take_over|take_over_request|hand_back)\b/.test(name))
            ledger.stats.handOverKills += 1;
          this.kill(name);
          return new Promise<void>(() => undefined);
        }
      },
    };
    const provider = new ScriptedProvider(
      Array.from({ length: 400 }, () => (req: RecordedRequest) => this.modelReply(req)),
    );
    const resolver: ProviderResolver = {
      resolve: async (id) => (id === 'p1' ? provider : null),
      modelInfo: async (_id, m) => ({
        id: m,
        toolUse: true,
        vision: false,
        contextWindow: 200_000,
        maxOutputTokens: 4096,
      }),
      transportIdentity: async (id) => (id === 'p1' ? { kind: 'scripted' } : null),
    };
    this.engine = new Engine({
      store: this.store,
      registry: this.registry,
      providers: resolver,
      clock: ledger.clock,
      ids: ledger.ids,
      faults,
      // One tab, whose URL and title move on when the user hands the page back.
      browser: {
        activeTabId: async () => 1,
        tabLook: async (id) =>
          id === 1
            ? { url: `${ORIGIN}/p${ledger.pageVersion}`, title: `Shop ${ledger.pageVersion}` }
            : undefined,
      },
      log: { warn: () => undefined, error: () => undefined },
      options: { generateTitles: false, sleep: (ms, signal) => this.backoff(ms, signal) },
    });
    registerBuiltins(this.engine);
    for (const t of this.tools()) {
      if (t.level === 'mcp' && ledger.mcpDown) continue;
      this.registry.register(t);
    }
    this.transport = new DirectTransport(this.engine);
    this.transport.onEvent((ev) => this.onEvent(ev));
  }

  killedAt: string | null = null;

  kill(at: string): void {
    this.dead = true;
    this.killedAt = at;
    this.engine.kill();
    this.sim.kill(this.store);
  }

  /** Seed the settings of a brand-new store (before the first engine starts). */
  static async seed(sim: SimStore): Promise<void> {
    const store = sim.open();
    await store.settings.put({
      ...defaultSettings(),
      providers: [{ id: 'p1', kind: 'openai' }],
      defaultModel: { providerId: 'p1', model: 'sim-model' },
    });
    store.close();
  }

  /** Start the engine (recovery) and connect the UI; ops wait for recovery inside the engine. */
  start(): void {
    // Not awaited: an engine killed during recovery never becomes ready.
    void this.engine.start();
    this.send({ type: 'initialize', subscribe: ['*'] });
  }

  /** Send an op (a fresh submission unless `submissionId` repeats an earlier one). */
  send(
    op: Record<string, unknown>,
    submissionId = `s${this.index}_${++this.submissionCounter}`,
  ): SentOp {
    const repeat = this.ledger.ops.some((o) => o.submissionId === submissionId);
    const sent: SentOp = {
      session: this.index,
      op,
      submissionId,
      at: this.ledger.events.length,
      repeat,
      answers: [],
    };
    this.ledger.ops.push(sent);
    this.transport.send({ clientId: 'ui-sim', submissionId, ...op });
    return sent;
  }

  private onEvent(ev: AgentEvent): void {
    const parsed = AgentEvent.safeParse(ev);
    if (!parsed.success) throw new Error(`invalid event ${JSON.stringify(ev).slice(0, 200)}`);
    this.ledger.activity += 1;
    if (ev.type === 'turn.complete') {
      // Read the data as it is at this instant (synchronously, no transaction can interleave).
      // In dexie mode: what IndexedDB has committed at this instant (committed-mirror.ts), so a
      // turn.complete sent before its run's last commit is seen as such. (In memory mode the
      // data holds a running transaction's writes in place: there such an event would pass.)
      const data = this.sim.committed(this.store);
      const run = data.table('runs').get(ev.runId) as { state?: string } | undefined;
      let nodes = 0;
      for (const n of data.table('nodes').values())
        if (n.runId === ev.runId && n.threadId === ev.threadId) nodes += 1;
      this.ledger.completions.push({
        event: this.ledger.events.length,
        runId: ev.runId,
        state: run?.state ?? 'missing',
        nodes,
      });
    }
    this.ledger.events.push({ session: this.index, ev });
    if (ev.type === 'command.ack' || ev.type === 'command.reject') {
      // Answers come in send order: the oldest unanswered op with this submission id gets it.
      const ops = this.ledger.ops.filter(
        (s) => s.session === this.index && s.submissionId === ev.submissionId,
      );
      (ops.find((s) => s.answers.length === 0) ?? ops[ops.length - 1])?.answers.push(ev);
    }
  }

  /** The engine is gone: whatever it waits on is dropped, its store handle closed. */
  dispose(): void {
    this.dead = true;
    this.engine.kill();
    this.store.close();
    for (const g of this.ledger.gates.filter((x) => x.session === this.index)) {
      this.ledger.gates.splice(this.ledger.gates.indexOf(g), 1);
      g.reject(new Error('the worker stopped'));
    }
  }

  private gate(label: string, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const g: Gate = { session: this.index, label, resolve, reject };
      this.ledger.gates.push(g);
      signal?.addEventListener('abort', () => {
        const i = this.ledger.gates.indexOf(g);
        if (i >= 0) this.ledger.gates.splice(i, 1);
        reject(new Error('aborted'));
      });
    });
  }

  private async modelReply(req: RecordedRequest): Promise<ScriptedReply> {
    const { history } = this.ledger;
    const i = this.ledger.replyCursor++;
    this.ledger.requests.push(req);
    // The world at the instant of the request, read from what is committed (loop-rules.ts).
    this.ledger.requestLog.push(
      requestFacts({
        data: this.sim.committed(this.store),
        ledger: this.ledger,
        request: req,
        reply: i,
        session: this.index,
      }),
    );
    this.ledger.activity += 1;
    if (history.gatedReplies[i]) await this.gate(`model#${i}`);
    const reply = history.replies[i] ?? { kind: 'text', tokens: 20 };
    if (reply.kind === 'error' && (reply.status === 400 || reply.status === 401))
      this.ledger.stats.nonRetryable += 1;
    return this.scripted(reply, i);
  }

  /** The engine's wait before retrying a transient tool failure: a gate; the clock moves on by `ms`. */
  private async backoff(ms: number, signal: AbortSignal): Promise<void> {
    this.ledger.stats.toolRetries += 1;
    await this.gate(`backoff:${ms}`, signal);
    this.ledger.now += ms;
  }

  private scripted(r: Reply, i: number): ScriptedReply {
    const usage = { inputTokens: 100, outputTokens: 'tokens' in r ? r.tokens : 10 };
    switch (r.kind) {
      case 'text':
        return { text: `Answer ${i}.`, usage };
      case 'tools': {
        const calls: ScriptedToolCall[] = r.calls.map((c, k) => {
          const id =
            c.id === 'empty'
              ? ''
              : c.id === 'dup'
                ? this.ledger.lastModelCallId
                : `call_m${i}_${k}`;
          this.ledger.lastModelCallId = id || this.ledger.lastModelCallId;
          const known = this.ledger.calls.get(id);
          if (known) known.ambiguous = true;
          else if (id) this.ledger.calls.set(id, { args: c.args, ambiguous: false });
          const args =
            c.tool === 'ask_user'
              ? { question: c.args === 'invalid' ? '' : 'Which size?' }
              : c.tool === 'request_takeover'
                ? { reason: c.args === 'invalid' ? '' : 'Sign in' }
                : c.tool === 'mcp__docs__search'
                  ? { query: c.args === 'invalid' ? 7 : 'q' }
                  : { value: c.args === 'invalid' ? 7 : `v${i}` };
          return c.args === 'malformed'
            ? { id, name: c.tool, rawArgs: '{"value": "tru' }
            : { id, name: c.tool, args };
        });
        return {
          ...(r.text ? { text: `Working ${i}.` } : {}),
          toolCalls: calls,
          stop: r.stop,
          usage,
        };
      }
      case 'error': {
        const code = (
          {
            429: 'rate_limit',
            500: 'server',
            529: 'overloaded',
            400: 'bad_request',
            401: 'auth',
          } as const
        )[r.status];
        return {
          text: 'Partial answer here',
          error: { code, status: r.status, retryable: r.status !== 400 && r.status !== 401 },
          failAfter: r.afterFirstToken ? 1 : 0,
        };
      }
      case 'cut':
        return {
          text: 'Cut short here',
          error: { code: 'stream', message: 'connection reset', retryable: true },
          failAfter: r.afterFirstToken ? 1 : 0,
        };
    }
  }

  /** Release the `pick`-th waiting gate (modulo); false if nothing waits. */
  static release(ledger: Ledger, pick: number): boolean {
    if (!ledger.gates.length) return false;
    const [g] = ledger.gates.splice(pick % ledger.gates.length, 1);
    g.resolve();
    return true;
  }

  private tools(): AgentTool[] {
    const ledger = this.ledger;
    const session = this;
    const make = (
      name: SimToolName,
      extra: Partial<AgentTool<{ value?: string; query?: string }>>,
    ): AgentTool<{ value?: string; query?: string }> => ({
      name,
      label: name,
      description: `Simulated ${name}`,
      parameters: z.object({ value: z.string().optional(), query: z.string().optional() }).strict(),
      level: 'L1',
      effects: 'read',
      async resolveTarget() {
        return { origin: ORIGIN, url: `${ORIGIN}/page`, tabId: 7, title: 'Shop' };
      },
      async execute(callId, params, signal, _onUpdate, ctx) {
        // An armed kill aimed at a write tool lands here: before its effect, or just after it.
        const target = session.killTarget;
        const aimed =
          (name === 'fill_form' || name === 'reload_tab') &&
          (target === 'write_before' || target === 'write_after') &&
          session.killCountdown !== null &&
          --session.killCountdown <= 0;
        if (aimed && target === 'write_before') return session.killInTool(name);
        // Transient failures come first, each one an attempt of this dispatch (tool-retry.ts); the
        // dispatch then does what its outcome says.
        const left = `${session.index}:${callId}`;
        const flaky = ledger.transientLeft.get(left);
        const all = ledger.history.tools;
        const outcome: ToolOutcome =
          flaky?.outcome ??
          (all.length ? all[ledger.toolCursor++ % all.length] : { fail: false, gated: false });
        const key = `${name}:${callId}`;
        ledger.executions.set(key, (ledger.executions.get(key) ?? 0) + 1);
        ledger.executionLog.push({ tool: name, callId, runId: ctx.runId });
        ledger.activity += 1;
        session.checkPermission(name, callId, flaky !== undefined);
        if (aimed) return session.killInTool(name);
        if (name === 'mcp__docs__search' && ledger.mcpDown) throw new Error(MCP_DOWN);
        const pending = flaky ? flaky.left : (outcome.transient ?? 0);
        if (pending > 0) {
          ledger.transientLeft.set(left, { left: pending - 1, outcome });
          throw new Error(TRANSIENT_TOOL_ERROR);
        }
        ledger.transientLeft.delete(left);
        if (outcome.gated) await session.gate(`${name}:${callId}`, signal);
        if (name === 'mcp__docs__search' && ledger.mcpDown) throw new Error(MCP_DOWN);
        if (outcome.fail) throw new Error(`${name} failed`);
        return {
          content: [{ type: 'text', text: `${name} ok ${params.value ?? params.query ?? ''}` }],
        };
      },
      ...extra,
    });
    return [
      make('read_page', { level: 'L0', effects: 'read' }),
      make('fill_form', { level: 'L1', effects: 'write', recovery: 'never-retry' }),
      // Offered on demand (offered-tools.ts): the scripted model calls it without loading it,
      // and the invariants check every request offers it exactly when its context wants it.
      make('reload_tab', {
        level: 'L1',
        effects: 'write',
        recovery: 'retry-safe',
        onDemand: { brief: 'reload the tab' },
      }),
      make('mcp__docs__search', {
        level: 'mcp',
        effects: 'read',
        binding: {
          kind: 'mcp',
          serverId: 'docs',
          endpoint: 'http://127.0.0.1:1/mcp',
          authIdentity: 'none',
        },
        async resolveTarget() {
          return { serverId: 'docs' };
        },
      }),
    ];
  }

  /**
   * Keel's second promise, checked at the moment a tool runs (a synchronous read of the stored
   * rules and approvals): nothing runs on a blocked site, and a write (or an MCP call) on a site
   * (server) without an allow rule runs only under the user's allow for that very call. Every
   * attempt is a moment of effect: `retry` marks an attempt after a transient failure.
   */
  checkPermission(name: SimToolName, callId: string, retry: boolean): void {
    const data = this.sim.committed(this.store);
    const key = name === 'mcp__docs__search' ? 'mcp:docs' : ORIGIN;
    const rule = (data.table('siteRules').get(key) as { rule?: string } | undefined)?.rule ?? 'ask';
    const when = retry ? ' (a retry after a transient failure)' : '';
    if (rule === 'block')
      this.ledger.permissionProblems.push(
        `${name} (${callId}) ran on ${key}, which is blocked${when}`,
      );
    const needsApproval =
      name === 'fill_form' || name === 'reload_tab' || name === 'mcp__docs__search';
    if (!needsApproval || rule === 'allow') return;
    const approved = [...data.table('approvals').values()].some(
      (a) =>
        a.toolCallId === callId &&
        a.status === 'resolved' &&
        (a.decision === 'allow_once' || a.decision === 'allow_site'),
    );
    if (!approved)
      this.ledger.permissionProblems.push(
        `${name} (${callId}) ran on ${key} (rule ${rule}) without the user's approval${when}`,
      );
  }

  /** A kill while a write tool runs: the worker stops inside the tool; the call never returns. */
  killInTool(name: SimToolName): Promise<never> {
    this.ledger.stats.writeToolKills += 1;
    this.kill(`tool:${name}`);
    return new Promise<never>(() => undefined);
  }

  /** The MCP server goes away (its tools leave the registry) or comes back. */
  setMcp(up: boolean): void {
    this.ledger.mcpDown = !up;
    if (up) {
      const t = this.tools().find((x) => x.level === 'mcp')!;
      this.registry.register(t, { replace: true });
    } else {
      this.registry.unregisterPrefix(MCP_PREFIX);
      for (const g of this.ledger.gates.filter((x) => x.label.startsWith(MCP_PREFIX))) {
        this.ledger.gates.splice(this.ledger.gates.indexOf(g), 1);
        g.reject(new Error(MCP_DOWN));
      }
    }
  }
}
