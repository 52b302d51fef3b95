import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { AgentEvent } from '../../../src/protocol';
import type { EventOf, EventType, OpInput } from '../../../src/protocol';

/**
 * A black-box client of the engine (PROTOCOL.md) for e2e tests. The Port lives in an extension
 * page (it must: only extension pages may connect to the worker); every message it receives is
 * forwarded to Node through a Playwright binding and appended to `events`, in order.
 */

/** Added to `events` by the harness (not the engine) when the Port disconnects. */
export interface PortDisconnected {
  type: 'port.disconnected';
  /** Which connection closed (1 = the first; `reconnect()` increments it). */
  connection: number;
}

/** What `events` holds: engine events as received (unvalidated), plus the harness's disconnect marker. */
export type ReceivedEvent = AgentEvent | PortDisconnected;

export type CommandAnswer = EventOf<'command.ack'> | EventOf<'command.reject'>;

/** An op as a test writes it; clientId and submissionId are filled in unless given. */
export type TestOp = OpInput & { submissionId?: string; clientId?: string };

export interface EngineClientOptions {
  /** Default: `e2e-<uuid>`. */
  clientId?: string;
  /** Default 10 s: how long `send` and `waitFor` wait unless told otherwise. */
  timeoutMs?: number;
}

interface Waiter {
  predicate: (ev: ReceivedEvent) => boolean;
  from: number;
  resolve: (ev: ReceivedEvent) => void;
  reject: (err: Error) => void;
  /** Reject when the current Port disconnects (for answers that can only come over it). */
  onDisconnect?: () => void;
}

type PageBridge = {
  connect(): number;
  post(msg: unknown): boolean;
  disconnect(): void;
};

declare global {
  var __keelE2E: Record<string, PageBridge> | undefined;
}

