import type { KeelDB } from './db';
import type { ApprovalRecord, InteractionRecord } from './records';

export class ApprovalsRepo {
  constructor(private readonly db: KeelDB) {}
  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.db.approvals.get(id);
  }
  async put(rec: ApprovalRecord): Promise<void> {
    await this.db.approvals.put(rec);
  }
  pendingForRun(runId: string): Promise<ApprovalRecord[]> {
    return this.db.approvals
      .where('runId')
      .equals(runId)
      .filter((a) => a.status === 'pending')
      .toArray();
  }
  /** Every approval of a thread, whatever its status (the audit export). */
  byThread(threadId: string): Promise<ApprovalRecord[]> {
    return this.db.approvals.where('threadId').equals(threadId).toArray();
  }
  async deleteByThread(threadId: string): Promise<void> {
    await this.db.approvals.where('threadId').equals(threadId).delete();
  }
}

export class InteractionsRepo {
  constructor(private readonly db: KeelDB) {}
  get(id: string): Promise<InteractionRecord | undefined> {
    return this.db.interactions.get(id);
  }
  async put(rec: InteractionRecord): Promise<void> {
    await this.db.interactions.put(rec);
  }
  pendingForRun(runId: string): Promise<InteractionRecord[]> {
    return this.db.interactions
      .where('runId')
      .equals(runId)
      .filter((a) => a.status === 'pending')
      .toArray();
  }
  async deleteByThread(threadId: string): Promise<void> {
    await this.db.interactions.where('threadId').equals(threadId).delete();
  }
}
