import type { Item } from '../../protocol';
import { MemoryCredentials } from './credentials';
import {
  MemoryApprovals,
  MemoryInteractions,
  MemoryReceipts,
  MemorySettings,
  MemorySiteRules,
  MemorySkills,
  MemoryWorkflows,
} from './repos';
import { MemoryRuns } from './runs';
import { MemoryAccess, MemoryData } from './tables';
import { RECORD_VERSION, type NodeRecord, type ThreadRecord } from '../records';
import type { StoreApi, StoreTable } from '../store-api';
import { type NewThreadFields, newThreadRecord, pathFrom } from '../threads-repo';

/**
 * The in-memory store: the same contract as the Dexie store (store-api.ts; both pass the storage
 * conformance suite), over Maps instead of IndexedDB. It exists so that the engine simulation
 * (test/sim) can run thousands of histories a minute, deterministically. `MemoryStore.open(name)`
 * with a name used before opens the same data again: a restarted worker over the same database.
 */
export class MemoryStore implements StoreApi {
  private static readonly named = new Map<string, MemoryData>();

  readonly threads: MemoryThreads;
  readonly runs: MemoryRuns;
  readonly approvals: MemoryApprovals;
  readonly interactions: MemoryInteractions;
  readonly receipts: MemoryReceipts;
  readonly siteRules: MemorySiteRules;
  readonly settings: MemorySettings;
  readonly credentials: MemoryCredentials;
  readonly skills: MemorySkills;
  readonly workflows: MemoryWorkflows;
  private readonly access: MemoryAccess;

  constructor(data: MemoryData = new MemoryData()) {
    const a = (this.access = new MemoryAccess(data));
    this.threads = new MemoryThreads(a);
    this.runs = new MemoryRuns(a);
    this.approvals = new MemoryApprovals(a);
    this.interactions = new MemoryInteractions(a);
    this.receipts = new MemoryReceipts(a);
    this.siteRules = new MemorySiteRules(a);
    this.settings = new MemorySettings(a);
    this.credentials = new MemoryCredentials(a);
    this.skills = new MemorySkills(a);
    this.workflows = new MemoryWorkflows(a);
  }

  static open(name: string): MemoryStore {
    let data = MemoryStore.named.get(name);
    if (!data) MemoryStore.named.set(name, (data = new MemoryData()));
    return new MemoryStore(data);
  }

  /** Forget a named data set (tests that open many). */
  static drop(name: string): void {
    MemoryStore.named.delete(name);
  }

  /** The data this store runs over: open another `MemoryStore` on it to "restart the worker". */
  get data(): MemoryData {
    return this.access.data;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.access.transaction(fn);
  }

  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.access.transaction(fn);
  }

  rows(table: StoreTable): Promise<unknown[]> {
    return this.access.run(() => this.access.select(table));
  }

  close(): void {
    this.access.close();
  }
}

class MemoryThreads {
  constructor(private readonly a: MemoryAccess) {}

  get(threadId: string): Promise<ThreadRecord | undefined> {
    return this.a.run(() => this.a.get<ThreadRecord>('threads', threadId));
  }

  list(): Promise<ThreadRecord[]> {
    return this.a.run(() =>
      this.a
        .select<ThreadRecord>('threads')
        .sort((x, y) => y.updatedAt - x.updatedAt || (x.threadId < y.threadId ? 1 : -1)),
    );
  }

  newThread(fields: NewThreadFields): ThreadRecord {
    return newThreadRecord(fields);
  }

  put(t: ThreadRecord): Promise<void> {
    return this.a.run(() => this.a.put('threads', t.threadId, t));
  }

  update(threadId: string, mutate: (t: ThreadRecord) => void): Promise<ThreadRecord> {
    return this.a.run(() => {
      const t = this.a.get<ThreadRecord>('threads', threadId);
      if (!t) throw new Error(`thread ${threadId} not found`);
      mutate(t);
      t.revision += 1;
      this.a.put('threads', threadId, t);
      return t;
    });
  }

  delete(threadId: string): Promise<void> {
    return this.a.run(() => {
      this.a.deleteWhere<NodeRecord>('nodes', (n) => n.threadId === threadId);
      this.a.delete('threads', threadId);
    });
  }

  getNode(id: string): Promise<NodeRecord | undefined> {
    return this.a.run(() => this.a.get<NodeRecord>('nodes', id));
  }

  nextSeq(threadId: string): Promise<number> {
    return this.a.run(() => this.lastSeq(threadId) + 1);
  }

  private lastSeq(threadId: string): number {
    let max = 0;
    for (const row of this.a.data.table('nodes').values()) {
      const n = row as unknown as NodeRecord;
      if (n.threadId === threadId && n.seq > max) max = n.seq;
    }
    return max;
  }

  appendNode(fields: {
    threadId: string;
    parentId: string | null;
    item: Item;
    runId?: string;
    turnId?: string;
  }): Promise<NodeRecord> {
    return this.a.run(() => {
      const rec: NodeRecord = {
        v: RECORD_VERSION,
        id: fields.item.id,
        threadId: fields.threadId,
        parentId: fields.parentId,
        seq: this.lastSeq(fields.threadId) + 1,
        runId: fields.runId,
        turnId: fields.turnId,
        createdAt: fields.item.createdAt,
        item: fields.item,
      };
      this.a.add('nodes', rec.id, rec);
      return rec;
    });
  }

  putNode(rec: NodeRecord): Promise<void> {
    return this.a.run(() => this.a.put('nodes', rec.id, rec));
  }

  updateNodeItem(id: string, mutate: (item: Item) => void): Promise<NodeRecord> {
    return this.a.run(() => {
      const rec = this.a.get<NodeRecord>('nodes', id);
      if (!rec) throw new Error(`node ${id} not found`);
      mutate(rec.item);
      this.a.put('nodes', id, rec);
      return rec;
    });
  }

  allNodes(threadId: string): Promise<NodeRecord[]> {
    return this.a.run(() => this.a.select<NodeRecord>('nodes', (n) => n.threadId === threadId));
  }

  async path(threadId: string, leafId: string | null): Promise<NodeRecord[]> {
    if (!leafId) return [];
    return pathFrom(await this.allNodes(threadId), leafId);
  }
}
