import type { AgentEvent, EngineTransport } from '../../../../src/protocol';

type SentOp = Record<string, unknown> & { type: string; submissionId: string; clientId: string };

/**
 * One scripted connection. The test plays the engine: it reads what the panel sent and emits
 * protocol events back. Delivery is synchronous; `flush()` in the render helper settles Preact.
 */
export class FakeTransport implements EngineTransport {
  readonly sent: SentOp[] = [];
  closed = false;
  private readonly eventCbs = new Set<(ev: AgentEvent) => void>();
  private readonly closeCbs = new Set<() => void>();

  send(op: unknown): void {
    if (this.closed) return; // like a dead Port: the op is dropped, the client must resend
    this.sent.push(structuredClone(op) as SentOp);
  }

  onEvent(cb: (ev: AgentEvent) => void): () => void {
    this.eventCbs.add(cb);
    return () => this.eventCbs.delete(cb);
  }

  onClose(cb: () => void): () => void {
    this.closeCbs.add(cb);
    return () => this.closeCbs.delete(cb);
  }

  close(): void {
    this.drop();
  }

  /** The engine side went away (service worker stopped). */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cb of [...this.closeCbs]) cb();
  }

  emit(ev: AgentEvent): void {
    for (const cb of [...this.eventCbs]) cb(structuredClone(ev));
  }

  ops(type?: string): SentOp[] {
    return type ? this.sent.filter((o) => o.type === type) : this.sent;
  }

  last(type: string): SentOp {
    const all = this.ops(type);
    if (all.length === 0)
      throw new Error(`no ${type} op sent (sent: ${this.sent.map((o) => o.type).join(', ')})`);
    return all[all.length - 1];
  }

  ack(op: { submissionId: string }, result?: unknown): void {
    this.emit({
      type: 'command.ack',
      submissionId: op.submissionId,
      ...(result !== undefined ? { result } : {}),
    });
  }

  reject(
    op: { submissionId: string },
    code: Extract<AgentEvent, { type: 'command.reject' }>['code'],
    message: string = code,
  ): void {
    this.emit({ type: 'command.reject', submissionId: op.submissionId, code, message });
  }
}

/** Hands out a new FakeTransport per connect, like chrome.runtime.connect hands out Ports. */
export class FakeEngine {
  readonly transports: FakeTransport[] = [];
  readonly connect = (): FakeTransport => {
    const t = new FakeTransport();
    this.transports.push(t);
    return t;
  };

  get current(): FakeTransport {
    const t = this.transports[this.transports.length - 1];
    if (!t) throw new Error('not connected');
    return t;
  }
}

/** Timers the test fires by hand (reconnect backoff). */
export class ManualTimers {
  private seq = 0;
  readonly pending = new Map<number, { cb: () => void; ms: number }>();
  readonly set = (cb: () => void, ms: number): unknown => {
    const id = ++this.seq;
    this.pending.set(id, { cb, ms });
    return id;
  };
  readonly clear = (id: unknown): void => {
    this.pending.delete(id as number);
  };
  runAll(): number[] {
    const due = [...this.pending.entries()];
    this.pending.clear();
    for (const [, t] of due) t.cb();
    return due.map(([, t]) => t.ms);
  }
}
