import type { KeelDB } from './db';
import type { WorkflowRecord } from './records';

/** Saved workflows: one record per workflow (definition, schedule, last run). */
export class WorkflowsRepo {
  constructor(private readonly db: KeelDB) {}

  /** Every workflow, most recently changed first. */
  async list(): Promise<WorkflowRecord[]> {
    return await this.db.workflows.orderBy('updatedAt').reverse().toArray();
  }

  get(workflowId: string): Promise<WorkflowRecord | undefined> {
    return this.db.workflows.get(workflowId);
  }

  async put(rec: WorkflowRecord): Promise<void> {
    await this.db.workflows.put(rec);
  }

  /** Read-modify-write; undefined when the workflow does not exist. */
  async update(
    workflowId: string,
    fn: (rec: WorkflowRecord) => WorkflowRecord,
  ): Promise<WorkflowRecord | undefined> {
    const cur = await this.db.workflows.get(workflowId);
    if (!cur) return undefined;
    const next = fn(cur);
    await this.db.workflows.put(next);
    return next;
  }

  async remove(workflowId: string): Promise<boolean> {
    const had = (await this.db.workflows.get(workflowId)) !== undefined;
    await this.db.workflows.delete(workflowId);
    return had;
  }
}
