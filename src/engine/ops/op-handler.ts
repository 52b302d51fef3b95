import type { OpOf, OpType } from '../../protocol';
import type { Client, EngineHost } from '../turn/engine-host';
import type { Outcome } from './receipts';

/** The shape of an op handler (the handlers live in ops-*.ts; `ops.ts` maps op types to them). */

export interface OpContext {
  /** Whether the receipt was already written (inside the handler's transaction). */
  written: boolean;
  /** Write this op's receipt; call it inside the transaction that makes the decision durable. */
  writeReceipt(outcome: Outcome): Promise<void>;
}

export interface HandlerResult {
  outcome: Outcome;
  /** Runs after the ack/reject was sent: events and scheduling that follow the decision. */
  after?: () => void;
}

export type Handler<T extends OpType> = (
  engine: EngineHost,
  client: Client,
  op: OpOf<T>,
  ctx: OpContext,
) => Promise<HandlerResult>;
export type HandlerMap = { [T in OpType]: Handler<T> };

export const done = (outcome: Outcome, after?: () => void): HandlerResult =>
  after ? { outcome, after } : { outcome };
