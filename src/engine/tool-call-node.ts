import type { ContentBlock, ToolCallItem, ToolCallState } from '../protocol';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../store/records';
import type { RegisteredTool } from '../tools/registry';
import type { EngineContext } from './context';

/** Pieces every phase of a tool call uses: result text and the tool_call node. */

export function text(t: string): ContentBlock[] {
  return [{ type: 'text', text: t }];
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function callItem(c: PlannedToolCall, reg: RegisteredTool | undefined, params: unknown, state: ToolCallState, assistantId: string | undefined, now: number): ToolCallItem {
  const d = reg?.descriptor;
  return {
    kind: 'tool_call',
    id: c.nodeId,
    createdAt: now,
    toolCallId: c.id,
    ...(assistantId ? { assistantId } : {}),
    name: c.name,
    label: d?.label ?? c.name,
    params,
    state,
    ...(d ? { level: d.level, effects: d.effects, visibility: d.visibility } : {}),
    ...(c.rawArgs !== undefined ? { rawArgs: c.rawArgs } : {}),
  };
}

/** Create the tool_call node under the leaf, or move an existing one to a new state. */
export async function upsertCallNode(ctx: EngineContext, run: RunRecord, c: PlannedToolCall, reg: RegisteredTool | undefined, params: unknown, state: ToolCallState): Promise<NodeRecord> {
  const existing = await ctx.store.threads.getNode(c.nodeId);
  if (existing) {
    return ctx.store.threads.updateNodeItem(c.nodeId, (item) => {
      if (item.kind === 'tool_call') item.state = state;
    });
  }
  const thread = (await ctx.store.threads.get(run.threadId))!;
  const node = await ctx.store.threads.appendNode({
    threadId: run.threadId,
    parentId: thread.leafId,
    runId: run.runId,
    turnId: run.turnId,
    item: callItem(c, reg, params, state, run.stepCursor.assistantNodeId, ctx.clock.now()),
  });
  await ctx.store.threads.update(run.threadId, (t) => void (t.leafId = node.id));
  return node;
}
