import { approvedPlanOf } from '../../gatekeeper/plan';
import { permissionKey } from '../../gatekeeper/verdict';
import { PlanProposal, PlanResponse } from '../../protocol';
import { validateElicitationResponse } from '../../tools/mcp/elicitation';
import { canonicalJson } from '../../util/canonical-json';
import { ack, reject } from './receipts';
import { done, type Handler } from './op-handler';
import type { EngineHost } from '../turn/engine-host';
import type { RunRecord } from '../../store/records';
import { runDrift } from '../turn/recovery';
import { answeredCall, decidedCall, resolvedCall } from '../call/prepared-call';
import { afterAnswer, afterDecision, afterUncertainResolution, onResume } from '../run/run-machine';
import { moveRun } from '../run/run-edges';
import { runSummary } from '../views/thread-view';

/**
 * An approval decision is committed with the run's next phase, the site rule (allow_site) and
 * the receipt in one transaction (spec/001 §5.1). The first response claims the approval; the
 * same decision again is acknowledged, a different one is `already_resolved`.
 */
const approvalResponse: Handler<'approval.response'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const outcome = ack();
  const res = await engine.ctx.commit('approval_response', async () => {
    const a = await store.approvals.get(op.approvalId);
    if (!a) return { outcome: reject('not_found', 'No such approval request.') };
    if (a.status !== 'pending') {
      if (a.status === 'resolved' && a.decision === op.decision) {
        await ctx.writeReceipt(outcome);
        return { outcome };
      }
      return {
        outcome: reject(
          'already_resolved',
          a.status === 'cancelled'
            ? 'This request was withdrawn (the turn was interrupted).'
            : `This request was already answered (${a.decision}).`,
        ),
      };
    }
    const run = await store.runs.get(a.runId);
    if (!run || run.state !== 'waiting_approval' || run.pendingTool?.approvalId !== a.approvalId) {
      return { outcome: reject('already_resolved', 'This request is no longer pending.') };
    }
    if (!a.options.includes(op.decision)) {
      return {
        outcome: reject(
          'invalid_command',
          `"${op.decision}" is not offered for this request (offered: ${a.options.join(', ')}).`,
        ),
      };
    }
    const now = clock.now();
    let ruleVersion = run.pendingTool.ruleVersion ?? 0;
    let ruleChanged = false;
    if (op.decision === 'allow_site') {
      const reg = engine.ctx.registry.get(a.tool.name);
      const key = reg ? permissionKey(reg.descriptor, a.target) : a.target.origin;
      if (key) {
        ruleVersion = (await store.siteRules.set(key, 'allow', now)).version;
        ruleChanged = true;
      }
    }
    await store.approvals.put({
      ...a,
      status: 'resolved',
      decision: op.decision,
      ...(op.reason ? { decisionReason: op.reason } : {}),
      resolvedAt: now,
    });
    await store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'afterDecision', afterDecision(op.decision).to);
        if (r.pendingTool?.phase === 'awaiting_approval')
          r.pendingTool = decidedCall(r.pendingTool, op.decision, ruleVersion, op.reason);
      },
      now,
    );
    await ctx.writeReceipt(outcome);
    return { outcome, approval: a, ruleChanged };
  });
  if (res.outcome.kind === 'reject' || !res.approval) return done(res.outcome);
  const a = res.approval;
  return done(outcome, () => {
    engine.ctx.emit({
      type: 'approval.resolved',
      threadId: a.threadId,
      approvalId: a.approvalId,
      decision: op.decision,
    });
    engine.ctx.emit({
      type: 'run.updated',
      threadId: a.threadId,
      runId: a.runId,
      state: 'executing_tool',
    });
    if (res.ruleChanged) engine.publishSettings();
    engine.schedule(a.threadId, a.runId);
  });
};

const interactionResponse: Handler<'interaction.response'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const outcome = ack();
  const res = await engine.ctx.commit('interaction_response', async () => {
    const i = await store.interactions.get(op.interactionId);
    if (!i) return { outcome: reject('not_found', 'No such question.') };
    if (i.status !== 'pending') {
      if (
        (i.status === 'answered' || i.status === 'claimed') &&
        canonicalJson(i.response) === canonicalJson(op.response)
      ) {
        await ctx.writeReceipt(outcome);
        return { outcome };
      }
      return {
        outcome: reject(
          'already_resolved',
          i.status === 'cancelled'
            ? 'This question was withdrawn (the turn was interrupted).'
            : 'This question was already answered.',
        ),
      };
    }
    const run = await store.runs.get(i.runId);
    if (
      !run ||
      run.state !== 'waiting_interaction' ||
      run.pendingTool?.interactionId !== i.interactionId
    ) {
      return { outcome: reject('already_resolved', 'This question is no longer pending.') };
    }
    const tool = engine.ctx.registry.get(run.pendingTool.name)?.tool;
    const invalid =
      i.kind === 'elicitation'
        ? validateElicitationResponse(i.payload, op.response)
        : tool?.interaction?.validateResponse?.(i.payload, op.response);
    if (invalid) return { outcome: reject('invalid_command', `Invalid answer: ${invalid}`) };
    const now = clock.now();
    // A tool still running in this worker waits for the answer in memory (elicitation); after a
    // restart nobody waits, and the tool step turns the answer into the call's result instead.
    const live = run.pendingTool.phase === 'executing' && engine.ctx.waiters.has(i.interactionId);
    await store.interactions.put({
      ...i,
      status: live ? 'claimed' : 'answered',
      response: op.response,
      resolvedAt: now,
    });
    await store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'afterAnswer', afterAnswer().to);
        if (!live && r.pendingTool) r.pendingTool = answeredCall(r.pendingTool, i.interactionId);
        // An approved site plan joins the run's environment with the answer, in one commit:
        // the Gatekeeper judges every later call of this run under it, after a restart too.
        if (i.kind === 'plan' && r.env) {
          const proposal = PlanProposal.safeParse(i.payload);
          const answer = PlanResponse.safeParse(op.response);
          const plan =
            proposal.success && answer.success
              ? approvedPlanOf(proposal.data, answer.data, i.interactionId, now)
              : null;
          if (plan) r.env = { ...r.env, approvedPlan: plan };
        }
      },
      now,
    );
    await ctx.writeReceipt(outcome);
    return { outcome, interaction: i, live };
  });
  if (res.outcome.kind === 'reject' || !res.interaction) return done(res.outcome);
  const i = res.interaction;
  return done(outcome, () => {
    engine.ctx.emit({
      type: 'interaction.resolved',
      threadId: i.threadId,
      interactionId: i.interactionId,
    });
    engine.ctx.emit({
      type: 'run.updated',
      threadId: i.threadId,
      runId: i.runId,
      state: 'executing_tool',
    });
    if (res.live) engine.ctx.waiters.resolve(i.interactionId, op.response);
    else engine.schedule(i.threadId, i.runId);
  });
};

