import { approvalDigest } from '../gatekeeper/approval-digest';
import { permissionKey } from '../gatekeeper/verdict';
import {
  RECORD_VERSION,
  type PlannedToolCall,
  type PreparedToolCall,
  type RunRecord,
} from '../store/records';
import type { RegisteredTool } from '../tools/registry';
import type { ToolTarget } from '../tools/types';
import type { EngineContext } from './context';
import type { StepOutcome } from './step-outcome';
import { emitCommitted } from './nodes';
import { approvalEvent, interactionEvent } from './thread-view';
import { upsertCallNode } from './tool-call-node';

/**
 * Parking a run on the user: an approval (the Gatekeeper asked) or an interaction (ask_user).
 * The request, the tool_call node and the run's phase commit together, so a restart re-shows it.
 */

export async function beginApproval(
  ctx: EngineContext,
  run: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool,
  params: unknown,
  target: ToolTarget,
  dDigest: string,
  reason: string,
  prev: PreparedToolCall | undefined,
  options = ['allow_once', 'allow_site', 'deny', 'deny_stop'] as (
    | 'allow_once'
    | 'allow_site'
    | 'deny'
    | 'deny_stop'
  )[],
): Promise<StepOutcome> {
  const key = permissionKey(reg.descriptor, target);
  const ruleRec = key ? await ctx.store.siteRules.get(key) : undefined;
  const digest = await approvalDigest(dDigest, params, target.origin);
  const approvalId = ctx.ids.next('apr');
  // "Always allow on this site" needs a site to allow.
  const opts = key ? options : options.filter((o) => o !== 'allow_site');
  const out = await ctx.commit('approval', async () => {
    const now = ctx.clock.now();
    const node = await upsertCallNode(ctx, run, call, reg, params, 'approval_required');
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
      },
      params,
      target,
      options: opts,
      reason,
      digest,
      status: 'pending' as const,
      createdAt: now,
    };
    await ctx.store.approvals.put(rec);
    const r = await ctx.store.runs.update(
      run.runId,
      (r) => {
        r.state = 'waiting_approval';
        r.pendingTool = {
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
        };
      },
      now,
    );
    return { node, rec, run: r };
  });
  emitCommitted(ctx, out.node);
  ctx.emit(approvalEvent(out.rec));
  ctx.emit({
    type: 'run.updated',
    threadId: run.threadId,
    runId: run.runId,
    state: 'waiting_approval',
  });
  return 'parked';
}

export async function beginInteraction(
  ctx: EngineContext,
  run: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool,
  params: unknown,
): Promise<StepOutcome> {
  const prep = reg.tool.interaction!;
  const payload = prep.prepare(params);
  const interactionId = ctx.ids.next('int');
  const out = await ctx.commit('interaction', async () => {
    const now = ctx.clock.now();
    const node = await upsertCallNode(ctx, run, call, reg, params, 'executing');
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
    await ctx.store.runs.update(
      run.runId,
      (r) => {
        r.state = 'waiting_interaction';
        r.pendingTool = {
          toolCallId: call.id,
          nodeId: call.nodeId,
          name: call.name,
          params,
          phase: 'awaiting_interaction',
          interactionId,
          attempts: 0,
        };
      },
      now,
    );
    return { node, rec };
  });
  emitCommitted(ctx, out.node);
  ctx.emit(interactionEvent(out.rec));
  ctx.emit({
    type: 'run.updated',
    threadId: run.threadId,
    runId: run.runId,
    state: 'waiting_interaction',
  });
  return 'parked';
}
