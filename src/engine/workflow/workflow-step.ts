/**
 * One step of a workflow run without the model (src/workflows/replay.ts decides): commit a
 * synthetic assistant message with one tool call (a fresh snapshot, or the step's action on the
 * element that snapshot resolved to) and let the ordinary tool step run it — same tools, same
 * Gatekeeper, same approvals, same durability. After a divergence the rest goes to the model with
 * the workflow as its plan, or the run stops saying which step diverged and why.
 */
import type { Item } from '../../protocol';
import type { PlannedToolCall, RunRecord } from '../../store/records';
import {
  advance,
  decideReplay,
  followTab,
  handoffPrompt,
  OPEN_TOOL,
  rewind,
  SNAPSHOT_TOOL,
  withReplayTab,
  type CallResult,
  type ReplayDecision,
  type ReplayState,
} from '../../workflows/replay';
import { snapshotOutlineOf } from '../../workflows/outline';
import type { EngineContext } from '../host/engine-context';
import { REPLAY_ONLY_TRANSPORT } from '../env/environment';
import { LeafWriter } from '../run/leaf-writer';
import { commitEnd } from '../run/run-end';
import { moveRun } from '../run/run-edges';
import type { StepOutcome } from '../run/step-outcome';

/** The run can hand a divergence to a model. */
export function hasModel(run: Pick<RunRecord, 'env'>): boolean {
  return Boolean(
    run.env && run.env.transport.kind !== REPLAY_ONLY_TRANSPORT && run.env.modelInfo.toolUse,
  );
}

async function resultOf(
  ctx: EngineContext,
  run: RunRecord,
  callId: string,
): Promise<CallResult | undefined> {
  const thread = await ctx.store.threads.get(run.threadId);
  const path = await ctx.store.threads.path(run.threadId, thread?.leafId ?? null);
  for (let i = path.length - 1; i >= 0; i--) {
    const item = path[i].item;
    if (item.kind !== 'tool_result' || item.toolCallId !== callId) continue;
    const text = item.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    const d =
      item.details && typeof item.details === 'object'
        ? (item.details as { urlAfter?: string; tabId?: unknown })
        : {};
    const notRun = item.outcome === 'interrupted' && text.startsWith('Not executed');
    const tabId = typeof d.tabId === 'number' ? d.tabId : undefined;
    const outline = snapshotOutlineOf(item.details);
    return {
      // 'marked_done': the user checked that an action cut off by a worker stop did happen.
      ok: item.ok && ['ok', 'marked_done'].includes(item.outcome ?? 'ok'),
      text,
      ...(d.urlAfter ? { url: d.urlAfter } : {}),
      ...(notRun ? { notRun } : {}),
      ...(tabId !== undefined ? { tabId } : {}),
      ...(outline ? { outline } : {}),
    };
  }
  return undefined;
}

export async function replayStep(ctx: EngineContext, runId: string): Promise<StepOutcome> {
  const run0 = await ctx.store.runs.get(runId);
  if (!run0?.workflow || run0.state !== 'streaming_model') return 'ended';
  let wf: ReplayState = run0.workflow;
  if (run0.pendingSteers.length)
    return handOff(
      ctx,
      run0,
      wf,
      {
        kind: 'diverged',
        step: wf.next + 1,
        reason: 'page_differs',
        message: 'The user sent a message during the replay.',
      },
      { steered: true },
    );
  let last = wf.awaiting ? await resultOf(ctx, run0, wf.awaiting.callId) : undefined;
  if (last?.notRun) {
    wf = rewind(wf);
    last = undefined;
  }
  wf = followTab(wf, last);
  const d = decideReplay(wf, last);
  if (d.kind === 'diverged') return handOff(ctx, run0, wf, d, { steered: false, lastOk: last?.ok });
  if (d.kind === 'done') return finish(ctx, run0, wf, d, last?.ok);
  const name = d.kind === 'observe' ? SNAPSHOT_TOOL : d.kind === 'open' ? OPEN_TOOL : d.tool;
  const args =
    d.kind === 'observe' ? {} : d.kind === 'open' ? { url: d.url, active: true } : d.params;
  const call: PlannedToolCall = {
    id: ctx.ids.next('wfc'),
    nodeId: ctx.ids.next('n'),
    name,
    args: withReplayTab(wf, name, args),
  };
  const steps = wf.definition.steps.length;
  const label =
    d.kind === 'observe'
      ? wf.next >= steps
        ? 'Checking the final page.'
        : `Step ${wf.next + 1} of ${steps}: reading the page.`
      : d.kind === 'open'
        ? `This tab shows another page; opening the workflow's start page ${d.url}.`
        : `Step ${d.step} of ${steps}: ${wf.definition.steps[d.step - 1].summary}.`;
  const stepped = await ctx.commit('replay_step', async (outbox) => {
    const run = await ctx.store.runs.get(runId);
    if (!run || run.state !== 'streaming_model') return false;
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, run, outbox);
    const assistantId = ctx.ids.next('n');
    const item: Item = {
      kind: 'assistant_message',
      id: assistantId,
      createdAt: now,
      text: label,
      providerStopReason: 'tool_use',
      toolCalls: [{ id: call.id, name: call.name, args: call.args }],
    };
    await w.append(item);
    await w.finish(now);
    await ctx.store.runs.update(
      runId,
      (r) => {
        r.workflow = advance(wf, d, call.id, last?.ok);
        r.stepCursor = {
          ...r.stepCursor,
          assistantNodeId: assistantId,
          toolCalls: [call],
          nextToolIndex: 0,
        };
        moveRun(r, 'decideReplay', 'executing_tool');
      },
      now,
    );
    return true;
  });
  if (!stepped) return 'ended';
  return 'continue';
}

