import Dexie from 'dexie';
import { CommittedMap } from './committed-map';
import { markPath } from './path-lineage';
import type { KeelDB } from './db';
import { RECORD_VERSION, type NodeRecord, type ThreadRecord } from './records';
import type { Item } from '../protocol';

export const ZERO_USAGE = { inputTokens: 0, outputTokens: 0 };

/**
 * Threads and their node tree (one aggregate: a node never outlives its thread).
 * Methods that write must be called inside `Store.transaction` when they are part of a
 * multi-record step; on their own each is atomic.
 *
 * Committed threads and nodes are kept in memory (committed-map.ts, tx-tracker.ts), and so is the
 * last path built per thread: a model call's path is then the previous one plus the nodes
 * appended since, without reading or walking the thread. Records handed out are frozen; writers
 * copy first. A new repository (a restarted worker) starts empty.
 */
export class ThreadsRepo {
  /**
   * The last node sequence handed out per thread. Sequences only need to be increasing (they order
   * siblings); a number skipped by a rolled-back transaction is harmless. Filled from the index
   * on first use, so a new worker continues above what is stored.
   */
  private readonly lastSeq = new Map<string, number>();
  /** Committed thread records (committed-map.ts: only what a committed transaction left). */
  private readonly threads: CommittedMap<ThreadRecord>;
  /** Committed nodes by id, filled by `path` and by every node write once it commits. */
  private readonly nodes: CommittedMap<NodeRecord>;
  /** The last path built per thread from committed nodes: the next one usually extends it. */
  private readonly paths = new Map<string, CachedPath>();

  constructor(
    private readonly db: KeelDB,
    limits: { nodes: number } = { nodes: 10_000 },
  ) {
    this.threads = new CommittedMap(db.tracker, undefined, 2_000);
    this.nodes = new CommittedMap(
      db.tracker,
      (id, now, old) => this.nodeChanged(id, now, old),
      limits.nodes,
      () => this.paths.clear(),
    );
  }

  get(threadId: string): Promise<ThreadRecord | undefined> {
    return this.threads.read(threadId, () => this.db.threads.get(threadId));
  }

  list(): Promise<ThreadRecord[]> {
    return this.db.threads.orderBy('updatedAt').reverse().toArray();
  }

  newThread(fields: NewThreadFields): ThreadRecord {
    return newThreadRecord(fields);
  }

  async put(t: ThreadRecord): Promise<void> {
    const rec = structuredClone(t);
    await this.writing(() =>
      this.threads.writeThrough(rec.threadId, rec, () => this.db.threads.put(rec)),
    );
  }

  /** Read-modify-write; throws if the thread is gone. Returns the new record. */
  async update(threadId: string, mutate: (t: ThreadRecord) => void): Promise<ThreadRecord> {
    return this.writing(() =>
      this.get(threadId).then((cur) => {
        if (!cur) throw new Error(`thread ${threadId} not found`);
        const t = structuredClone(cur);
        mutate(t);
        t.revision += 1;
        return this.threads.writeThrough(threadId, t, () => this.db.threads.put(t)).then(() => t);
      }),
    );
  }

  async delete(threadId: string): Promise<void> {
    this.lastSeq.delete(threadId);
    await this.writing(() =>
      this.db.nodes
        .where('threadId')
        .equals(threadId)
        .primaryKeys()
        .then((ids) => {
          for (const id of ids) this.nodes.write(id, undefined);
          this.threads.write(threadId, undefined);
          return this.db.nodes.bulkDelete(ids).then(() => this.db.threads.delete(threadId));
        }),
    );
  }

  getNode(id: string): Promise<NodeRecord | undefined> {
    return this.nodes.read(id, () => this.db.nodes.get(id));
  }

  /** The sequence the next node of this thread will get (no side effect). */
  async nextSeq(threadId: string): Promise<number> {
    return (await this.lastSeqOf(threadId)) + 1;
  }

