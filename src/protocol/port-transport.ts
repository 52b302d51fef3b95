import { AgentEvent } from './events';
import type { EngineConnection, EngineTransport } from './transport';

/**
 * The minimal part of `chrome.runtime.Port` both sides use. Declared here so the transport can be
 * tested with a fake port pair under vitest and used with the real Port in the extension.
 */
export interface PortLike {
  name: string;
  postMessage(msg: unknown): void;
  disconnect(): void;
  onMessage: {
    addListener(cb: (msg: unknown) => void): void;
    removeListener?(cb: (msg: unknown) => void): void;
  };
  onDisconnect: { addListener(cb: () => void): void };
}

/**
 * UI side of the engine Port. Events arriving from the engine are validated: a malformed event is
 * dropped (and reported once to `onInvalidEvent`) rather than crashing the UI.
 */
export class PortTransport implements EngineTransport {
  private readonly eventListeners = new Set<(ev: AgentEvent) => void>();
  private readonly closeListeners = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly port: PortLike,
    private readonly options: {
      validateEvents?: boolean;
      onInvalidEvent?: (raw: unknown) => void;
    } = {},
  ) {
    port.onMessage.addListener((raw) => {
      let ev: AgentEvent;
      if (this.options.validateEvents) {
        const parsed = AgentEvent.safeParse(raw);
        if (!parsed.success) {
          this.options.onInvalidEvent?.(raw);
          return;
        }
        ev = parsed.data;
      } else {
        ev = raw as AgentEvent;
      }
      for (const cb of [...this.eventListeners]) cb(ev);
    });
    port.onDisconnect.addListener(() => this.markClosed());
  }

  send(op: unknown): void {
    if (this.closed) return;
    try {
      this.port.postMessage(op);
    } catch (e) {
      // Posting on a disconnected port throws in Chrome; treat it as a close. A message Chrome
      // cannot serialize ("Could not serialize message.") throws too, but the Port is still open.
      if (!/serializ|clone/i.test(String(e))) this.markClosed();
    }
  }

  onEvent(cb: (ev: AgentEvent) => void): () => void {
    this.eventListeners.add(cb);
    return () => this.eventListeners.delete(cb);
  }

  onClose(cb: () => void): () => void {
    this.closeListeners.add(cb);
    return () => this.closeListeners.delete(cb);
  }

  close(): void {
    if (this.closed) return;
    try {
      this.port.disconnect();
    } catch {
      /* already gone */
    }
    this.markClosed();
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cb of [...this.closeListeners]) cb();
  }
}

/** Engine side: wrap an accepted Port as an EngineConnection. */
export function portConnection(port: PortLike): EngineConnection {
  let open = true;
  const closeCbs: Array<() => void> = [];
  port.onDisconnect.addListener(() => {
    open = false;
    for (const cb of closeCbs) cb();
  });
  return {
    deliver(ev) {
      if (!open) return;
      try {
        port.postMessage(ev);
      } catch {
        open = false;
      }
    },
    onOp(cb) {
      port.onMessage.addListener(cb);
    },
    onClose(cb) {
      closeCbs.push(cb);
    },
  };
}
