import { KeelDB } from './db';
import { ApprovalsRepo, InteractionsRepo } from './approvals-repo';
import { CredentialsRepo } from './credentials-repo';
import { ReceiptsRepo } from './receipts-repo';
import { RunsRepo } from './runs-repo';
import { SettingsRepo } from './settings-repo';
import { SiteRulesRepo } from './site-rules-repo';
import { ThreadsRepo } from './threads-repo';
import { SkillsRepo } from './skills-repo';
import { WorkflowsRepo } from './workflows-repo';
import { FramesRepo } from './frames-repo';
import type { StoreApi, StoreTable } from './store-api';

/**
 * The IndexedDB store: one repository per aggregate over one Dexie database, and `transaction` to
 * make a multi-record step atomic (spec/001 §2). Inside `transaction`, call only repository
 * methods — any other await (fetch, crypto, timers) would commit the IndexedDB transaction early.
 */
export class DexieStore implements StoreApi {
  readonly threads: ThreadsRepo;
  readonly runs: RunsRepo;
  readonly approvals: ApprovalsRepo;
  readonly interactions: InteractionsRepo;
  readonly receipts: ReceiptsRepo;
  readonly siteRules: SiteRulesRepo;
  readonly settings: SettingsRepo;
  readonly credentials: CredentialsRepo;
  readonly skills: SkillsRepo;
  readonly workflows: WorkflowsRepo;
  /** Task recordings: beside the engine's store, not part of its contract (StoreApi). */
  readonly frames: FramesRepo;

  constructor(readonly db: KeelDB) {
    this.threads = new ThreadsRepo(db);
    this.runs = new RunsRepo(db);
    this.approvals = new ApprovalsRepo(db);
    this.interactions = new InteractionsRepo(db);
    this.receipts = new ReceiptsRepo(db);
    this.siteRules = new SiteRulesRepo(db);
    this.settings = new SettingsRepo(db);
    this.credentials = new CredentialsRepo(db);
    this.skills = new SkillsRepo(db);
    this.workflows = new WorkflowsRepo(db);
    this.frames = new FramesRepo(db);
  }

  /** Run `fn` as one read-write IndexedDB transaction over every engine table. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction('rw', this.db.allTables, fn);
  }

  /** A read-only consistent view (snapshots for `initialize`). */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction('r', this.db.allTables, fn);
  }

  rows(table: StoreTable): Promise<unknown[]> {
    return this.db[table].toArray();
  }

  close(): void {
    this.db.close();
  }
}

/** What the engine runs on: any implementation of the store contract (store-api.ts). */
export type Store = StoreApi;

/** Opens the IndexedDB store named `name` (the extension's is 'keel'). */
export const Store = {
  open(name = 'keel', options?: ConstructorParameters<typeof KeelDB>[1]): DexieStore {
    return new DexieStore(new KeelDB(name, options));
  },
};

export { KeelDB };
export type { StoreApi, StoreTable } from './store-api';
export * from './records';
export { CURRENT_RUN_STATES } from '../protocol';
export { pathFrom, ZERO_USAGE } from './threads-repo';
export { defaultSettings } from './settings-repo';
