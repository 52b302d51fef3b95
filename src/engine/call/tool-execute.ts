import { stepMark } from '../../util/step-marks';
import { RECORD_VERSION, type PreparedToolCall } from '../../store/records';
import type { ToolCallContext, ToolResult, ToolTarget } from '../../tools/types';
import { RunAborted, type EngineContext } from '../host/engine-context';
import type { StepOutcome } from '../run/step-outcome';
import { interactionEvent } from '../views/thread-view';
import { errorText, text, upsertCallNode } from '../run/tool-call-node';
import { finishCall } from './tool-finish';
import { startedCall } from './prepared-call';
import { retryDecision } from './tool-retry';
import { beginHeldApproval } from './tool-park';
import { receiverGate } from '../../gatekeeper/receiver';
import { moveRun } from '../run/run-edges';
import { Finishes } from './call-finish';
import type { CallInFlight } from './call-in-flight';

/**
 * Run one tool call: commit phase 'executing' first (so a restart knows the call may have had an
 * effect), execute with the run's signal, a bound, progress and mid-call interactions, then commit
 * its result.
 */
export async function execute(
  ctx: EngineContext,
  c: CallInFlight,
  o: { target: ToolTarget; prev: PreparedToolCall | undefined },
): Promise<StepOutcome> {
  const { run, call, reg, params, info: tctx, signal } = c;
  const { target, prev } = o;
  stepMark('tool_start.commit');
  await ctx.commit('tool_start', async (outbox) => {
    const now = ctx.clock.now();
    await upsertCallNode(ctx, c, 'executing', outbox);
    await ctx.store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'execute', 'executing_tool');
        r.pendingTool = startedCall(
          prev,
          { toolCallId: call.id, nodeId: call.nodeId, name: call.name },
          params,
          target,
        );
      },
      now,
    );
  });
  stepMark('tool_start.committed');
  await ctx.boundary('tool:running');

  // The gate the executor asks at the moment of effect: the rules as they are now, and the
  // receivers the user approved for this call (docs/permissions.md).
  // Read again before every retry: a rule the user changes during the backoff (a site blocked)
  // holds for the next attempt, which is a new moment of effect.
  const gateNow = async () =>
    receiverGate({
      descriptor: reg.descriptor,
      approvalMode: run.env!.approvalMode,
      ...(run.env!.approvedPlan ? { plan: run.env!.approvedPlan } : {}),
      rules: new Map((await ctx.store.siteRules.list()).map((r) => [r.origin, r.rule])),
      covered: prev?.grants ?? [],
    });
  let progress = '';
  const liveCtx: ToolCallContext = {
    ...tctx,
    gate: await gateNow(),
    ...(prev?.resume !== undefined ? { resume: prev.resume } : {}),
    requestInteraction: async (kind, payload) => {
      const interactionId = ctx.ids.next('int');
      await ctx.commit('interaction_live', async (outbox) => {
        const now = ctx.clock.now();
        const r = {
          v: RECORD_VERSION,
          interactionId,
          threadId: run.threadId,
          runId: run.runId,
          toolCallId: call.id,
          nodeId: call.nodeId,
          kind,
          payload,
          status: 'pending' as const,
          createdAt: now,
        };
        await ctx.store.interactions.put(r);
        const moved = await ctx.store.runs.update(
          run.runId,
          (x) => {
            moveRun(x, 'execute', 'waiting_interaction');
            if (x.pendingTool) x.pendingTool.interactionId = interactionId;
          },
          now,
        );
        outbox.emit(interactionEvent(r));
        outbox.emit({
          type: 'run.updated',
          threadId: run.threadId,
          runId: run.runId,
          state: moved.state,
        });
      });
      return ctx.waiters.wait(interactionId, signal);
    },
  };
  // Transient failures of a retry-safe tool are retried here, before the model sees an error
  // (spec/004); each attempt gets the full bound. Every attempt is reported on the card.
  let result: ToolResult;
  let attempt = 1;
  for (;;) {
    stepMark('tool.execute');
    const out = await attemptOnce(ctx, c, liveCtx, (p) => {
      progress = p;
      ctx.emit({
        type: 'item.delta',
        threadId: run.threadId,
        itemId: call.nodeId,
        delta: { toolProgress: p },
      });
    });
    if (out.kind === 'aborted') throw new RunAborted(progress);
    if (out.kind === 'result') {
      result = out.result;
      break;
    }
    const next = retryDecision({
      recovery: reg.descriptor.recovery,
      attempt,
      error: out.error,
      policy: ctx.options.toolRetry,
    });
    if (next.kind === 'give_up') {
      const why = errorText(out.error);
      result = {
        content: text(attempt > 1 ? `${why} (after ${attempt} attempts)` : why),
        isError: true,
      };
      break;
    }
    ctx.emit({
      type: 'item.delta',
      threadId: run.threadId,
      itemId: call.nodeId,
      delta: {
        toolProgress: `Retrying (attempt ${next.nextAttempt} of ${ctx.options.toolRetry.maxAttempts}): ${errorText(out.error)}`,
      },
    });
    try {
      await ctx.options.sleep(next.delayMs, signal);
    } catch {
      throw new RunAborted(progress);
    }
    if (signal.aborted) throw new RunAborted(progress);
    // The retry is a new moment of effect, judged like a dispatch on the rules as they are now:
    // a site blocked while it waited refuses it; a rule taken back (allow → ask) holds it and
    // asks, through the same path as a receiver the gate held. What the call was approved for
    // still covers it (its grants): the retry is the same call, on the same target.
    liveCtx.gate = await gateNow();
    const again = liveCtx.gate.check(target, 'input');
    if (again.kind === 'deny') {
      const denied = Finishes.denied(`Not retried after a transient failure: ${again.reason}`);
      return finishCall(ctx, c, { ...denied, attempts: attempt });
    }
    if (again.kind === 'hold') {
      const where = target.origin ?? target.url ?? 'this page';
      result = {
        content: text(`Stopped before retrying ${call.name} on ${where}.`),
        held: {
          target,
          what: `retry ${reg.descriptor.label} on ${where} (the site's rule changed while it waited)`,
          partial: `attempt ${attempt} failed: ${errorText(out.error)}`,
        },
      };
      break;
    }
    attempt = next.nextAttempt;
  }
  stepMark('tool.returned');
  await ctx.boundary('tool:returned');
  if (result.held) {
    // Nothing (more) reached the receiver: ask about it. The call is parked, not finished.
    const executing = (await ctx.store.runs.get(run.runId))?.pendingTool;
    if (executing?.toolCallId === call.id && executing.descriptorDigest)
      return beginHeldApproval(
        ctx,
        { ...c, dDigest: executing.descriptorDigest },
        executing,
        result.held,
      );
    result = {
      content: text(`Stopped before ${result.held.what}; Keel could not ask you about it.`),
      isError: true,
    };
  }
  const o2 = { details: result.details, attempts: attempt };
  return finishCall(
    ctx,
    c,
    result.isError ? Finishes.failed(result.content, o2) : Finishes.done(result.content, o2),
  );
}

