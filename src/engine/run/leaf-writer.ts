import type { Item } from '../../protocol';
import type { NodeRecord, RunRecord, ThreadRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import type { Outbox } from '../host/outbox';

/**
 * "Append at the leaf", the one implementation: inside a commit, nodes are chained after the
 * thread's leaf as it was read in this transaction, and `finish` moves the thread's leaf to the
 * last one. Every node of a run is written through one of these, so two writers can never fork
 * the path by appending after the same stale leaf.
 */
export class LeafWriter {
  private constructor(
    private readonly ctx: EngineContext,
    private readonly run: Pick<RunRecord, 'threadId' | 'runId' | 'turnId'>,
    public leaf: string | null,
    /** The commit's outbox: every node written here is sent once the commit landed. */
    readonly out: Outbox,
  ) {}

  /** Open at the thread's current leaf. Call inside `ctx.commit`, with its outbox. */
  static async open(
    ctx: EngineContext,
    run: Pick<RunRecord, 'threadId' | 'runId' | 'turnId'>,
    out: Outbox,
  ): Promise<LeafWriter> {
    const thread = await ctx.store.threads.get(run.threadId);
    if (!thread) throw new Error(`thread ${run.threadId} not found`);
    return new LeafWriter(ctx, run, thread.leafId, out);
  }

  async append(item: Item): Promise<NodeRecord> {
    const n = await this.ctx.store.threads.appendNode({
      threadId: this.run.threadId,
      parentId: this.leaf,
      runId: this.run.runId,
      turnId: this.run.turnId,
      item,
    });
    this.out.node(n);
    this.leaf = n.id;
    return n;
  }

  /** Record a node updated in place (e.g. a tool_call's state) so it is emitted with the rest. */
  touched(n: NodeRecord): void {
    this.out.node(n);
  }

  /** A notice at the leaf (`forModel`: the model reads it as user text too). */
  notice(code: string, text: string, forModel = false): Promise<NodeRecord> {
    return this.append({
      kind: 'notice',
      id: this.ctx.ids.next('n'),
      createdAt: this.ctx.clock.now(),
      code,
      text,
      ...(forModel ? { forModel: true } : {}),
    });
  }

  /** Move the thread's leaf to the last node written (and apply `more` to the thread). */
  finish(now: number, more?: (t: ThreadRecord) => void): Promise<ThreadRecord> {
    return this.ctx.store.threads.update(this.run.threadId, (t) => {
      t.leafId = this.leaf;
      t.updatedAt = now;
      more?.(t);
    });
  }
}
