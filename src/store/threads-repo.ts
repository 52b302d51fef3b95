import type { KeelDB } from './db';
import { RECORD_VERSION, type NodeRecord, type ThreadRecord } from './records';
import type { Item } from '../protocol';

export const ZERO_USAGE = { inputTokens: 0, outputTokens: 0 };

/**
 * Threads and their node tree (one aggregate: a node never outlives its thread).
 * Methods that write must be called inside `Store.transaction` when they are part of a
 * multi-record step; on their own each is atomic.
 */
export class ThreadsRepo {
  /**
   * The last node sequence handed out per thread. Sequences only need to be increasing (they order
   * siblings); a number skipped by a rolled-back transaction is harmless. Filled from the index
   * on first use, so a new worker continues above what is stored.
   */
  private readonly lastSeq = new Map<string, number>();

  constructor(private readonly db: KeelDB) {}

  get(threadId: string): Promise<ThreadRecord | undefined> {
    return this.db.threads.get(threadId);
  }

  list(): Promise<ThreadRecord[]> {
    return this.db.threads.orderBy('updatedAt').reverse().toArray();
  }

  newThread(fields: NewThreadFields): ThreadRecord {
    return newThreadRecord(fields);
  }

  async put(t: ThreadRecord): Promise<void> {
    await this.db.threads.put(t);
  }

  /** Read-modify-write; throws if the thread is gone. Returns the new record. */
  async update(threadId: string, mutate: (t: ThreadRecord) => void): Promise<ThreadRecord> {
    const t = await this.db.threads.get(threadId);
    if (!t) throw new Error(`thread ${threadId} not found`);
    mutate(t);
    t.revision += 1;
    await this.db.threads.put(t);
    return t;
  }

  async delete(threadId: string): Promise<void> {
    this.lastSeq.delete(threadId);
    await this.db.nodes.where('threadId').equals(threadId).delete();
    await this.db.threads.delete(threadId);
  }

  getNode(id: string): Promise<NodeRecord | undefined> {
    return this.db.nodes.get(id);
  }

  /** The sequence the next node of this thread will get (no side effect). */
  async nextSeq(threadId: string): Promise<number> {
    return (await this.lastSeqOf(threadId)) + 1;
  }

  private async lastSeqOf(threadId: string): Promise<number> {
    const cached = this.lastSeq.get(threadId);
    if (cached !== undefined) return cached;
    const rec = await this.db.nodes
      .where('[threadId+seq]')
      .between([threadId, -Infinity], [threadId, Infinity])
      .last();
    return rec?.seq ?? 0;
  }

  /** Hand out the next sequence: synchronous after the await, so concurrent appends never share one. */
  private async allocateSeq(threadId: string): Promise<number> {
    const stored = await this.lastSeqOf(threadId);
    const seq = Math.max(stored, this.lastSeq.get(threadId) ?? 0) + 1;
    this.lastSeq.set(threadId, seq);
    return seq;
  }

  /** Append an item under `parentId` (does not move the leaf: callers do that in the same transaction). */
  async appendNode(fields: {
    threadId: string;
    parentId: string | null;
    item: Item;
    runId?: string;
    turnId?: string;
  }): Promise<NodeRecord> {
    const rec: NodeRecord = {
      v: RECORD_VERSION,
      id: fields.item.id,
      threadId: fields.threadId,
      parentId: fields.parentId,
      seq: await this.allocateSeq(fields.threadId),
      runId: fields.runId,
      turnId: fields.turnId,
      createdAt: fields.item.createdAt,
      item: fields.item,
    };
    await this.db.nodes.add(rec);
    return rec;
  }

  async putNode(rec: NodeRecord): Promise<void> {
    await this.db.nodes.put(rec);
  }

  async updateNodeItem(id: string, mutate: (item: Item) => void): Promise<NodeRecord> {
    const rec = await this.db.nodes.get(id);
    if (!rec) throw new Error(`node ${id} not found`);
    mutate(rec.item);
    await this.db.nodes.put(rec);
    return rec;
  }

  allNodes(threadId: string): Promise<NodeRecord[]> {
    return this.db.nodes.where('threadId').equals(threadId).toArray();
  }

  /**
   * The history root → leaf, walking parentId from the leaf. Reads the thread's nodes with one
   * indexed query (cheaper than one get per ancestor for long threads).
   */
  async path(threadId: string, leafId: string | null): Promise<NodeRecord[]> {
    if (!leafId) return [];
    const nodes = await this.allNodes(threadId);
    return pathFrom(nodes, leafId);
  }
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
