import type { ApprovalsRepo, InteractionsRepo } from './approvals-repo';
import type { CredentialsRepo } from './credentials-repo';
import type { ReceiptsRepo } from './receipts-repo';
import type { RunsRepo } from './runs-repo';
import type { SettingsRepo } from './settings-repo';
import type { SiteRulesRepo } from './site-rules-repo';
import type { SkillsRepo } from './skills-repo';
import type { ThreadsRepo } from './threads-repo';
import type { WorkflowsRepo } from './workflows-repo';

/**
 * The public surface of a class: its public members only. The repository contracts are the
 * Dexie repositories' public methods (their JSDoc is the contract), without the private fields
 * that would make a second implementation nominally incompatible.
 */
type PublicOf<T> = { [K in keyof T]: T[K] };

export type ThreadsStore = PublicOf<ThreadsRepo>;
export type RunsStore = PublicOf<RunsRepo>;
export type ApprovalsStore = PublicOf<ApprovalsRepo>;
export type InteractionsStore = PublicOf<InteractionsRepo>;
export type ReceiptsStore = PublicOf<ReceiptsRepo>;
export type SiteRulesStore = PublicOf<SiteRulesRepo>;
export type SettingsStore = PublicOf<SettingsRepo>;
export type CredentialsStore = PublicOf<CredentialsRepo>;
export type SkillsStore = PublicOf<SkillsRepo>;
export type WorkflowsStore = PublicOf<WorkflowsRepo>;

/** The tables of the store, by name (what `rows` inspects). */
export type StoreTable =
  | 'threads'
  | 'nodes'
  | 'runs'
  | 'runEnvs'
  | 'approvals'
  | 'interactions'
  | 'receipts'
  | 'siteRules'
  | 'settings'
  | 'credentials'
  | 'keys'
  | 'skills'
  | 'workflows';

/**
 * The store the engine runs on (spec/001 §2): one repository per aggregate, and `transaction`
 * to make a multi-record step atomic. Two implementations: `DexieStore` (IndexedDB, the
 * extension) and `MemoryStore` (in process, for the simulation and fast tests); both pass
 * test/unit/store/store-conformance.ts.
 *
 * Contract of `transaction`: `fn` sees its own writes; no other transaction's writes interleave
 * with it (transactions over the store are serialized); if `fn` throws or a write fails, every
 * write it made is rolled back and the error is rethrown. A transaction started inside another
 * joins it. Inside `fn`, await only repository methods.
 */
export interface StoreApi {
  readonly threads: ThreadsStore;
  readonly runs: RunsStore;
  readonly approvals: ApprovalsStore;
  readonly interactions: InteractionsStore;
  readonly receipts: ReceiptsStore;
  readonly siteRules: SiteRulesStore;
  readonly settings: SettingsStore;
  readonly credentials: CredentialsStore;
  readonly skills: SkillsStore;
  readonly workflows: WorkflowsStore;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** A read-only consistent view. */
  read<T>(fn: () => Promise<T>): Promise<T>;
  /** Every stored row of a table, as stored at rest (for conformance checks and diagnostics). */
  rows(table: StoreTable): Promise<unknown[]>;
  close(): void;
}