/** A paused run goes on (resume, or the user's answer to an uncertain action): same turn, driven again. */
function continueRun(engine: EngineHost, r: RunRecord): void {
  engine.ctx.emit({ type: 'turn.start', threadId: r.threadId, turnId: r.turnId, runId: r.runId });
  engine.ctx.emit({
    type: 'run.updated',
    threadId: r.threadId,
    runId: r.runId,
    state: r.state,
    run: runSummary(r),
  });
  engine.schedule(r.threadId, r.runId);
}

/** Continue an interrupted, budget-paused or failed run from its last checkpoint. */
const resume: Handler<'run.resume'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const outcome = ack();
  // The snapshot must still describe the world before the run goes on (spec/001 §5): verified
  // outside the transaction (digests are async crypto), then the state is re-read inside it.
  const before = await store.runs.get(op.runId);
  const drift =
    before && onResume(before).kind === 'continue' ? await runDrift(engine, before) : null;
  if (drift)
    return done(
      reject('not_resumable', `This task cannot continue: ${drift}. Send a new message instead.`),
    );
  const res = await engine.ctx.commit('resume', async () => {
    const run = await store.runs.get(op.runId);
    if (!run) return { outcome: reject('not_found', 'No such run.') };
    const t = onResume(run);
    if (t.kind === 'reject') return { outcome: reject('not_resumable', t.message) };
    const current = await store.runs.current(run.threadId);
    if (current && current.runId !== run.runId)
      return { outcome: reject('not_resumable', 'Another task is current in this thread.') };
    const latest = await store.runs.latest(run.threadId);
    if (latest && latest.runId !== run.runId)
      return { outcome: reject('not_resumable', 'A newer turn exists in this thread.') };
    // `latest` orders by creation, but a queued run is created before it starts: a run goes on
    // from its checkpoint only while that checkpoint is still the thread's leaf.
    const thread = await store.threads.get(run.threadId);
    const leaf = thread?.leafId ? await store.threads.getNode(thread.leafId) : undefined;
    if (leaf && leaf.runId !== run.runId)
      return { outcome: reject('not_resumable', 'A newer turn exists in this thread.') };
    const r = await store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'onResume', t.to);
        r.counters.modelAttempts = 0;
        r.counters.budgetBaseline = r.usage.inputTokens + r.usage.outputTokens;
        delete r.stopReason;
        delete r.error;
      },
      clock.now(),
    );
    await ctx.writeReceipt(outcome);
    return { outcome, run: r };
  });
  if (res.outcome.kind === 'reject' || !res.run) return done(res.outcome);
  const r = res.run;
  return done(outcome, () => continueRun(engine, r));
};

/** The user's answer for a write whose outcome is unknown (paused_uncertain). */
const resolveUncertain: Handler<'run.resolveUncertain'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const outcome = ack();
  const res = await engine.ctx.commit('resolve_uncertain', async () => {
    const run = await store.runs.get(op.runId);
    if (!run) return { outcome: reject('not_found', 'No such run.') };
    if (run.state !== 'paused_uncertain' || !run.pendingTool)
      return {
        outcome: reject(
          'not_uncertain',
          `The run is ${run.state}, not waiting for a decision about an uncertain action.`,
        ),
      };
    const r = await store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'afterUncertainResolution', afterUncertainResolution(op.resolution).to);
        delete r.stopReason;
        // 'retry' goes through the dispatch-time re-check (same origin, rule, tool) before running.
        r.pendingTool = resolvedCall(r.pendingTool!, op.resolution);
      },
      clock.now(),
    );
    await ctx.writeReceipt(outcome);
    return { outcome, run: r };
  });
  if (res.outcome.kind === 'reject' || !res.run) return done(res.outcome);
  const r = res.run;
  return done(outcome, () => continueRun(engine, r));
};

export const runOps = {
  'approval.response': approvalResponse,
  'interaction.response': interactionResponse,
  'run.resume': resume,
  'run.resolveUncertain': resolveUncertain,
};
