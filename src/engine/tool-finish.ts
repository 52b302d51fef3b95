import type { ContentBlock, ToolCallState } from '../protocol';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../store/records';
import type { RegisteredTool } from '../tools/registry';
import type { EngineContext } from './context';
import type { StepOutcome } from './model-step';
import { emitCommitted } from './nodes';
import { callItem, text, upsertCallNode } from './tool-call-node';

const WARN_AFTER = 3;
const DISABLE_AFTER = 5;

/** How a finished call moves the failure breaker: user and policy denials are neutral. */
export type FailureEffect = 'success' | 'failure' | 'neutral';

export interface Finish {
  callState: ToolCallState;
  ok: boolean;
  outcome: 'ok' | 'error' | 'denied' | 'interrupted' | 'invalid' | 'lost' | 'marked_done';
  content: ContentBlock[];
  details?: unknown;
  failure: FailureEffect;
  /** End the turn after recording this call (deny_stop, or the user marking an uncertain call failed). */
  end?: { state: 'completed' | 'failed'; stopReason: 'interrupted' | 'error'; notice: { code: string; text: string }; error?: { code: string; message: string } };
}

/**
 * Record a call's outcome: tool_call state + tool_result + breaker counters + cursor, in one
 * transaction. 3 consecutive failures add a notice asking the model to change approach; 5
 * disable tools for one final reply (spec/001 §1).
 */
export async function finishCall(
  ctx: EngineContext,
  run0: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool | undefined,
  f: Finish,
  extra: { interactionId?: string } = {},
): Promise<StepOutcome> {
  const out = await ctx.commit('tool_result', async () => {
    const now = ctx.clock.now();
    const run = (await ctx.store.runs.get(run0.runId))!;
    const params = run.pendingTool?.toolCallId === call.id ? run.pendingTool.params : call.args;
    const callNode = await upsertCallNode(ctx, run, call, reg, params, f.callState);
    const d = reg?.descriptor;
    const created: NodeRecord[] = [callNode];
    let leaf = (await ctx.store.threads.get(run.threadId))!.leafId;
    const append = async (item: NodeRecord['item']) => {
      const n = await ctx.store.threads.appendNode({ threadId: run.threadId, parentId: leaf, runId: run.runId, turnId: run.turnId, item });
      created.push(n);
      leaf = n.id;
      return n;
    };
    await append({
      kind: 'tool_result',
      id: ctx.ids.next('n'),
      createdAt: now,
      toolCallId: call.id,
      name: call.name,
      ok: f.ok,
      outcome: f.outcome,
      content: f.content,
      ...(f.details !== undefined ? { details: f.details } : {}),
      // A failed page or MCP call can quote the page too (an element's label, a server message).
      ...(d && !d.trusted && (f.outcome === 'ok' || f.outcome === 'error') ? { untrusted: true } : {}),
      ...(d?.visibility === 'internal' ? { visibility: 'internal' } : {}),
    });
    if (extra.interactionId) {
      const i = await ctx.store.interactions.get(extra.interactionId);
      if (i) await ctx.store.interactions.put({ ...i, status: 'claimed' });
    }
    let failures = run.counters.consecutiveToolFailures;
    if (f.failure === 'success') failures = 0;
    if (f.failure === 'failure') failures += 1;
    let disable = run.counters.toolsDisabled;
    if (f.failure === 'failure' && failures === WARN_AFTER) {
      await append({ kind: 'notice', id: ctx.ids.next('n'), createdAt: now, code: 'tool_failures_warning', forModel: true, text: `${WARN_AFTER} tool calls in a row have failed. Stop repeating what does not work: re-read the page (take a new snapshot) and try a different approach, or ask the user.` });
    }
    if (f.failure === 'failure' && failures >= DISABLE_AFTER && !disable) {
      disable = true;
      await append({ kind: 'notice', id: ctx.ids.next('n'), createdAt: now, code: 'tools_disabled', forModel: true, text: `${DISABLE_AFTER} tool calls in a row have failed, so tools are now disabled. Reply to the user without tools: say what you tried, what failed and what they could do.` });
    }
    let nextIndex = run.stepCursor.nextToolIndex + 1;
    let state: RunRecord['state'] = 'executing_tool';
    let stopReason: RunRecord['stopReason'];
    const remaining = run.stepCursor.toolCalls.slice(nextIndex);
    if (f.end || disable) {
      const why = f.end ? 'Not executed: the turn was stopped.' : 'Not executed: tools were disabled after repeated failures.';
      for (const c of remaining) {
        const r = ctx.registry.get(c.name);
        const cn = await append(callItem(c, r, c.args, 'invalid', run.stepCursor.assistantNodeId, now));
        void cn;
        await append({ kind: 'tool_result', id: ctx.ids.next('n'), createdAt: now, toolCallId: c.id, name: c.name, ok: false, outcome: 'invalid', content: text(why) });
      }
      nextIndex = run.stepCursor.toolCalls.length;
    }
    if (f.end) {
      // spec/001 §3: a turn that ends early first materializes its acked steers, in admission order.
      for (const s of [...run.pendingSteers].sort((a, b) => a.seq - b.seq)) {
        await append({ kind: 'user_message', id: ctx.ids.next('n'), createdAt: now, text: s.input.text, ...(s.input.images?.length ? { images: s.input.images } : {}), steered: true });
      }
      await append({ kind: 'notice', id: ctx.ids.next('n'), createdAt: now, code: f.end.notice.code, text: f.end.notice.text });
      state = f.end.state;
      stopReason = f.end.stopReason;
    } else if (nextIndex >= run.stepCursor.toolCalls.length) {
      state = 'streaming_model';
    }
    await ctx.store.threads.update(run.threadId, (t) => {
      t.leafId = leaf;
      t.updatedAt = now;
    });
    const r = await ctx.store.runs.update(run.runId, (r) => {
      r.pendingTool = undefined;
      r.counters.consecutiveToolFailures = failures;
      r.counters.toolsDisabled = disable;
      r.stepCursor = { ...r.stepCursor, nextToolIndex: nextIndex };
      r.state = state;
      if (stopReason) r.stopReason = stopReason;
      if (f.end?.error) r.error = f.end.error;
      if (f.end) r.pendingSteers = [];
    }, now);
    return { created, run: r };
  });
  for (const n of out.created) emitCommitted(ctx, n);
  return out.run.state === 'completed' || out.run.state === 'failed' ? 'ended' : 'continue';
}
