import type { AgentEvent } from './events';
import type { Op } from './ops';

/**
 * The only way a UI (or a black-box test) talks to the engine (spec/001 §7).
 *
 * Contract:
 * - `send` never throws; it delivers the op as a plain JSON object. A transport that lost its
 *   connection reports it through `onClose` and drops ops sent afterwards (the UI resubmits with
 *   the same submissionId after reconnecting: receipts make that safe).
 * - `onEvent` listeners receive events in the order the engine emitted them. The returned
 *   function unsubscribes.
 * - Objects are structurally cloned across the boundary: a receiver never shares references
 *   with the sender.
 */
export interface EngineTransport {
  send(op: Op | Record<string, unknown>): void;
  onEvent(cb: (ev: AgentEvent) => void): () => void;
  onClose(cb: () => void): () => void;
  close(): void;
}

/** The engine side of a connection: one per connected UI. */
export interface EngineConnection {
  /** Deliver an event to this client. Must not throw (a closed connection drops it). */
  deliver(ev: AgentEvent): void;
  onOp(cb: (raw: unknown) => void): void;
  onClose(cb: () => void): void;
}

/** What a transport needs from the engine: accept a new connection. */
export interface EngineEndpoint {
  connect(conn: EngineConnection): void;
}

export const ENGINE_PORT_NAME = 'engine';
