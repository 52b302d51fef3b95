import type { ReceiptOutcome } from '../../store/records';

/** What an op answers (kept in its receipt): an ack with an optional result, or a reject. */
export type Outcome = ReceiptOutcome;

export const ack = (result?: unknown): Outcome =>
  result === undefined ? { kind: 'ack' } : { kind: 'ack', result };
export const reject = (code: string, message: string): Outcome => ({
  kind: 'reject',
  code,
  message,
});
