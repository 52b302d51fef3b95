import Dexie, { type Table } from 'dexie';
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

/**
 * Dexie schema v3 (v1 + workflows, + runEnvs: each run's environment snapshot beside the run). Indexes exist only for queries the engine makes:
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

  constructor(
    name = 'keel',
    options?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange },
  ) {
    super(name, options);
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