type Attempt =
  | { kind: 'result'; result: ToolResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' };

/** One execution of the tool under the run's signal and the engine's bound. Never throws. */
async function attemptOnce(
  ctx: EngineContext,
  c: CallInFlight,
  liveCtx: ToolCallContext,
  onProgress: (p: string) => void,
): Promise<Attempt> {
  const { reg, call, params, signal } = c;
  const callAbort = new AbortController();
  const onRunAbort = () => callAbort.abort(signal.reason);
  signal.addEventListener('abort', onRunAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbortReject: (() => void) | undefined;
  try {
    // MCP calls keep their own deadline, reset by progress and paused while the user answers an
    // elicitation; every other tool gets the engine's fixed bound.
    const timeout = new Promise<never>((_, reject) => {
      if (reg.descriptor.level === 'mcp') return;
      timer = setTimeout(() => {
        callAbort.abort(new Error('timeout'));
        reject(
          new Error(
            `The tool did not finish within ${Math.round(ctx.options.toolTimeoutMs / 1000)} s and was stopped.`,
          ),
        );
      }, ctx.options.toolTimeoutMs);
    });
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new RunAborted());
      onAbortReject = () => reject(new RunAborted());
      signal.addEventListener('abort', onAbortReject, { once: true });
    });
    const result = await Promise.race([
      reg.tool.execute(
        call.id,
        params,
        callAbort.signal,
        (u) => onProgress(u.progressText),
        liveCtx,
      ),
      timeout,
      aborted,
    ]);
    return { kind: 'result', result };
  } catch (e) {
    if (e instanceof RunAborted || signal.aborted) return { kind: 'aborted' };
    return { kind: 'error', error: e };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onRunAbort);
    if (onAbortReject) signal.removeEventListener('abort', onAbortReject);
  }
}
