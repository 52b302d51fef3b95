import type { NodeRecord, RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';

/** Small helpers shared by the steps that write nodes. */

export async function appendNotice(
  ctx: EngineContext,
  run: RunRecord,
  parentId: string | null,
  notice: { code: string; text: string; forModel?: boolean },
): Promise<NodeRecord> {
  const { code, text, forModel = false } = notice;
  return ctx.store.threads.appendNode({
    threadId: run.threadId,
    parentId,
    runId: run.runId,
    turnId: run.turnId,
    item: {
      kind: 'notice',
      id: ctx.ids.next('n'),
      createdAt: ctx.clock.now(),
      code,
      text,
      ...(forModel ? { forModel: true } : {}),
    },
  });
}

/** Emit a committed node: `item.complete` (the UI upserts by id), hidden for internal tools. */
export function emitCommitted(ctx: EngineContext, n: NodeRecord): void {
  const vis = (n.item as { visibility?: string }).visibility;
  if ((n.item.kind === 'tool_call' || n.item.kind === 'tool_result') && vis === 'internal') return;
  ctx.emit({ type: 'item.complete', threadId: n.threadId, item: n.item });
}