  private lastSeqOf(threadId: string): Promise<number> {
    const cached = this.lastSeq.get(threadId);
    if (cached !== undefined) return Dexie.Promise.resolve(cached);
    return this.db.nodes
      .where('[threadId+seq]')
      .between([threadId, -Infinity], [threadId, Infinity])
      .last()
      .then((rec) => rec?.seq ?? 0);
  }

  /** Hand out the next sequence: synchronous after the await, so concurrent appends never share one. */
  private allocateSeq(threadId: string): PromiseLike<number> {
    const take = (stored: number) => {
      const seq = Math.max(stored, this.lastSeq.get(threadId) ?? 0) + 1;
      this.lastSeq.set(threadId, seq);
      return seq;
    };
    const cached = this.lastSeq.get(threadId);
    if (cached !== undefined) return Dexie.Promise.resolve(take(cached));
    return this.lastSeqOf(threadId).then(take);
  }

  /** Append an item under `parentId` (does not move the leaf: callers do that in the same transaction). */
  async appendNode(fields: {
    threadId: string;
    parentId: string | null;
    item: Item;
    runId?: string;
    turnId?: string;
  }): Promise<NodeRecord> {
    return this.writing(() =>
      this.allocateSeq(fields.threadId).then((seq) => {
        const rec: NodeRecord = structuredClone({
          v: RECORD_VERSION,
          id: fields.item.id,
          threadId: fields.threadId,
          parentId: fields.parentId,
          seq,
          runId: fields.runId,
          turnId: fields.turnId,
          createdAt: fields.item.createdAt,
          item: fields.item,
        });
        // Taken back if the add fails: a duplicate id must not shadow the stored node.
        return this.nodes.writeThrough(rec.id, rec, () => this.db.nodes.add(rec)).then(() => rec);
      }),
    );
  }

  async putNode(rec: NodeRecord): Promise<void> {
    const copy = structuredClone(rec);
    await this.writing(() => this.nodes.writeThrough(copy.id, copy, () => this.db.nodes.put(copy)));
  }

  async updateNodeItem(id: string, mutate: (item: Item) => void): Promise<NodeRecord> {
    return this.writing(() =>
      this.getNode(id).then((cur) => {
        if (!cur) throw new Error(`node ${id} not found`);
        const rec = structuredClone(cur);
        mutate(rec.item);
        return this.nodes.writeThrough(id, rec, () => this.db.nodes.put(rec)).then(() => rec);
      }),
    );
  }

  allNodes(threadId: string): Promise<NodeRecord[]> {
    return this.db.nodes.where('threadId').equals(threadId).toArray();
  }

  /**
   * The history root → leaf, walking parentId from the leaf. From the committed nodes when they
   * hold the whole path (usually extending the previous path of the thread by the nodes since),
   * else from one indexed query of the thread's nodes, which then join the cache.
   */
  path(threadId: string, leafId: string | null): Promise<NodeRecord[]> {
    if (!leafId) return Dexie.Promise.resolve([]);
    const cached = this.cachedPath(threadId, leafId);
    if (cached) return Dexie.Promise.resolve(cached);
    const token = this.nodes.readToken();
    return this.allNodes(threadId).then((nodes) => {
      for (const n of nodes) this.nodes.fill(n.id, n, token);
      return pathFrom(nodes, leafId);
    });
  }

  /** The path from cached nodes, or null when one of them is not known without IndexedDB. */
  private cachedPath(threadId: string, leafId: string): NodeRecord[] | null {
    // Inside a transaction that wrote nodes, any node of the path may have changed: walk it all.
    const prev = this.nodes.anyWrittenHere() ? undefined : this.paths.get(threadId);
    const walked: NodeRecord[] = [];
    const seen = new Set<string>();
    let id: string | null = leafId;
    let prefix = 0;
    while (id !== null) {
      const at = prev?.pos.get(id);
      if (at !== undefined) {
        prefix = at + 1;
        break;
      }
      const hit = this.nodes.lookup(id);
      if (!hit) return null;
      const n = hit.value;
      // A missing parent, a link into another thread or a cycle ends the path (as in pathFrom).
      if (!n || n.threadId !== threadId || seen.has(n.id)) break;
      seen.add(n.id);
      walked.push(n);
      id = n.parentId;
    }
    const keep = !this.nodes.anyWrittenHere() && this.db.tracker.cacheUsable();
    if (prev && keep && prefix === prev.nodes.length) {
      // The common case, a path that only grew: extend the kept one in place (an append keeps
      // its version: path-lineage.ts).
      for (let i = walked.length - 1; i >= 0; i--) {
        prev.pos.set(walked[i].id, prev.nodes.length);
        prev.nodes.push(walked[i]);
      }
      return handOut(prev);
    }
    const out = prev ? prev.nodes.slice(0, prefix) : [];
    for (let i = walked.length - 1; i >= 0; i--) out.push(walked[i]);
    if (keep) return handOut(this.remember(threadId, out));
    return out.slice();
  }

