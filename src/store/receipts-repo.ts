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

  async put(fields: {
    key: string;
    type: string;
    fingerprint: string;
    outcome: ReceiptOutcome;
    now: number;
  }): Promise<void> {
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

  count(): Promise<number> {
    return this.db.receipts.count();
  }

  /** Keep only the `keep` newest receipts (by creation time); returns how many were deleted. */
  async pruneToNewest(keep: number): Promise<number> {
    const excess = (await this.db.receipts.count()) - keep;
    if (excess <= 0) return 0;
    const oldest = await this.db.receipts.orderBy('createdAt').limit(excess).primaryKeys();
    await this.db.receipts.bulkDelete(oldest);
    return oldest.length;
  }
}
