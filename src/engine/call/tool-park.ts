import { approvalDigest } from '../../gatekeeper/approval-digest';
import { ALL_DECISIONS, decideVerdict, permissionKey } from '../../gatekeeper/verdict';
import type { Decision } from '../../protocol';
import {
  RECORD_VERSION,
  type HeldReceiver,
  type PreparedToolCall,
  type RunRecord,
} from '../../store/records';
import type { HeldEffect, ToolTarget } from '../../tools/types';
import type { EngineContext } from '../host/engine-context';
import type { StepOutcome } from '../run/step-outcome';
import { approvalEvent, interactionEvent } from '../views/thread-view';
import { upsertCallNode } from '../run/tool-call-node';
import { moveRun } from '../run/run-edges';
import { lookAtTab, releasePage } from '../run/page-hand-over';
import type { CallInFlight } from './call-in-flight';

/**
 * Parking a run on the user: an approval (the Gatekeeper asked) or an interaction (ask_user).
 * The request, the tool_call node and the run's phase commit together, so a restart re-shows it.
 */

export async function beginApproval(
  ctx: EngineContext,
  c: CallInFlight,
  ask: {
    target: ToolTarget;
    reason: string;
    /** The call as judged before (a re-ask after drift keeps its attempts). */
    prev: PreparedToolCall | undefined;
    options?: Decision[];
  },
): Promise<StepOutcome> {
  const { call, reg, params, dDigest } = c;
  const { target, reason, prev, options = ALL_DECISIONS } = ask;
  const key = permissionKey(reg.descriptor, target);
  const ruleRec = key ? await ctx.store.siteRules.get(key) : undefined;
  const digest = await approvalDigest(dDigest, params, target.origin);
  return parkOnApproval(ctx, c, {
    target,
    reason,
    digest,
    options,
    pending: (approvalId) => ({
      toolCallId: call.id,
      nodeId: call.nodeId,
      name: call.name,
      params,
      phase: 'awaiting_approval',
      approvalId,
      target,
      approvalDigest: digest,
      ruleVersion: ruleRec?.version ?? 0,
      descriptorDigest: dDigest,
      attempts: prev?.attempts ?? 0,
    }),
  });
}

/**
 * The executor held an effect at the moment of effect (`ToolResult.held`): ask about the real
 * receiver. The call keeps its own judgement (target, rule version, digest, the receivers already
 * approved); the request names the receiver, and an approval adds it to the call's grants
 * (`decidedCall`). The options are the receiver's own verdict's (once-only when it must always ask).
 */
export async function beginHeldApproval(
  ctx: EngineContext,
  c0: CallInFlight,
  executing: PreparedToolCall,
  held: HeldEffect,
): Promise<StepOutcome> {
  const c = { ...c0, params: executing.params };
  const { run, call, reg, params, dDigest } = c;
  const receiver = held.target;
  const key = permissionKey(reg.descriptor, receiver);
  const rule = key ? (await ctx.store.siteRules.get(key))?.rule : undefined;
  const verdict = decideVerdict({
    descriptor: reg.descriptor,
    target: receiver,
    rule,
    approvalMode: run.env!.approvalMode,
    ...(run.env!.approvedPlan ? { plan: run.env!.approvedPlan } : {}),
  });
  const options = verdict.kind === 'ask' ? verdict.options : ALL_DECISIONS;
  const judged = executing.target ?? {};
  const callDigest =
    executing.approvalDigest ?? (await approvalDigest(dDigest, params, judged.origin));
  const heldDigest = await approvalDigest(dDigest, params, receiver.origin);
  const holding: HeldReceiver = {
    target: receiver,
    what: clip(held.what, 500),
    ...(held.partial ? { partial: clip(held.partial, 500) } : {}),
    ...(held.resume !== undefined && boundedJson(held.resume) ? { resume: held.resume } : {}),
  };
  return parkOnApproval(ctx, c, {
    target: receiver,
    reason: `held:${holding.what}`,
    digest: heldDigest,
    options,
    pending: (approvalId) => ({
      toolCallId: call.id,
      nodeId: call.nodeId,
      name: call.name,
      params,
      phase: 'awaiting_approval',
      approvalId,
      target: judged,
      approvalDigest: callDigest,
      ruleVersion: executing.ruleVersion ?? 0,
      descriptorDigest: dDigest,
      attempts: executing.attempts,
      ...(executing.grants ? { grants: executing.grants } : {}),
      holding,
    }),
  });
}

