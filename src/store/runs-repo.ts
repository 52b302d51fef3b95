import type { KeelDB } from './db';
import type { RunRecord } from './records';
import type { RunState } from '../protocol';

/** Run states in which a run is the thread's current run (not queued, not finished). */
export const CURRENT_RUN_STATES: readonly RunState[] = [
  'streaming_model',
  'executing_tool',
  'waiting_approval',
  'waiting_interaction',
  'paused_uncertain',
  'budget_paused',
  'interrupted',
];

/**
 * Runs. Every write is a read-modify-write inside the caller's transaction: steer admission and
 * the turn loop update the same record concurrently, and a blind put from a stale in-memory copy
 * would drop an acknowledged steer.
 */
export class RunsRepo {
  constructor(private readonly db: KeelDB) {}

  get(runId: string): Promise<RunRecord | undefined> {
    return this.db.runs.get(runId);
  }

  async add(run: RunRecord): Promise<void> {
    await this.db.runs.add(run);
  }

  async update(runId: string, mutate: (r: RunRecord) => void, now?: number): Promise<RunRecord> {
    const r = await this.db.runs.get(runId);
    if (!r) throw new Error(`run ${runId} not found`);
    mutate(r);
    r.revision += 1;
    if (now !== undefined) r.updatedAt = now;
    await this.db.runs.put(r);
    return r;
  }

  byThread(threadId: string): Promise<RunRecord[]> {
    return this.db.runs.where('threadId').equals(threadId).toArray();
  }

  /** The thread's current run, if any (at most one by construction). */
  async current(threadId: string): Promise<RunRecord | undefined> {
    const runs = await this.byThread(threadId);
    return runs
      .filter((r) => CURRENT_RUN_STATES.includes(r.state))
      .sort((a, b) => b.createdAt - a.createdAt)[0];
  }

  /** Queued runs in queue order. */
  async queued(threadId: string): Promise<RunRecord[]> {
    const runs = await this.db.runs
      .where('[threadId+state]')
      .equals([threadId, 'queued'])
      .toArray();
    return runs.sort((a, b) => (a.queueSeq ?? 0) - (b.queueSeq ?? 0));
  }

  /** Every run that is neither completed nor failed: what recovery must look at. */
  async unfinished(): Promise<RunRecord[]> {
    return this.db.runs.where('state').noneOf(['completed', 'failed']).toArray();
  }

  /** The most recent run of a thread (for the snapshot's stop reason after it ended). */
  async latest(threadId: string): Promise<RunRecord | undefined> {
    const runs = await this.byThread(threadId);
    return runs.filter((r) => r.state !== 'queued').sort((a, b) => b.createdAt - a.createdAt)[0];
  }

  /** Remove one run (a queued message the user withdrew). Inside the caller's transaction. */
  async delete(runId: string): Promise<void> {
    await this.db.runs.delete(runId);
  }

  async deleteByThread(threadId: string): Promise<void> {
    await this.db.runs.where('threadId').equals(threadId).delete();
  }
}
