import type { MemoryAccess } from './tables';
import type { RunEnvRecord, RunRecord } from '../records';
import { CURRENT_RUN_STATES } from '../../protocol';

/**
 * Runs in memory: the Dexie repository's contract (runs-repo.ts), with the same layout at rest —
 * each run's environment snapshot in `runEnvs`, written only when it changes, joined back into
 * every run returned.
 */
export class MemoryRuns {
  constructor(private readonly a: MemoryAccess) {}

  get(runId: string): Promise<RunRecord | undefined> {
    return this.a.run(() => {
      const r = this.a.get<RunRecord>('runs', runId);
      return r && this.withEnv(r);
    });
  }

  add(run: RunRecord): Promise<void> {
    return this.a.run(() => this.write(run, true, 'add'));
  }

  update(runId: string, mutate: (r: RunRecord) => void, now?: number): Promise<RunRecord> {
    return this.a.run(() => {
      const r0 = this.a.get<RunRecord>('runs', runId);
      if (!r0) throw new Error(`run ${runId} not found`);
      const r = this.withEnv(r0);
      const env = r.env;
      mutate(r);
      r.revision += 1;
      if (now !== undefined) r.updatedAt = now;
      this.write(r, r.env !== env, 'put');
      return r;
    });
  }

  byThread(threadId: string): Promise<RunRecord[]> {
    return this.a.run(() =>
      this.a.select<RunRecord>('runs', (r) => r.threadId === threadId).map((r) => this.withEnv(r)),
    );
  }

  async current(threadId: string): Promise<RunRecord | undefined> {
    const runs = await this.byThread(threadId);
    return runs
      .filter((r) => CURRENT_RUN_STATES.includes(r.state))
      .sort((x, y) => y.createdAt - x.createdAt)[0];
  }

  async queued(threadId: string): Promise<RunRecord[]> {
    const runs = await this.byThread(threadId);
    return runs
      .filter((r) => r.state === 'queued')
      .sort((x, y) => (x.queueSeq ?? 0) - (y.queueSeq ?? 0));
  }

  unfinished(): Promise<RunRecord[]> {
    return this.a.run(() =>
      this.a
        .select<RunRecord>('runs', (r) => r.state !== 'completed' && r.state !== 'failed')
        .map((r) => this.withEnv(r)),
    );
  }

  async latest(threadId: string): Promise<RunRecord | undefined> {
    const runs = await this.byThread(threadId);
    return runs.filter((r) => r.state !== 'queued').sort((x, y) => y.createdAt - x.createdAt)[0];
  }

  delete(runId: string): Promise<void> {
    return this.a.run(() => {
      this.a.delete('runs', runId);
      this.a.delete('runEnvs', runId);
    });
  }

  deleteByThread(threadId: string): Promise<void> {
    return this.a.run(() => {
      this.a.deleteWhere<RunRecord>('runs', (r) => r.threadId === threadId);
      this.a.deleteWhere<RunEnvRecord>('runEnvs', (r) => r.threadId === threadId);
    });
  }

  /** Synchronous: inside `run`, so the two rows land (or roll back) together. */
  private write(run: RunRecord, envChanged: boolean, how: 'add' | 'put'): void {
    const { env, ...stored } = run;
    if (how === 'add') this.a.add('runs', run.runId, stored);
    else this.a.put('runs', run.runId, stored);
    if (!envChanged) return;
    if (env) {
      const rec: RunEnvRecord = { v: run.v, runId: run.runId, threadId: run.threadId, env };
      this.a.put('runEnvs', run.runId, rec);
    } else this.a.delete('runEnvs', run.runId);
  }

  private withEnv(run: RunRecord): RunRecord {
    if (run.env) return run;
    const env = this.a.get<RunEnvRecord>('runEnvs', run.runId)?.env;
    if (env) run.env = env;
    return run;
  }
}
