import Dexie, { type Table } from 'dexie';
import { TxTracker } from './tx-tracker';
import type {
  ApprovalRecord,
  CredentialRecord,
  InteractionRecord,
  KeyRecord,
  NodeRecord,
  ReceiptRecord,
  RunEnvRecord,
  RunRecord,
  SettingsRecord,
  SiteRuleRecord,
  SkillRecord,
  ThreadRecord,
  WorkflowRecord,
} from './records';
import type { FrameRecord } from './frames-repo';

/**
 * Dexie schema v4 (v1 + workflows, + runEnvs: each run's environment snapshot beside the run,
 * + frames: task recordings). Indexes exist only for queries the engine makes:
 * - nodes by thread (building a path, forking, deleting) and by parent (branch points);
 * - runs by thread and by state (recovery scans every non-terminal run at start-up);
 * - approvals / interactions by run and status (re-showing what a recovered run waits for).
 */
export class KeelDB extends Dexie {
  threads!: Table<ThreadRecord, string>;
  nodes!: Table<NodeRecord, string>;
  runs!: Table<RunRecord, string>;
  runEnvs!: Table<RunEnvRecord, string>;
  approvals!: Table<ApprovalRecord, string>;
  interactions!: Table<InteractionRecord, string>;
  receipts!: Table<ReceiptRecord, string>;
  siteRules!: Table<SiteRuleRecord, string>;
  settings!: Table<SettingsRecord, string>;
  credentials!: Table<CredentialRecord, string>;
  keys!: Table<KeyRecord, string>;
  skills!: Table<SkillRecord, string>;
  workflows!: Table<WorkflowRecord, string>;
  /** Task recordings (frames-repo.ts): not an engine table, so not in `allTables`. */
  frames!: Table<FrameRecord, string>;
  /** This connection's transactions, for the repositories' committed caches (tx-tracker.ts). */
  readonly tracker = new TxTracker();

  constructor(
    name = 'keel',
    options?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange },
  ) {
    super(name, options);
    // Nothing here uses Dexie's live queries, table hooks or their query cache, and each costs
    // work on every request and every commit (the observability layer also broadcasts every
    // commit's changed key ranges to other contexts): the engine's step runs without them.
    this.unuse({ stack: 'dbcore', name: 'Observability' });
    this.unuse({ stack: 'dbcore', name: 'Cache' });
    this.unuse({ stack: 'dbcore', name: 'HooksMiddleware' });
    this.use(this.tracker.middleware);
    this.version(1).stores({
      threads: 'threadId, updatedAt',
      nodes: 'id, threadId, parentId, [threadId+seq]',
      runs: 'runId, threadId, state, [threadId+state]',
      approvals: 'approvalId, runId, threadId, status',
      interactions: 'interactionId, runId, threadId, status',
      receipts: 'key, createdAt',
      siteRules: 'origin',
      settings: 'key',
      credentials: 'id',
      keys: 'id',
      skills: 'name',
    });
    // v2 adds workflows. Dexie keeps every v1 table and its rows as they are (a new table needs
    // no record migration); test/unit/store/workflows-repo.test.ts opens a v1 database to check.
    this.version(2).stores({ workflows: 'workflowId, updatedAt' });
    // v3 moves each run's environment snapshot out of its run record (rewritten several times a
    // step) into runEnvs, written once per run. Existing runs keep theirs: the upgrade moves it
    // (test/unit/store/run-env-migration.test.ts opens a v2 database to check).
    this.version(3)
      .stores({ runEnvs: 'runId, threadId' })
      .upgrade(async (tx) => {
        const runs = tx.table<RunRecord, string>('runs');
        const envs: RunEnvRecord[] = [];
        await runs.toCollection().modify((run) => {
          if (!run.env) return;
          envs.push({ v: run.v, runId: run.runId, threadId: run.threadId, env: run.env });
          delete run.env;
        });
        await tx.table<RunEnvRecord, string>('runEnvs').bulkPut(envs);
      });
    // v4 adds the frames of task recordings (issue 30), by thread in time order. A new table:
    // every v3 row stays as it is (test/unit/store/frames-repo.test.ts opens a v3 database).
    this.version(4).stores({ frames: 'frameId, threadId, [threadId+at]' });
  }

  /**
   * Run `fn` in the caller's read-write transaction, or else in a new one over `tables`, so that
   * every write to a cached table happens in a transaction the tracker sees commit. Inside the
   * caller's transaction this is Dexie's own promise (a native wrapper would spend the zone's
   * echoes: PrematureCommitError a few awaits later).
   */
  writing<T>(tables: Table[], fn: () => PromiseLike<T>): Promise<T> {
    if (this.tracker.current()) return fn() as Promise<T>;
    return this.transaction('rw', tables, fn);
  }

  /** Every table: engine steps take them all so a step's scope can never be too small. */
  get allTables(): Table[] {
    return [
      this.threads,
      this.nodes,
      this.runs,
      this.runEnvs,
      this.approvals,
      this.interactions,
      this.receipts,
      this.siteRules,
      this.settings,
      this.credentials,
      this.skills,
      this.workflows,
    ];
  }
}