  private remember(threadId: string, nodes: NodeRecord[]): CachedPath {
    const prev = this.paths.get(threadId);
    if (prev && nodes.length >= prev.nodes.length && sharesPrefix(prev.nodes, nodes)) {
      for (let i = prev.nodes.length; i < nodes.length; i++) prev.pos.set(nodes[i].id, i);
      prev.nodes = nodes;
      // Not an append in place: whoever kept work on the old array compares again.
      prev.version += 1;
      return prev;
    }
    const fresh = { nodes, pos: new Map(nodes.map((n, i) => [n.id, i])), version: 0 };
    this.paths.set(threadId, fresh);
    return fresh;
  }

  /** A committed node changed: the cached path holding it takes the new record, or is dropped. */
  private nodeChanged(id: string, now: NodeRecord | undefined, old: NodeRecord | undefined): void {
    const threadId = (now ?? old)?.threadId;
    const p = threadId ? this.paths.get(threadId) : undefined;
    const at = p?.pos.get(id);
    if (!p || at === undefined || !threadId) return;
    if (now && now.parentId === p.nodes[at].parentId) {
      p.nodes[at] = now;
      p.version += 1;
    } else this.paths.delete(threadId);
  }

  /** Run a write in the caller's transaction, or in one of its own (so the cache sees it commit). */
  private writing<T>(fn: () => PromiseLike<T>): Promise<T> {
    return this.db.writing([this.db.threads, this.db.nodes], fn);
  }
}

interface CachedPath {
  nodes: NodeRecord[];
  pos: Map<string, number>;
  /** Bumped whenever an element of `nodes` is replaced (appends keep it): path-lineage.ts. */
  version: number;
}

/** A copy of a kept path for a caller, marked with where it came from (path-lineage.ts). */
function handOut(p: CachedPath): NodeRecord[] {
  const copy = p.nodes.slice();
  markPath(copy, p, p.version);
  return copy;
}

/** Whether `longer` begins with `shorter`'s records (the same objects: none changed since). */
function sharesPrefix(shorter: NodeRecord[], longer: NodeRecord[]): boolean {
  const last = shorter.length - 1;
  return last < 0 || (longer[last] === shorter[last] && longer[0] === shorter[0]);
}

/** Walk leaf → root over an in-memory node set; returns root → leaf. Stops on cycles. */
export function pathFrom(nodes: NodeRecord[], leafId: string): NodeRecord[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out: NodeRecord[] = [];
  const seen = new Set<string>();
  let cur = byId.get(leafId);
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    out.push(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return out.reverse();
}

export interface NewThreadFields {
  threadId: string;
  title?: string;
  now: number;
  parentThreadId?: string;
  forkedFromNodeId?: string;
}

/** A new, empty thread record (both stores build it the same way). */
export function newThreadRecord(fields: NewThreadFields): ThreadRecord {
  return {
    v: RECORD_VERSION,
    threadId: fields.threadId,
    title: fields.title ?? '',
    titleSource: fields.title ? 'user' : 'default',
    createdAt: fields.now,
    updatedAt: fields.now,
    leafId: null,
    parentThreadId: fields.parentThreadId,
    forkedFromNodeId: fields.forkedFromNodeId,
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    todos: [],
    revision: 1,
  };
}
