/**
 * The worker's end of Keel as an MCP server (docs/mcp-server.md): it connects to the local
 * bridges (bridge/keel-mcp.ts) on 127.0.0.1, runs the pairing handshake, and serves their
 * requests as a client of the engine, through the same protocol the panel speaks
 * (`bridge.pairingRequest`, `tool.callExternal`; docs/protocol.md §MCP bridge). It decides
 * nothing about permissions: every call is an engine run, judged by the Gatekeeper.
 *
 * chrome.* stays out: the WebSocket, the engine transport, the secret lookup and the timers are
 * injected (src/background/bridge-wiring.ts wires them), so tests drive it against a real bridge.
 *
 * Contract: never throws out of its callbacks; a socket it cannot trust is closed, and nothing is
 * served before both proofs are checked.
 */
import type { AgentEvent, BridgePairing, EngineTransport, Item, PublicSettings } from '../protocol';
import {
  BRIDGE_PING_MS,
  BRIDGE_PORT_SPAN,
  BRIDGE_WIRE_VERSION,
  type BridgeFrame,
  type BridgeTool,
  type ExtensionFrame,
  BridgeFrame as BridgeFrameSchema,
  proofOf,
  randomHex,
  sameProof,
} from '../protocol/bridge-wire';
import { type CallOutcome, outcomeOfEnd, outcomeOfResult, outcomeOfSnapshot } from './call-outcome';

/** The part of a WebSocket the link uses (the browser's, or `ws` in tests). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: (() => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
  onerror: (() => void) | null;
}

export interface BridgeLinkDeps {
  /** A connection to the engine (a DirectTransport in the worker). */
  transport: EngineTransport;
  openSocket(url: string): SocketLike;
  /** The pairing's secret hash from the credentials store, or null. */
  secretOf(pairingId: string): Promise<string | null>;
  /** Keel's tools as the bridge lists them (src/tools/bridge-tools.ts). */
  listTools(): BridgeTool[];
  /** Reconnect backoff (ms): first and largest delay. */
  backoff?: { baseMs: number; maxMs: number };
  pingMs?: number;
  log?: (line: string) => void;
}

type Settings = NonNullable<PublicSettings['mcpBridge']>;
type ToolResult = Extract<Item, { kind: 'tool_result' }>;

/** One socket's handshake, from hello to ready. */
interface Session {
  ws: SocketLike;
  hello?: Extract<BridgeFrame, { t: 'hello' }>;
  nonce?: string;
  secret?: string;
  stage: 'hello' | 'pairing' | 'challenged' | 'ready' | 'closed';
}

const OPEN = 1;

export class BridgeLink {
  private settings: Settings | null = null;
  private readonly loops = new Map<number, { stop: () => void }>();
  private readonly sessions = new Set<Session>();
  private readonly waiters = new Set<(e: AgentEvent) => void>();
  private readonly clientId = `bridge-link-${randomHex(4)}`;
  private seq = 0;
  private readonly log: (line: string) => void;

  constructor(private readonly deps: BridgeLinkDeps) {
    this.log = deps.log ?? (() => undefined);
    deps.transport.onEvent((e) => this.onEvent(e));
  }

  /** Subscribe to the engine; connecting follows the settings (`mcpBridge.enabled`). */
  start(): void {
    this.send({ type: 'initialize', subscribe: ['*'] });
  }

  stop(): void {
    for (const l of this.loops.values()) l.stop();
    this.loops.clear();
  }

  private send(op: Record<string, unknown>, submissionId = `bl${++this.seq}-${randomHex(3)}`) {
    this.deps.transport.send({ clientId: this.clientId, submissionId, ...op });
    return submissionId;
  }

  /** Send an op and wait for its ack or reject. */
  private request(
    op: Record<string, unknown>,
    o: { clientId?: string; submissionId?: string } = {},
  ): Promise<Extract<AgentEvent, { type: 'command.ack' | 'command.reject' }>> {
    const submissionId = o.submissionId ?? `bl${++this.seq}-${randomHex(3)}`;
    const p = this.next(
      (e): e is Extract<AgentEvent, { type: 'command.ack' | 'command.reject' }> =>
        (e.type === 'command.ack' || e.type === 'command.reject') &&
        e.submissionId === submissionId,
    );
    this.deps.transport.send({ clientId: o.clientId ?? this.clientId, submissionId, ...op });
    return p;
  }

  private next<E extends AgentEvent>(pred: (e: AgentEvent) => e is E): Promise<E> {
    return new Promise((resolve) => {
      const w = (e: AgentEvent) => {
        if (!pred(e)) return;
        this.waiters.delete(w);
        resolve(e);
      };
      this.waiters.add(w);
    });
  }

  private onEvent(e: AgentEvent): void {
    if (e.type === 'initialized' || e.type === 'settings.updated') {
      this.applySettings(e.settings.mcpBridge ?? null);
    }
    for (const w of [...this.waiters]) w(e);
  }

