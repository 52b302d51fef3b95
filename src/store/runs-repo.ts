import Dexie, { type PromiseExtended } from 'dexie';
import { CommittedMap } from './committed-map';
import { deepFreeze } from './deep-freeze';
import type { KeelDB } from './db';
import type { RunEnvRecord, RunEnvironmentSnapshot, RunRecord } from './records';
import { CURRENT_RUN_STATES } from '../protocol';

/**
 * Runs. Every write is a read-modify-write inside the caller's transaction: steer admission and
 * the turn loop update the same record concurrently, and a blind put from a stale in-memory copy
 * would drop an acknowledged steer.
 *
 * A run's environment snapshot lives in `runEnvs` (see `RunEnvRecord`), written only when it
 * changes (at `add`, or when a queued run starts), and joined back into every run returned. The
 * snapshot is immutable (frozen) once stored, so each repository keeps the committed ones in
 * memory: a step's four run rewrites then neither write nor read it. The cache holds only what a
 * committed transaction wrote or read, and it starts empty with every new store (a restarted
 * worker reads the snapshots again).
 *
 * The run records themselves are kept the same way (committed-map.ts): `get` answers from the
 * committed records where IndexedDB would return the same (tx-tracker.ts), so the step's
 * read-modify-writes read no run record from IndexedDB; `update` copies before it mutates.
 */
export class RunsRepo {
  private readonly envs = new Map<string, RunEnvironmentSnapshot>();
  /** Committed run records as stored (without their snapshot): committed-map.ts. */
  private readonly stored: CommittedMap<RunRecord>;

  constructor(private readonly db: KeelDB) {
    this.stored = new CommittedMap(db.tracker);
  }

  // Reads join snapshots through Dexie promise chains (`then`), not extra native awaits: each
  // native await inside a transaction spends Dexie's zone echoes, and a caller that awaits a
  // few more layers would run its next request outside its transaction (PrematureCommitError).

  /**
   * The run (frozen when it comes from the committed cache: change a run with `update`). The
   * returned object is the caller's own; its fields are shared with the cache.
   */
  get(runId: string): Promise<RunRecord | undefined> {
    const hit = this.stored.lookup(runId);
    const read = hit
      ? Dexie.Promise.resolve(hit.value ? [{ ...hit.value }] : [])
      : this.readStored(runId);
    return this.joined(read).then((rs) => rs[0]);
  }

  private readStored(runId: string): PromiseExtended<RunRecord[]> {
    const token = this.stored.readToken();
    return this.db.runs.get(runId).then((r) => {
      if (!r) return [];
      this.stored.fill(runId, r, token);
      return [{ ...r }];
    });
  }

  async add(run: RunRecord): Promise<void> {
    await this.write(run, true, 'add', true);
  }

  async update(runId: string, mutate: (r: RunRecord) => void, now?: number): Promise<RunRecord> {
    const cur = await this.get(runId);
    if (!cur) throw new Error(`run ${runId} not found`);
    const env = cur.env;
    const { env: _e, ...fields } = cur;
    const r = structuredClone(fields) as RunRecord;
    if (env) r.env = env;
    mutate(r);
    r.revision += 1;
    if (now !== undefined) r.updatedAt = now;
    await this.write(r, r.env !== env, 'put', false);
    return r;
  }

  byThread(threadId: string): Promise<RunRecord[]> {
    return this.joined(this.db.runs.where('threadId').equals(threadId).toArray());
  }

  /** The thread's current run, if any (at most one by construction). */
  async current(threadId: string): Promise<RunRecord | undefined> {
    // Through the [threadId+state] index: a thread's finished runs (its whole history) are not read.
    const keys = CURRENT_RUN_STATES.map((state) => [threadId, state]);
    const runs = await this.joined(this.db.runs.where('[threadId+state]').anyOf(keys).toArray());
    return runs.sort((a, b) => b.createdAt - a.createdAt)[0];
  }

  /** Queued runs in queue order. */
  async queued(threadId: string): Promise<RunRecord[]> {
    const runs = await this.joined(
      this.db.runs.where('[threadId+state]').equals([threadId, 'queued']).toArray(),
    );
    return runs.sort((a, b) => (a.queueSeq ?? 0) - (b.queueSeq ?? 0));
  }

  /** Every run that is neither completed nor failed: what recovery must look at. */
  unfinished(): Promise<RunRecord[]> {
    return this.joined(this.db.runs.where('state').noneOf(['completed', 'failed']).toArray());
  }

