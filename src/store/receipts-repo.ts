import type { KeelDB } from './db';
import { RECORD_VERSION, type ReceiptOutcome, type ReceiptRecord } from './records';

/** Command receipts (spec/001 §5.1): the durable outcome of each (clientId, submissionId). */
export class ReceiptsRepo {
  constructor(private readonly db: KeelDB) {}

  static key(clientId: string, submissionId: string): string {
    return `${clientId}\u0000${submissionId}`;
  }

  get(key: string): Promise<ReceiptRecord | undefined> {
    return this.db.receipts.get(key);
  }

  async put(fields: { key: string; type: string; fingerprint: string; outcome: ReceiptOutcome; now: number }): Promise<void> {
    await this.db.receipts.put({
      v: RECORD_VERSION,
      key: fields.key,
      type: fields.type,
      fingerprint: fields.fingerprint,
      outcome: fields.outcome,
      createdAt: fields.now,
    });
  }

  /** Receipts older than `before` can go: a client retries within seconds, not weeks. */
  async prune(before: number): Promise<number> {
    return this.db.receipts.where('createdAt').below(before).delete();
  }
}