export class EngineClient {
  readonly clientId: string;
  /** Everything received, oldest first, across reconnects. */
  readonly events: ReceivedEvent[] = [];
  /** Received messages that fail the protocol's event schema (each is also in `events`). */
  readonly invalidEvents: { event: unknown; issues: string }[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly timeoutMs: number;
  private submissions = 0;
  private currentConnection = 0;
  /** The newest connection known closed; connections only ever close in order. */
  private lastClosed = 0;
  // Bindings are delivered in order by Playwright; the sequence number makes that an invariant
  // the client checks rather than assumes.
  private nextSeq = 1;
  private readonly early = new Map<
    number,
    { connection: number; kind: 'message' | 'disconnect'; payload: unknown }
  >();

  private constructor(
    private readonly page: Page,
    private readonly bridge: string,
    options: EngineClientOptions,
  ) {
    this.clientId = options.clientId ?? `e2e-${randomUUID()}`;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Opens an engine Port from `page` (an extension page, e.g. the one `openPanel()` returns). */
  static async connect(page: Page, options: EngineClientOptions = {}): Promise<EngineClient> {
    const bridge = `__keelE2E_${randomUUID().replace(/-/g, '')}`;
    const client = new EngineClient(page, bridge, options);
    await page.exposeBinding(
      bridge,
      (
        _source,
        seq: number,
        connection: number,
        kind: 'message' | 'disconnect',
        payload: unknown,
      ) => client.receive(seq, connection, kind, payload),
    );
    await page.evaluate(installBridge, bridge);
    await client.reconnect();
    return client;
  }

  /** True while the current Port is open. */
  get connected(): boolean {
    return this.currentConnection > this.lastClosed;
  }

  /** The current connection number (1 after `connect`, +1 per `reconnect`). */
  get connection(): number {
    return this.currentConnection;
  }

  /** The position the next event will take in `events`: pass it to `waitFor` to ignore older ones. */
  mark(): number {
    return this.events.length;
  }

  /**
   * Opens a new Port (e.g. after the worker was stopped; connecting wakes it). The previous Port,
   * if still open, is closed first. Does not send `initialize`: the test does, as a UI would.
   */
  async reconnect(): Promise<void> {
    await this.disconnect();
    this.currentConnection = await this.page.evaluate(
      (b) => globalThis.__keelE2E![b].connect(),
      this.bridge,
    );
  }

  /**
   * Sends an op and resolves with its `command.ack` or `command.reject`, matched by submissionId
   * among events that arrive after the send. Rejects if the Port disconnects first or on timeout.
   */
  async send(op: TestOp, timeoutMs = this.timeoutMs): Promise<CommandAnswer> {
    const stamped = {
      clientId: this.clientId,
      submissionId: `${this.clientId}-${++this.submissions}`,
      ...op,
    };
    const from = this.mark();
    const answer = this.waitUntil(
      (ev): ev is CommandAnswer =>
        (ev.type === 'command.ack' || ev.type === 'command.reject') &&
        ev.submissionId === stamped.submissionId,
      timeoutMs,
      from,
      `answer to ${op.type} (${stamped.submissionId})`,
      true,
    );
    if (!(await this.post(stamped))) {
      answer.catch(() => {});
      throw new Error(`engine client: cannot send ${op.type}: the Port is not connected`);
    }
    return answer;
  }

  /** `send`, then the ack's `result`; throws with the code and message on a reject. */
  async sendOk<R = unknown>(op: TestOp, timeoutMs?: number): Promise<R> {
    const answer = await this.send(op, timeoutMs);
    if (answer.type === 'command.reject') {
      throw new Error(`engine rejected ${op.type}: ${answer.code}: ${answer.message}`);
    }
    return answer.result as R;
  }

  /** Posts anything, unstamped (e.g. an invalid op). Resolves false if the Port is closed. */
  async post(message: unknown): Promise<boolean> {
    if (!this.connected) return false;
    return this.page.evaluate(([b, m]) => globalThis.__keelE2E![b].post(m), [
      this.bridge,
      message,
    ] as const);
  }

  /**
   * Resolves with the first event at position ≥ `from` (default 0: already received ones count)
   * that matches. On timeout the error lists the event types received, to show how far it got.
   */
  waitFor<T extends ReceivedEvent = ReceivedEvent>(
    predicate: ((ev: ReceivedEvent) => ev is T) | ((ev: ReceivedEvent) => boolean),
    timeoutMs = this.timeoutMs,
    from = 0,
  ): Promise<T> {
    return this.waitUntil(
      predicate as (ev: ReceivedEvent) => ev is T,
      timeoutMs,
      from,
      'matching event',
      false,
    );
  }

  /** `waitFor` by event type, with an optional extra condition. */
  waitForEvent<K extends EventType>(
    type: K,
    match: (ev: EventOf<K>) => boolean = () => true,
    timeoutMs = this.timeoutMs,
    from = 0,
  ): Promise<EventOf<K>> {
    return this.waitUntil(
      (ev): ev is EventOf<K> => ev.type === type && match(ev as EventOf<K>),
      timeoutMs,
      from,
      `${type} event`,
      false,
    );
  }

  /** Resolves when the current Port disconnects (e.g. after `stopServiceWorker()`). */
  waitForDisconnect(timeoutMs = this.timeoutMs): Promise<PortDisconnected> {
    const connection = this.currentConnection;
    return this.waitFor(
      (ev): ev is PortDisconnected =>
        ev.type === 'port.disconnected' && ev.connection === connection,
      timeoutMs,
    );
  }

  /** Events of one type received so far (at position ≥ from). */
  eventsOf<K extends EventType>(type: K, from = 0): EventOf<K>[] {
    return this.events.slice(from).filter((ev): ev is EventOf<K> => ev.type === type);
  }

  /**
   * Closes the current Port from this side (no `port.disconnected` marker: that records the
   * engine side going away). A page that is gone counts as closed.
   */
  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.lastClosed = this.currentConnection;
    if (!this.page.isClosed()) {
      await this.page
        .evaluate((b) => globalThis.__keelE2E?.[b]?.disconnect(), this.bridge)
        .catch(() => {});
    }
  }

  private waitUntil<T extends ReceivedEvent>(
    predicate: (ev: ReceivedEvent) => ev is T,
    timeoutMs: number,
    from: number,
    what: string,
    failOnDisconnect: boolean,
  ): Promise<T> {
    const found = this.events.slice(from).find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        from,
        resolve: (ev) => settle(() => resolve(ev as T)),
        reject: (err) => settle(() => reject(err)),
      };
      if (failOnDisconnect) {
        waiter.onDisconnect = () =>
          waiter.reject(new Error(`engine client: the Port disconnected before the ${what}`));
      }
      const timer = setTimeout(() => {
        const types = this.events.slice(from).map((ev) => ev.type);
        waiter.reject(
          new Error(
            `engine client: no ${what} within ${timeoutMs} ms; received since: [${types.join(', ')}]`,
          ),
        );
      }, timeoutMs);
      const settle = (done: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        done();
      };
      this.waiters.add(waiter);
    });
  }

  private receive(
    seq: number,
    connection: number,
    kind: 'message' | 'disconnect',
    payload: unknown,
  ): void {
    this.early.set(seq, { connection, kind, payload });
    for (let next = this.early.get(this.nextSeq); next; next = this.early.get(this.nextSeq)) {
      this.early.delete(this.nextSeq++);
      if (next.kind === 'message') this.record(next.payload);
      else this.disconnected(next.connection);
    }
  }

  private record(raw: unknown): void {
    const parsed = AgentEvent.safeParse(raw);
    if (!parsed.success) this.invalidEvents.push({ event: raw, issues: parsed.error.message });
    // Keep what was received, not what zod made of it: tests see the wire as it was.
    this.push(raw as ReceivedEvent);
  }

  private disconnected(connection: number): void {
    this.lastClosed = Math.max(this.lastClosed, connection);
    if (connection === this.currentConnection) {
      for (const w of [...this.waiters]) w.onDisconnect?.();
    }
    this.push({ type: 'port.disconnected', connection });
  }

  private push(ev: ReceivedEvent): void {
    const index = this.events.push(ev) - 1;
    for (const w of [...this.waiters]) if (index >= w.from && w.predicate(ev)) w.resolve(ev);
  }
}

/** Runs in the page: one Port at a time, every message and the disconnect forwarded in order. */
function installBridge(bridge: string): void {
  const forward = (globalThis as unknown as Record<string, (...args: unknown[]) => Promise<void>>)[
    bridge
  ];
  let port: chrome.runtime.Port | undefined;
  let connection = 0;
  let seq = 0;
  globalThis.__keelE2E ??= {};
  globalThis.__keelE2E[bridge] = {
    connect() {
      const current = ++connection;
      const p = chrome.runtime.connect({ name: 'engine' });
      port = p;
      p.onMessage.addListener((msg) => void forward(++seq, current, 'message', msg));
      p.onDisconnect.addListener(() => {
        if (port === p) port = undefined;
        void forward(++seq, current, 'disconnect', null);
      });
      return current;
    },
    post(msg) {
      if (!port) return false;
      try {
        port.postMessage(msg);
        return true;
      } catch {
        return false;
      }
    },
    disconnect() {
      const p = port;
      port = undefined;
      p?.disconnect();
    },
  };
}