  private applySettings(s: Settings | null): void {
    const prev = this.settings;
    this.settings = s;
    const wanted = new Set(
      s?.enabled ? Array.from({ length: BRIDGE_PORT_SPAN }, (_, i) => s.port + i) : [],
    );
    for (const [port, l] of this.loops)
      if (!wanted.has(port)) {
        l.stop();
        this.loops.delete(port);
      }
    for (const port of wanted) if (!this.loops.has(port)) this.loops.set(port, this.loop(port));
    // A pairing answered or revoked moves the sockets that wait on it.
    if (prev && s)
      for (const session of [...this.sessions]) void this.onPairingChange(session, s.pairings);
  }

  /** Keep one socket to `port` open, reconnecting with backoff while the bridge is absent. */
  private loop(port: number): { stop: () => void } {
    const { baseMs, maxMs } = this.deps.backoff ?? { baseMs: 1_000, maxMs: 10_000 };
    let delay = baseMs;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current: Session | undefined;
    const connect = () => {
      if (stopped) return;
      let ws: SocketLike;
      try {
        ws = this.deps.openSocket(`ws://127.0.0.1:${port}`);
      } catch {
        timer = setTimeout(connect, delay);
        return;
      }
      const session: Session = { ws, stage: 'hello' };
      current = session;
      let ping: ReturnType<typeof setInterval> | undefined;
      ws.onopen = () => {
        delay = baseMs;
        this.sessions.add(session);
        // Chrome keeps the worker alive while its WebSocket exchanges messages (Chrome 116+).
        ping = setInterval(
          () => this.frame(session, { t: 'ping' }),
          this.deps.pingMs ?? BRIDGE_PING_MS,
        );
      };
      ws.onmessage = (ev) => void this.onFrame(session, String(ev.data));
      ws.onerror = () => undefined;
      ws.onclose = () => {
        clearInterval(ping);
        session.stage = 'closed';
        this.sessions.delete(session);
        if (stopped) return;
        timer = setTimeout(connect, delay);
        delay = Math.min(delay * 2, maxMs);
      };
    };
    connect();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
        current?.ws.close(1000, 'disabled');
      },
    };
  }

  private frame(s: Session, f: ExtensionFrame): void {
    if (s.ws.readyState === OPEN) s.ws.send(JSON.stringify(f));
  }

  private refuse(
    s: Session,
    code: Extract<ExtensionFrame, { t: 'refused' }>['code'],
    message: string,
  ) {
    this.frame(s, { t: 'refused', code, message });
    s.stage = 'closed';
  }

  private async onFrame(s: Session, text: string): Promise<void> {
    let f: BridgeFrame;
    try {
      f = BridgeFrameSchema.parse(JSON.parse(text));
    } catch {
      s.ws.close(1008, 'invalid frame');
      return;
    }
    try {
      await this.handle(s, f);
    } catch (e) {
      this.log(`bridge frame ${f.t} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async handle(s: Session, f: BridgeFrame): Promise<void> {
    switch (f.t) {
      case 'hello': {
        if (s.stage !== 'hello') return;
        if (f.v !== BRIDGE_WIRE_VERSION)
          return this.refuse(
            s,
            'version',
            `This bridge speaks version ${f.v}; Keel speaks ${BRIDGE_WIRE_VERSION}.`,
          );
        s.hello = f;
        return this.onPairingChange(s, this.settings?.pairings ?? []);
      }
      case 'pair': {
        if (s.stage !== 'pairing' || !s.hello || f.pairingId !== s.hello.pairingId) return;
        const r = await this.request({
          type: 'bridge.pairingRequest',
          pairingId: f.pairingId,
          clientName: s.hello.client.name,
          secretHash: f.secretHash,
        });
        if (r.type === 'command.reject') return this.refuse(s, 'denied', r.message);
        // The settings event that follows moves this socket on (pending → the panel asks).
        return;
      }
      case 'auth': {
        if (s.stage !== 'challenged' || !s.secret || !s.hello || !s.nonce) return;
        const expected = await proofOf(s.secret, 'bridge', s.hello.nonce, s.nonce);
        if (!sameProof(expected, f.proof)) {
          this.log('A bridge failed the pairing proof; closed.');
          s.ws.close(1008, 'bad proof');
          return;
        }
        s.stage = 'ready';
        this.frame(s, { t: 'ready' });
        return;
      }
      case 'pong':
        return;
      case 'list':
        if (s.stage !== 'ready') return;
        this.frame(s, { t: 'tools', id: f.id, tools: this.deps.listTools() });
        return;
      case 'call': {
        if (s.stage !== 'ready' || !s.hello) return;
        const out = await this.call(s, f);
        this.frame(s, { t: 'result', id: f.id, ...out });
        return;
      }
    }
  }

  /** The handshake's next step for a socket, from its pairing's status. */
  private async onPairingChange(s: Session, pairings: BridgePairing[]): Promise<void> {
    if (!s.hello || s.stage === 'closed') return;
    const p = pairings.find((x) => x.pairingId === s.hello?.pairingId);
    if (!p) {
      if (s.stage === 'hello') {
        s.stage = 'pairing';
        this.frame(s, { t: 'pair_needed' });
      }
      return;
    }
    switch (p.status) {
      case 'pending':
        if (s.stage === 'hello' || s.stage === 'pairing') {
          s.stage = 'pairing';
          this.frame(s, { t: 'pair_pending' });
        }
        return;
      case 'denied':
        return this.refuse(s, 'denied', `The user denied "${p.clientName}" in Keel's panel.`);
      case 'revoked':
        return this.refuse(
          s,
          'revoked',
          `The pairing of "${p.clientName}" was revoked in Keel's settings. Start the bridge with --new-pairing to ask again.`,
        );
      case 'allowed': {
        if (s.stage !== 'hello' && s.stage !== 'pairing') return;
        const secret = await this.deps.secretOf(p.pairingId);
        if (!secret) return this.refuse(s, 'revoked', 'Keel has no secret for this pairing.');
        s.secret = secret;
        s.nonce = randomHex();
        s.stage = 'challenged';
        this.frame(s, {
          t: 'challenge',
          nonce: s.nonce,
          proof: await proofOf(secret, 'extension', s.nonce, s.hello.nonce),
        });
        return;
      }
    }
  }

  /**
   * One call as an engine run. The bridge's `callId` is the op's submissionId, so a call sent
   * again after a worker restart gets the first call's ack (the same run) and then its recorded
   * result, or waits for it.
   */
  private async call(
    s: Session,
    f: Extract<BridgeFrame, { t: 'call' }>,
  ): Promise<CallOutcome & { threadId?: string }> {
    const pairingId = s.hello!.pairingId;
    const r = await this.request(
      {
        type: 'tool.callExternal',
        pairingId,
        ...(f.threadId ? { threadId: f.threadId } : {}),
        name: f.name,
        args: f.args,
      },
      { clientId: `bridge:${pairingId}`, submissionId: f.callId },
    );
    if (r.type === 'command.reject')
      return {
        content: [{ type: 'text', text: `Keel refused the call (${r.code}): ${r.message}` }],
        isError: true,
      };
    const { threadId, runId, toolCallId } = r.result as {
      threadId: string;
      runId: string;
      toolCallId: string;
    };
    const progress = (message: string) => this.frame(s, { t: 'progress', id: f.id, message });
    const out = await this.outcome({ threadId, runId, toolCallId, progress });
    return { ...out, threadId };
  }

  private async outcome(c: {
    threadId: string;
    runId: string;
    toolCallId: string;
    progress: (m: string) => void;
  }): Promise<CallOutcome> {
    const isResult = (i: Item): i is ToolResult =>
      i.kind === 'tool_result' && i.toolCallId === c.toolCallId;
    let settle!: (o: CallOutcome) => void;
    const done = new Promise<CallOutcome>((r) => (settle = r));
    const w = (e: AgentEvent) => {
      if (e.type === 'item.complete' && e.threadId === c.threadId && isResult(e.item))
        settle(outcomeOfResult(e.item));
      else if (e.type === 'approval.request' && e.runId === c.runId)
        c.progress(
          `Waiting for the user's approval in Keel's side panel (${e.tool.label}${e.target.origin ? ` on ${e.target.origin}` : ''}).`,
        );
      else if (e.type === 'interaction.request' && e.runId === c.runId)
        c.progress('Waiting for the user in Keel’s side panel.');
      else if (e.type === 'turn.complete' && e.runId === c.runId)
        // The result, if any, was committed before the turn completed: look it up.
        void this.recorded(c.threadId, isResult).then((item) =>
          settle(item ? outcomeOfResult(item) : outcomeOfEnd(e.stopReason, e.error)),
        );
    };
    this.waiters.add(w);
    // Already recorded, or already stopped (a call re-sent after a worker restart)?
    void this.lookUp(c.threadId, c.runId, isResult).then((o) => o && settle(o));
    try {
      return await done;
    } finally {
      this.waiters.delete(w);
    }
  }

  /** What the committed thread already says about the call, or undefined while it goes on. */
  private async lookUp(
    threadId: string,
    runId: string,
    isResult: (i: Item) => i is ToolResult,
  ): Promise<CallOutcome | undefined> {
    const snap = await this.snapshot(threadId);
    if (!snap) return undefined;
    return outcomeOfSnapshot(
      snap.path.find(isResult),
      snap.run?.runId === runId ? snap.run.state : undefined,
    );
  }

  private async snapshot(threadId: string) {
    const snap = this.next(
      (e): e is Extract<AgentEvent, { type: 'thread.snapshot' }> =>
        e.type === 'thread.snapshot' && e.snapshot.thread.threadId === threadId,
    );
    const r = await this.request({ type: 'thread.subscribe', threadId });
    if (r.type === 'command.reject') return undefined;
    return (await snap).snapshot;
  }

  /** The call's result in the thread's committed path, if there is one. */
  private async recorded(
    threadId: string,
    isResult: (i: Item) => i is ToolResult,
  ): Promise<ToolResult | undefined> {
    return (await this.snapshot(threadId))?.path.find(isResult);
  }
}