  /** The most recent run of a thread (for the snapshot's stop reason after it ended). */
  async latest(threadId: string): Promise<RunRecord | undefined> {
    const runs = await this.byThread(threadId);
    return runs.filter((r) => r.state !== 'queued').sort((a, b) => b.createdAt - a.createdAt)[0];
  }

  /** Remove one run (a queued message the user withdrew). Inside the caller's transaction. */
  async delete(runId: string): Promise<void> {
    this.envs.delete(runId);
    await this.db.writing([this.db.runs, this.db.runEnvs], () => {
      return this.stored
        .writeThrough(runId, undefined, () => this.db.runs.delete(runId))
        .then(() => this.db.runEnvs.delete(runId));
    });
  }

  async deleteByThread(threadId: string): Promise<void> {
    await this.db.writing([this.db.runs, this.db.runEnvs], () =>
      this.db.runs
        .where('threadId')
        .equals(threadId)
        .primaryKeys()
        .then((runIds) => {
          for (const runId of runIds) this.stored.write(runId, undefined);
          return this.db.runs.bulkDelete(runIds);
        })
        .then(() => this.db.runEnvs.where('threadId').equals(threadId).primaryKeys())
        .then((gone) => {
          for (const runId of gone) this.envs.delete(runId);
          return this.db.runEnvs.bulkDelete(gone);
        }),
    );
  }

  /** Stores the run without its snapshot, and the snapshot beside it when it changed. */
  private write(
    run: RunRecord,
    envChanged: boolean,
    how: 'add' | 'put',
    callersRecord: boolean,
  ): PromiseLike<unknown> {
    const { env, ...rest } = run;
    const stored = rest as RunRecord;
    // The cache freezes what it holds: a record the caller built stays the caller's own.
    const cached = callersRecord ? structuredClone(stored) : stored;
    // Taken back if the write fails (a duplicate add must not shadow the stored run).
    const putRun = (): PromiseLike<unknown> =>
      this.stored.writeThrough(run.runId, cached, () =>
        how === 'add' ? this.db.runs.add(stored) : this.db.runs.put(stored),
      );
    const both = (): PromiseLike<unknown> =>
      putRun().then((): PromiseLike<unknown> => {
        if (!env) {
          this.envs.delete(run.runId);
          return this.db.runEnvs.delete(run.runId);
        }
        deepFreeze(env);
        this.remember(run.runId, env);
        return this.db.runEnvs.put({ v: run.v, runId: run.runId, threadId: run.threadId, env });
      });
    // One transaction for both rows, so neither lands without the other: the caller's if there
    // is one, else one of its own.
    return this.db.writing([this.db.runs, this.db.runEnvs], envChanged ? both : putRun);
  }

  /** Joins the snapshots into the runs `query` returns: from the cache, else from runEnvs. */
  private joined(query: PromiseExtended<RunRecord[]>): PromiseExtended<RunRecord[]> {
    return query.then((runs) => {
      const missing = this.fromCache(runs);
      if (!missing.length) return runs;
      return this.db.runEnvs.bulkGet(missing).then((recs) => {
        this.fill(runs, recs);
        return runs;
      });
    });
  }

  /** Joins cached snapshots into `runs`; returns the ids of runs whose snapshot must be read. */
  private fromCache(runs: RunRecord[]): string[] {
    const missing: string[] = [];
    for (const r of runs) {
      if (r.env) continue; // a record written before v3 moved the snapshot out
      const env = this.envs.get(r.runId);
      if (env) r.env = env;
      else missing.push(r.runId);
    }
    return missing;
  }

  /** Joins snapshots read from `runEnvs` (in `fromCache`'s order) and caches them. */
  private fill(runs: RunRecord[], recs: (RunEnvRecord | undefined)[]): void {
    const byId = new Map(runs.map((r) => [r.runId, r]));
    for (const rec of recs) {
      const run = rec && byId.get(rec.runId);
      if (!run || !rec) continue;
      run.env = deepFreeze(rec.env);
      this.remember(rec.runId, rec.env);
    }
  }

  /**
   * Caches a snapshot once the transaction that wrote or read it has committed: a rolled-back
   * transaction must leave nothing behind (its snapshot may never have been stored).
   */
  private remember(runId: string, env: RunEnvironmentSnapshot): void {
    // The tracker runs this before anyone awaiting the commit resumes (the run record it joins
    // joins the cache at the same moment); a read-only or implicit transaction read committed data.
    const tx = this.db.tracker.current();
    if (tx) tx.onCommit.push(() => this.envs.set(runId, env));
    else if (Dexie.currentTransaction?.mode !== 'readwrite') this.envs.set(runId, env);
  }
}
