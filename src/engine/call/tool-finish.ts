import { stepMark } from '../../util/step-marks';
import type { PlannedToolCall, RunRecord } from '../../store/records';
import type { RegisteredTool } from '../../tools/registry';
import { closeRemainingCalls } from '../run/close-calls';
import type { EngineContext } from '../host/engine-context';
import { LeafWriter } from '../run/leaf-writer';
import {
  afterToolResult,
  isTerminal,
  DISABLE_AFTER,
  WARN_AFTER,
  type End,
  type FailureEffect,
} from '../run/run-machine';
import { commitEnd } from '../run/run-end';
import { moveRun } from '../run/run-edges';
import type { StepOutcome } from '../run/step-outcome';
import { upsertCallNode } from '../run/tool-call-node';
import type { Finish } from './call-finish';
import { cutoffWithResult } from '../model/step-cutoff';

export type { FailureEffect };
export type { Finish };

/**
 * Record a call's outcome: tool_call state + tool_result + breaker counters + cursor, in one
 * transaction. The transition is `afterToolResult` (pure): 3 consecutive failures add a notice
 * asking the model to change approach; 5 disable tools for one final reply (spec/001 §1).
 */
export async function finishCall(
  ctx: EngineContext,
  c: { run: RunRecord; call: PlannedToolCall; reg: RegisteredTool | undefined },
  f: Finish,
  extra: { interactionId?: string } = {},
): Promise<StepOutcome> {
  const { run: run0, call, reg } = c;
  stepMark('result.commit');
  const out = await ctx.commit('tool_result', async (outbox) => {
    const now = ctx.clock.now();
    const run = (await ctx.store.runs.get(run0.runId))!;
    const params = run.pendingTool?.toolCallId === call.id ? run.pendingTool.params : call.args;
    const w = await LeafWriter.open(ctx, run, outbox);
    await upsertCallNode(ctx, { run, call, reg, params }, f.callState, w);
    const d = reg?.descriptor;
    await w.append({
      kind: 'tool_result',
      id: ctx.ids.next('n'),
      createdAt: now,
      toolCallId: call.id,
      name: call.name,
      ok: f.ok,
      outcome: f.outcome,
      content: f.content,
      ...(f.details !== undefined ? { details: f.details } : {}),
      ...(f.attempts && f.attempts > 1 ? { attempts: f.attempts } : {}),
      // A failed page or MCP call can quote the page too (an element's label, a server message).
      ...(d && !d.trusted && (f.outcome === 'ok' || f.outcome === 'error')
        ? { untrusted: true }
        : {}),
      ...(d?.visibility === 'internal' ? { visibility: 'internal' } : {}),
    });
    if (extra.interactionId) {
      const i = await ctx.store.interactions.get(extra.interactionId);
      if (i) await ctx.store.interactions.put({ ...i, status: 'claimed' });
    }
    const end: End | undefined = f.end
      ? {
          kind: 'end',
          to: f.end.state,
          stopReason: f.end.stopReason,
          ...(f.end.error ? { error: f.end.error } : {}),
        }
      : undefined;
    const t = afterToolResult({
      failure: f.failure,
      consecutiveFailures: run.counters.consecutiveToolFailures,
      toolsDisabled: run.counters.toolsDisabled,
      index: run.stepCursor.nextToolIndex,
      total: run.stepCursor.toolCalls.length,
      ...(end ? { end } : {}),
    });
    if (t.warn) {
      await w.notice(
        'tool_failures_warning',
        `${WARN_AFTER} tool calls in a row have failed. Stop repeating what does not work: re-read the page (take a new snapshot) and try a different approach, or ask the user.`,
        true,
      );
    }
    if (t.disabledNow) {
      await w.notice(
        'tools_disabled',
        `${DISABLE_AFTER} tool calls in a row have failed, so tools are now disabled. Reply to the user without tools: say what you tried, what failed and what they could do.`,
        true,
      );
    }
    const next = t.kind === 'close_calls' ? t.next : t;
    if (t.kind === 'close_calls') {
      const rest = run.stepCursor.toolCalls.slice(run.stepCursor.nextToolIndex + 1);
      await closeRemainingCalls(
        ctx,
        w,
        run,
        rest.map((c) => ({ call: c, why: t.why })),
      );
    }
    const cursor = (r: RunRecord) => {
      r.pendingTool = undefined;
      r.counters.consecutiveToolFailures = t.failures;
      r.counters.toolsDisabled = t.toolsDisabled;
      r.stepCursor = {
        ...r.stepCursor,
        nextToolIndex:
          next.kind === 'next_call'
            ? r.stepCursor.nextToolIndex + 1
            : r.stepCursor.toolCalls.length,
      };
    };
    if (next.kind === 'end') {
      const { run: r } = await commitEnd(
        ctx,
        w,
        run,
        {
          by: 'afterToolResult',
          to: next.to,
          stopReason: next.stopReason,
          ...(next.error ? { error: next.error } : {}),
          ...(f.end ? { notice: f.end.notice } : {}),
        },
        { run: cursor },
      );
      return { run: r };
    }
    // The batch is done: the next request's cutoff goes in this commit (step-cutoff.ts).
    const cutoff = next.to === 'streaming_model' ? await cutoffWithResult(ctx, w, run) : null;
    await w.finish(now);
    const r = await ctx.store.runs.update(
      run.runId,
      (r) => {
        cursor(r);
        moveRun(r, 'afterToolResult', next.to);
        cutoff?.apply(r);
      },
      now,
    );
    return { run: r, cutoff };
  });
  if ('cutoff' in out && out.cutoff) out.cutoff.remember(out.run);
  stepMark('result.committed');
  return isTerminal(out.run.state) ? 'ended' : 'continue';
}