async function finish(
  ctx: EngineContext,
  run0: RunRecord,
  wf: ReplayState,
  d: ReplayDecision,
  lastOk: boolean | undefined,
): Promise<StepOutcome> {
  await ctx.commit('replay_done', async (outbox) => {
    const run = (await ctx.store.runs.get(run0.runId))!;
    const next = advance(wf, d, undefined, lastOk);
    const w = await LeafWriter.open(ctx, run, outbox);
    const now = ctx.clock.now();
    await w.append({
      kind: 'assistant_message',
      id: ctx.ids.next('n'),
      createdAt: now,
      text: `Workflow done: ${next.replayed} of ${wf.definition.steps.length} steps replayed without the model, and the last page shows what the workflow expects.`,
      providerStopReason: 'end',
    });
    await commitEnd(
      ctx,
      w,
      run,
      { by: 'decideReplay', to: 'completed', stopReason: 'end' },
      { run: (r) => void (r.workflow = next) },
    );
  });
  return 'ended';
}

/** A divergence (or a steer): the model takes the rest with the workflow as its plan, or the run stops. */
async function handOff(
  ctx: EngineContext,
  run0: RunRecord,
  wf: ReplayState,
  d: Extract<ReplayDecision, { kind: 'diverged' }>,
  why: { steered: boolean; lastOk?: boolean },
): Promise<StepOutcome> {
  const { steered, lastOk } = why;
  const toModel = hasModel(run0) && (wf.fallback === 'model' || steered);
  await ctx.commit('replay_diverged', async (outbox) => {
    const run = (await ctx.store.runs.get(run0.runId))!;
    const next: ReplayState = steered
      ? { ...wf, mode: 'model' }
      : { ...advance(wf, d, undefined, lastOk), mode: toModel ? 'model' : 'replay' };
    const w = await LeafWriter.open(ctx, run, outbox);
    const now = ctx.clock.now();
    if (toModel) {
      await w.notice(
        steered ? 'workflow_steered' : 'workflow_diverged',
        handoffPrompt(next, d.message),
        true,
      );
      await w.finish(now);
      await ctx.store.runs.update(
        run.runId,
        (r) => {
          // The run stays with the model; the edge is asserted like any other.
          moveRun(r, 'decideReplay', 'streaming_model');
          r.workflow = next;
        },
        now,
      );
      return;
    }
    const why = hasModel(run0) ? '' : ' No model is configured to take over.';
    await commitEnd(
      ctx,
      w,
      run,
      {
        by: 'decideReplay',
        to: 'failed',
        stopReason: 'error',
        error: {
          code: 'workflow_diverged',
          message: `The workflow stopped at step ${d.step}: ${d.message}`,
        },
        notice: {
          code: 'workflow_diverged',
          text: `The workflow stopped at step ${d.step}: ${d.message}${why} Fix the page and continue, or run the task with the model.`,
        },
      },
      { run: (r) => void (r.workflow = next) },
    );
  });
  return toModel ? 'continue' : 'ended';
}
