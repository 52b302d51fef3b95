import type { AgentEvent } from './events';
import type { EngineConnection, EngineEndpoint, EngineTransport } from './transport';

/**
 * In-process transport for unit tests: the engine and the UI share a process but never share
 * object references (structuredClone on both directions, like a real Port), and delivery is
 * asynchronous (a microtask) so ordering bugs that a Port would expose are not hidden.
 */
export class DirectTransport implements EngineTransport {
  private readonly eventListeners = new Set<(ev: AgentEvent) => void>();
  private readonly closeListeners = new Set<() => void>();
  private opListener: ((raw: unknown) => void) | null = null;
  private readonly engineCloseListeners: Array<() => void> = [];
  private closed = false;

  constructor(endpoint: EngineEndpoint) {
    const conn: EngineConnection = {
      deliver: (ev) => {
        if (this.closed) return;
        const copy = structuredClone(ev);
        queueMicrotask(() => {
          if (this.closed) return;
          for (const cb of [...this.eventListeners]) cb(copy);
        });
      },
      onOp: (cb) => {
        this.opListener = cb;
      },
      onClose: (cb) => {
        this.engineCloseListeners.push(cb);
      },
    };
    endpoint.connect(conn);
  }

  send(op: unknown): void {
    if (this.closed) return;
    let copy: unknown;
    try {
      copy = structuredClone(op);
    } catch {
      // A real Port would refuse non-serializable input too; the engine sees garbage → reject.
      copy = { invalid: true };
    }
    queueMicrotask(() => {
      if (!this.closed) this.opListener?.(copy);
    });
  }

  onEvent(cb: (ev: AgentEvent) => void): () => void {
    this.eventListeners.add(cb);
    return () => this.eventListeners.delete(cb);
  }

  onClose(cb: () => void): () => void {
    this.closeListeners.add(cb);
    return () => this.closeListeners.delete(cb);
  }

  /** Close from the UI side (or simulate the engine going away): both sides are told. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cb of this.engineCloseListeners) cb();
    for (const cb of [...this.closeListeners]) cb();
  }
}
