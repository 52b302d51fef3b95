import { stepMark } from '../../util/step-marks';
import type { Item } from '../../protocol';
import { jsonDepthError } from '../../tools/argument-depth';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../../store/records';
import { closeRemainingCalls } from '../run/close-calls';
import type { EngineContext } from '../host/engine-context';
import { LeafWriter } from '../run/leaf-writer';
import type { StreamResult } from './model-stream';
import { detectIntent, stripIntentTags } from './planning';
import { afterAssistant, type End, type ModelAgain } from '../run/run-machine';
import { commitEnd } from '../run/run-end';
import { moveRun } from '../run/run-edges';
import { currentRound, type StepOutcome } from '../run/step-outcome';
import { callIdsOnPath, repairToolCallIds } from './tool-call-ids';
import { addUsage, costOf } from './usage';

export { turnStopReason } from '../run/run-machine';

function parseArgs(raw: string): { args: unknown; rawArgs?: string } {
  if (!raw.trim()) return { args: {} };
  // Too deep to parse, store and digest safely: kept raw, and refused as invalid (tool-step).
  if (jsonDepthError(raw)) return { args: {}, rawArgs: raw };
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { args: v };
    return { args: {}, rawArgs: raw };
  } catch {
    return { args: {}, rawArgs: raw };
  }
}

/**
 * Commit a finished model message with its usage and the run's next state, in one transaction:
 * the transition is `afterAssistant` (pure), decided on the run as read in this transaction, so a
 * steer admitted while the message streamed is seen. Tool calls run only from a `tool_use`
 * message; calls from any other message are closed before any side effect (spec/001 §2).
 */
export async function commitAssistant(
  ctx: EngineContext,
  run0: RunRecord,
  assistantId: string,
  res: StreamResult,
  path: NodeRecord[],
): Promise<StepOutcome> {
  const { store } = ctx;
  const env = run0.env!;
  const used = res.calls.length ? callIdsOnPath(path) : new Set<string>();
  const planned: PlannedToolCall[] = repairToolCallIds(
    res.calls.map((c) => ({ id: c.id, name: c.name, nodeId: c.nodeId, ...parseArgs(c.args) })),
    used,
    ctx.ids,
  );
  const stop = res.stop!;
  const cost = costOf(res.usage, env.modelInfo.pricing);
  const round = currentRound(run0);
  const intent = round === 'plan' ? detectIntent(res.text) : null;
  const shownText = round ? stripIntentTags(res.text) : res.text;

  stepMark('assistant.commit');
  const out = await ctx.commit('assistant', async (outbox) => {
    const run = (await store.runs.get(run0.runId))!;
    const now = ctx.clock.now();
    const item: Item = {
      kind: 'assistant_message',
      id: assistantId,
      createdAt: now,
      text: shownText,
      ...(round ? { round } : {}),
      ...(res.thinking ? { thinking: res.thinking } : {}),
      ...(res.thinkingParts.length ? { thinkingParts: res.thinkingParts } : {}),
      providerStopReason: stop,
      usage: res.usage,
      model: env.model,
      providerId: env.providerId,
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(planned.length ? { toolCalls: planned.map(({ nodeId: _n, ...c }) => c) } : {}),
    };
    const w = await LeafWriter.open(ctx, run, outbox);
    await w.append(item);
    const transition = afterAssistant({
      round,
      stop,
      callCount: planned.length,
      toolsDisabled: run.counters.toolsDisabled,
      pendingSteers: run.pendingSteers.length,
      intent,
    });
    let next: ModelAgain | End | { kind: 'execute_tools'; to: 'executing_tool' };
    if (transition.kind === 'close_calls') {
      await closeRemainingCalls(
        ctx,
        w,
        run,
        planned.map((call) => ({ call, why: transition.why })),
        { assistantId },
      );
      next = transition.next;
    } else {
      next = transition;
    }
    const usage = (r: RunRecord) => {
      r.usage = addUsage(r.usage, res.usage);
      r.costUsd += cost ?? 0;
      r.counters.modelAttempts = 0;
      r.stepCursor = {
        ...r.stepCursor,
        modelCalls: r.stepCursor.modelCalls + 1,
        assistantNodeId: assistantId,
        toolCalls: next.kind === 'execute_tools' ? planned : [],
        nextToolIndex: 0,
      };
      if (next.kind === 'model_again' && next.round) r.stepCursor.round = next.round;
      else delete r.stepCursor.round;
    };
    const threadUsage = (t: { usage: RunRecord['usage']; costUsd: number }) => {
      t.usage = addUsage(t.usage, res.usage);
      t.costUsd += cost ?? 0;
    };
    if (next.kind === 'end') {
      const ended = await commitEnd(
        ctx,
        w,
        run,
        {
          by: 'afterAssistant',
          to: next.to,
          stopReason: next.stopReason,
          ...(next.error ? { error: next.error } : {}),
        },
        { run: usage, thread: threadUsage },
      );
      return { run: ended.run, thread: ended.thread };
    }
    const t = await w.finish(now, threadUsage);
    const r = await store.runs.update(
      run.runId,
      (r) => {
        usage(r);
        moveRun(r, 'afterAssistant', next.to);
      },
      now,
    );
    return { run: r, thread: t };
  });
  stepMark('assistant.committed');
  ctx.emit({
    type: 'token.usage',
    threadId: out.run.threadId,
    runId: out.run.runId,
    usage: res.usage,
    turnUsage: out.run.usage,
    ...(cost !== undefined ? { costUsd: cost, turnCostUsd: out.run.costUsd } : {}),
    threadUsage: out.thread.usage,
    threadCostUsd: out.thread.costUsd,
  });
  return out.run.state === 'executing_tool' || out.run.state === 'streaming_model'
    ? 'continue'
    : 'ended';
}