interface ApprovalAsk {
  /** What the request names (the judged target, or a held receiver). */
  target: ToolTarget;
  reason: string;
  digest: string;
  options: Decision[];
  /** The run's pendingTool while it waits, given the new approval's id. */
  pending(approvalId: string): PreparedToolCall;
}

/** The request, the tool_call node and the run's phase commit together, so a restart re-shows it. */
async function parkOnApproval(
  ctx: EngineContext,
  c: CallInFlight,
  ask: ApprovalAsk,
): Promise<StepOutcome> {
  const { run, call, reg, params } = c;
  const key = permissionKey(reg.descriptor, ask.target);
  const approvalId = ctx.ids.next('apr');
  // "Always allow on this site" needs a site to allow.
  const opts = key ? ask.options : ask.options.filter((o) => o !== 'allow_site');
  await ctx.commit('approval', async (outbox) => {
    const now = ctx.clock.now();
    await upsertCallNode(ctx, c, 'approval_required', outbox);
    const rec = {
      v: RECORD_VERSION,
      approvalId,
      threadId: run.threadId,
      runId: run.runId,
      toolCallId: call.id,
      nodeId: call.nodeId,
      tool: {
        name: reg.descriptor.name,
        label: reg.descriptor.label,
        level: reg.descriptor.level,
        effects: reg.descriptor.effects,
        ...(reg.descriptor.binding.kind === 'page' && reg.descriptor.binding.readOnlyHint
          ? { pageClaimsReadOnly: true }
          : {}),
      },
      params,
      target: ask.target,
      options: opts,
      reason: ask.reason,
      digest: ask.digest,
      status: 'pending' as const,
      createdAt: now,
    };
    await ctx.store.approvals.put(rec);
    const r = await ctx.store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'parkOnApproval', 'waiting_approval');
        r.pendingTool = ask.pending(approvalId);
      },
      now,
    );
    outbox.emit(approvalEvent(rec));
    outbox.emit({ type: 'run.updated', threadId: run.threadId, runId: run.runId, state: r.state });
  });
  return 'parked';
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A tool's resume value is kept only when it is small JSON (it is stored with the run). */
function boundedJson(v: unknown): boolean {
  try {
    const json = JSON.stringify(v);
    return json !== undefined && json.length <= 4096;
  } catch {
    return false;
  }
}

export async function beginInteraction(ctx: EngineContext, c: CallInFlight): Promise<StepOutcome> {
  const { run, call, reg, params } = c;
  const prep = reg.tool.interaction!;
  const payload = prep.prepare(params);
  const interactionId = ctx.ids.next('int');
  // A hand-over (request_takeover) records how the tab looks as the agent leaves it, for the
  // fresh look when the user is done (looked at before the commit: an effect).
  const handOver = prep.kind === 'takeover';
  const look = handOver ? await lookAtTab(ctx, takeoverTab(payload, run)) : undefined;
  await ctx.commit('interaction', async (outbox) => {
    const now = ctx.clock.now();
    await upsertCallNode(ctx, c, 'executing', outbox);
    const rec = {
      v: RECORD_VERSION,
      interactionId,
      threadId: run.threadId,
      runId: run.runId,
      toolCallId: call.id,
      nodeId: call.nodeId,
      kind: prep.kind,
      payload,
      status: 'pending' as const,
      createdAt: now,
    };
    await ctx.store.interactions.put(rec);
    const r = await ctx.store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'beginInteraction', 'waiting_interaction');
        r.pendingTool = {
          toolCallId: call.id,
          nodeId: call.nodeId,
          name: call.name,
          params,
          phase: 'awaiting_interaction',
          interactionId,
          attempts: 0,
        };
        if (look) r.pageAtHandOver = look;
        else if (handOver) delete r.pageAtHandOver;
      },
      now,
    );
    outbox.emit(interactionEvent(rec));
    outbox.emit({ type: 'run.updated', threadId: run.threadId, runId: run.runId, state: r.state });
  });
  // The agent lets go of the page while the user acts (no debugger bar).
  if (handOver) await releasePage(ctx, run);
  return 'parked';
}

/** The tab a hand-over gives the user: the one the model named, else the turn's tab. */
export function takeoverTab(payload: unknown, run: Pick<RunRecord, 'tabId'>): number | undefined {
  const named = (payload as { tabId?: unknown } | null)?.tabId;
  return typeof named === 'number' ? named : run.tabId;
}
