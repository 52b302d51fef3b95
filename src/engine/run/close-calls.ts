import type { PlannedToolCall, RunRecord } from '../../store/records';
import { openBatch } from './run-machine';
import type { EngineContext } from '../host/engine-context';
import type { LeafWriter } from './leaf-writer';
import { text, toolCallItem } from './tool-call-node';

/**
 * "Close the remaining calls (why)", the one implementation: every call that will not run gets
 * its tool_call (created `invalid`, or an existing card moved to `invalid`) and a failed
 * tool_result saying why, so each call has exactly one result and the provider's pairing rules
 * hold. Results keep the tool's visibility: an internal tool's closing stays internal.
 */
export async function closeRemainingCalls(
  ctx: EngineContext,
  w: LeafWriter,
  run: Pick<RunRecord, 'stepCursor'>,
  calls: { call: PlannedToolCall; why: string }[],
  o: { outcome?: 'invalid' | 'interrupted'; assistantId?: string } = {},
): Promise<void> {
  const { outcome = 'invalid', assistantId = run.stepCursor.assistantNodeId } = o;
  const now = ctx.clock.now();
  for (const { call, why } of calls) {
    const reg = ctx.registry.get(call.name);
    const existing = await ctx.store.threads.getNode(call.nodeId);
    if (existing && existing.item.kind === 'tool_call') {
      w.touched(
        await ctx.store.threads.updateNodeItem(
          call.nodeId,
          (it) => void (it.kind === 'tool_call' && (it.state = 'invalid')),
        ),
      );
    } else {
      await w.append(
        toolCallItem({ call, reg, params: call.args, state: 'invalid', assistantId, now }),
      );
    }
    await w.append({
      kind: 'tool_result',
      id: ctx.ids.next('n'),
      createdAt: now,
      toolCallId: call.id,
      name: call.name,
      ok: false,
      outcome,
      content: text(why),
      ...(reg?.descriptor.visibility === 'internal' ? { visibility: 'internal' } : {}),
    });
  }
}

/**
 * Close whatever is open in the run's batch when it stops mid-batch (an internal failure, drift on
 * recovery), so the leaf is safe for the steers and the notice that follow. Apply `batchClosed` to
 * the run in the same commit.
 */
export async function closeOpenBatch(
  ctx: EngineContext,
  w: LeafWriter,
  run: RunRecord,
  texts: { running: string; pending: string },
): Promise<void> {
  const close = openBatch(
    {
      state: run.state,
      toolCalls: run.stepCursor.toolCalls,
      nextToolIndex: run.stepCursor.nextToolIndex,
      ...(run.pendingTool ? { pendingTool: run.pendingTool } : {}),
    },
    texts,
  );
  await closeRemainingCalls(
    ctx,
    w,
    run,
    close.map((c) => ({ call: run.stepCursor.toolCalls[c.index], why: c.why })),
  );
}

/** The run's cursor after its batch was closed. */
export function batchClosed(r: RunRecord): void {
  r.pendingTool = undefined;
  r.stepCursor = { ...r.stepCursor, nextToolIndex: r.stepCursor.toolCalls.length };
}
