import type { ContentBlock, ToolCallItem, ToolCallState } from '../../protocol';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../../store/records';
import type { RegisteredTool } from '../../tools/registry';
import type { EngineContext } from '../host/engine-context';
import type { Outbox } from '../host/outbox';
import { LeafWriter } from './leaf-writer';

/** Pieces every phase of a tool call uses: result text and the tool_call node. */

export function text(t: string): ContentBlock[] {
  return [{ type: 'text', text: t }];
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * "Build a tool_call item", the one implementation: the card's identity (node id) was fixed when
 * the call streamed; level, effects and visibility come from the registered descriptor (an
 * unknown tool has none), and invalid JSON arguments are kept raw for the user to see.
 */
export function toolCallItem(a: {
  call: PlannedToolCall;
  reg: RegisteredTool | undefined;
  params: unknown;
  state: ToolCallState;
  assistantId: string | undefined;
  now: number;
}): ToolCallItem {
  const d = a.reg?.descriptor;
  return {
    kind: 'tool_call',
    id: a.call.nodeId,
    createdAt: a.now,
    toolCallId: a.call.id,
    ...(a.assistantId ? { assistantId: a.assistantId } : {}),
    name: a.call.name,
    label: d?.label ?? a.call.name,
    params: a.params,
    state: a.state,
    ...(d ? { level: d.level, effects: d.effects, visibility: d.visibility } : {}),
    ...(a.call.rawArgs !== undefined ? { rawArgs: a.call.rawArgs } : {}),
  };
}

/**
 * Create the tool_call node at the leaf, or move an existing one to a new state. Call inside a
 * commit; the node is sent through that commit's outbox.
 */
export async function upsertCallNode(
  ctx: EngineContext,
  at: { run: RunRecord; call: PlannedToolCall; reg: RegisteredTool | undefined; params: unknown },
  state: ToolCallState,
  /** The step's writer (the node is chained with the rest), or the commit's outbox alone. */
  to: LeafWriter | Outbox,
): Promise<NodeRecord> {
  const { run, call: c, reg, params } = at;
  const existing = await ctx.store.threads.getNode(c.nodeId);
  if (existing) {
    const n = await ctx.store.threads.updateNodeItem(c.nodeId, (item) => {
      if (item.kind === 'tool_call') item.state = state;
    });
    if (to instanceof LeafWriter) to.touched(n);
    else to.node(n);
    return n;
  }
  const w = to instanceof LeafWriter ? to : await LeafWriter.open(ctx, run, to);
  const node = await w.append(
    toolCallItem({
      call: c,
      reg,
      params,
      state,
      assistantId: run.stepCursor.assistantNodeId,
      now: ctx.clock.now(),
    }),
  );
  if (!(to instanceof LeafWriter))
    await ctx.store.threads.update(run.threadId, (t) => void (t.leafId = node.id));
  return node;
}
