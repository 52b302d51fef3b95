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
