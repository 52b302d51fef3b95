import { stepMark } from '../../util/step-marks';
import { approvalDigest } from '../../gatekeeper/approval-digest';
import { dispatchRecheck } from '../../gatekeeper/dispatch-recheck';
import { decideVerdict, permissionKey } from '../../gatekeeper/verdict';
import type { PlannedToolCall, PreparedToolCall } from '../../store/records';
import { argumentDepthError, jsonDepthError } from '../../tools/argument-depth';
import type { RegisteredTool } from '../../tools/registry';
import type { ToolDescriptor, ToolTarget } from '../../tools/types';
import { isSignInPayload, signInAnsweredAfterRestart } from '../../tools/mcp/sign-in';
import { goneFromPage } from '../../tools/page/page-tool';
import { digestOf } from '../../util/canonical-json';
import type { EngineContext } from '../host/engine-context';
import { catalogEntry } from '../env/environment';
import type { StepOutcome } from '../run/step-outcome';
import { LeafWriter } from '../run/leaf-writer';
import { moveRun } from '../run/run-edges';
import { errorText } from '../run/tool-call-node';
import { afterRecheck, afterVerdict, decideCall, type DispatchDecision } from './call-decision';
import { Finishes } from './call-finish';
import type { CallInFlight } from './call-in-flight';
import { execute } from './tool-execute';
import { finishCall } from './tool-finish';
import { beginApproval, beginInteraction, takeoverTab } from './tool-park';
import { freshLookText } from '../run/fresh-look';
import { lookAtTab } from '../run/page-hand-over';

const descriptorDigests = new WeakMap<ToolDescriptor, Promise<string>>();
function descriptorDigest(d: ToolDescriptor): Promise<string> {
  let p = descriptorDigests.get(d);
  if (!p) descriptorDigests.set(d, (p = digestOf(d)));
  return p;
}

/**
 * Work through the current assistant message's tool calls, one step at a time (spec/001 §2):
 * gather the facts, decide (`decideCall`, pure), then act on the decision — park, ask, run, or
 * record the end through the one place that records it (`finishCall`). Each call's phase is
 * persisted in `run.pendingTool`, so recovery knows whether a call may have had an effect (phase
 * 'executing') or certainly did not.
 */
export async function toolStep(
  ctx: EngineContext,
  runId: string,
  signal: AbortSignal,
): Promise<StepOutcome> {
  stepMark('tool.step');
  const run = await ctx.store.runs.get(runId);
  if (run?.state !== 'executing_tool' || !run.env) return 'ended';
  const { toolCalls, nextToolIndex } = run.stepCursor;
  if (nextToolIndex >= toolCalls.length) {
    await ctx.commit('tools_done', () =>
      ctx.store.runs.update(
        runId,
        (r) => moveRun(r, 'decideCall', 'streaming_model'),
        ctx.clock.now(),
      ),
    );
    return 'continue';
  }
  const call = toolCalls[nextToolIndex];
  const pending = run.pendingTool?.toolCallId === call.id ? run.pendingTool : undefined;
  const entry = catalogEntry(run.env, call.name);
  const reg = ctx.registry.get(call.name) ?? (await rediscoverPageTool(ctx, run, entry));
  const dDigest = reg && entry ? await descriptorDigest(reg.descriptor) : '';
  const args = reg && !pending ? validateArgs(call, reg) : { params: pending?.params };
  const d = decideCall({
    name: call.name,
    known: !!reg && !!entry,
    catalog: run.env.toolCatalog.map((e) => e.name),
    changed: !!entry && dDigest !== entry.digest,
    label: reg?.descriptor.label ?? call.name,
    effects: reg?.descriptor.effects ?? 'write',
    recovery: reg?.descriptor.recovery,
    ...(pending ? { pending } : {}),
    invalid: 'invalid' in args ? args.invalid : null,
    interactive: !!reg?.tool.interaction,
  });
  // An unknown tool's card has no descriptor to show, even when another catalog registered it.
  if (d.kind === 'finish')
    return finishCall(ctx, { run, call, reg: entry ? reg : undefined }, d.finish);
  if (d.kind === 'wait') return 'parked';
  // Every other decision is about a known, unchanged tool.
  const c: CallInFlight = {
    run,
    call,
    reg: reg!,
    params: 'params' in args ? args.params : undefined,
    dDigest,
    info: {
      threadId: run.threadId,
      runId,
      ...(run.tabId !== undefined ? { tabId: run.tabId } : {}),
      model: { vision: run.env.modelInfo.vision },
    },
    signal,
  };
  switch (d.kind) {
    case 'answer':
      return completeAnswer(ctx, c, pending!);
    case 'interact':
      return beginInteraction(ctx, c);
    case 'recheck':
      return recheckThenExecute(ctx, c, pending!);
    case 'pause_uncertain':
      return pauseUncertain(ctx, c);
    case 'judge':
      return judgeThenExecute(ctx, c);
  }
}

/**
 * A page tool in the run's catalog that the registry does not hold (the worker restarted since
 * the model saw it): ask its tab again (the page keeps its tools across worker restarts). If the
 * page no longer offers it, the call goes on with a stand-in that cannot run: a call that was
 * executing still pauses for the user (its outcome is unknown: `inspect-first`); any other fails
 * when its target is resolved, saying the tool is gone (page-tool.ts `goneFromPage`).
 */
async function rediscoverPageTool(
  ctx: EngineContext,
  run: { tabId?: number },
  entry: { name: string; descriptor: ToolDescriptor } | undefined,
): Promise<RegisteredTool | undefined> {
  if (entry?.descriptor.binding.kind !== 'page') return undefined;
  if (run.tabId !== undefined) await ctx.browser?.pageTools?.(run.tabId);
  return ctx.registry.get(entry.name) ?? goneFromPage(entry.descriptor);
}

/** The arguments as the tool will get them, or why they cannot be used (the model fixes them). */
function validateArgs(
  call: PlannedToolCall,
  reg: RegisteredTool,
): { params: unknown } | { invalid: string } {
  if (call.rawArgs !== undefined) {
    const deep = jsonDepthError(call.rawArgs);
    return {
      invalid: deep
        ? `Invalid arguments for ${call.name}: ${deep}. Send flatter arguments.`
        : `The arguments were not valid JSON: ${call.rawArgs.slice(0, 500)}. Send a JSON object matching the tool's schema.`,
    };
  }
  const tooDeep = argumentDepthError(call.args);
  if (tooDeep)
    return { invalid: `Invalid arguments for ${call.name}: ${tooDeep}. Send flatter arguments.` };
  const parsed = reg.tool.parameters.safeParse(call.args);
  if (parsed.success) return { params: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 8)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { invalid: `Invalid arguments for ${call.name}: ${issues}. Fix them and call again.` };
}

/** The user answered the tool's question: the tool completes the call from the answer. */
async function completeAnswer(
  ctx: EngineContext,
  c: CallInFlight,
  pending: PreparedToolCall,
): Promise<StepOutcome> {
  const interaction = pending.interactionId
    ? await ctx.store.interactions.get(pending.interactionId)
    : undefined;
  const prep = c.reg.tool.interaction;
  if (interaction?.kind === 'elicitation' && !prep) {
    // The remote call that asked could not survive the restart (spec/001 §5). A sign-in
    // request is different: the server refused the call before running it.
    const signIn = isSignInPayload(interaction.payload)
      ? signInAnsweredAfterRestart(interaction.payload, interaction.response)
      : null;
    return finishCall(
      ctx,
      c,
      Finishes.failed(
        signIn ??
          `The server asked the user a question and they answered ${JSON.stringify(interaction.response)}, but Keel restarted meanwhile, so the original call could not continue and its outcome is unknown. Re-issue the call only if doing it twice is safe; otherwise check its effect first.`,
        { failure: 'neutral' },
      ),
      { interactionId: interaction.interactionId },
    );
  }
  if (!interaction || !prep)
    return finishCall(
      ctx,
      c,
      Finishes.lost('The answer to this question was lost.', { ran: false, failure: 'neutral' }),
    );
  // A hand-over's answer comes with a fresh look at the tab (issue 28), compared with the look
  // recorded when the page went to the user (tool-park.ts).
  const freshLook =
    interaction.kind === 'takeover'
      ? freshLookText(
          c.run.pageAtHandOver,
          await lookAtTab(ctx, takeoverTab(interaction.payload, c.run)),
          takeoverTab(interaction.payload, c.run),
        )
      : undefined;
  const result = prep.complete(
    interaction.payload,
    interaction.response,
    freshLook ? { freshLook } : undefined,
  );
  const o = { failure: 'neutral' as const, details: result.details };
  return finishCall(
    ctx,
    c,
    result.isError ? Finishes.failed(result.content, o) : Finishes.done(result.content, o),
    { interactionId: interaction.interactionId },
  );
}

/**
 * A write whose outcome is unknown after a restart: the user decides. The call has no result yet,
 * so this leaf is not safe for steers: they stay pending until the user's answer lets it finish.
 */
async function pauseUncertain(ctx: EngineContext, c: CallInFlight): Promise<StepOutcome> {
  await ctx.commit('uncertain', async (outbox) => {
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, c.run, outbox);
    await w.notice(
      'paused_uncertain',
      `Keel stopped while "${c.reg.descriptor.label}" was running, so it may or may not have happened. Check the page, then choose Retry, Mark done or Fail.`,
    );
    await w.finish(now);
    await ctx.store.runs.update(
      c.run.runId,
      (r) => {
        moveRun(r, 'decideCall', 'paused_uncertain');
        r.stopReason = 'paused_uncertain';
      },
      now,
    );
  });
  return 'ended';
}

/** The call's target, or the failure to find it (a stale ref, a closed tab). */
async function resolveTarget(
  c: CallInFlight,
  params: unknown,
): Promise<{ target: ToolTarget } | { error: string }> {
  try {
    return {
      target: c.reg.tool.resolveTarget ? await c.reg.tool.resolveTarget(params, c.info) : {},
    };
  } catch (e) {
    return { error: errorText(e) };
  }
}

/** The Gatekeeper's verdict on the call at `target`, with the site rule it read. */
async function judge(ctx: EngineContext, c: CallInFlight, target: ToolTarget) {
  const key = permissionKey(c.reg.descriptor, target);
  const ruleRec = key ? await ctx.store.siteRules.get(key) : undefined;
  const verdict = decideVerdict({
    descriptor: c.reg.descriptor,
    target,
    rule: ruleRec?.rule,
    approvalMode: c.run.env!.approvalMode,
    ...(c.run.env!.approvedPlan ? { plan: c.run.env!.approvedPlan } : {}),
    pageToolsRead: ruleRec?.pageToolsRead === true,
  });
  return { verdict, ruleVersion: ruleRec?.version ?? 0 };
}

/** A new call: resolve its target, ask the Gatekeeper, then act on its verdict. */
async function judgeThenExecute(ctx: EngineContext, c: CallInFlight): Promise<StepOutcome> {
  const t = await resolveTarget(c, c.params);
  if ('error' in t) return finishCall(ctx, c, Finishes.failed(t.error));
  stepMark('verdict.start');
  const { verdict, ruleVersion } = await judge(ctx, c, t.target);
  stepMark('verdict.end');
  // Record what the call ran under, so a retry after a restart re-checks against the same rule.
  const prepared: PreparedToolCall = {
    toolCallId: c.call.id,
    nodeId: c.call.nodeId,
    name: c.call.name,
    params: c.params,
    phase: 'approved',
    target: t.target,
    ruleVersion,
    descriptorDigest: c.dDigest,
    attempts: 0,
  };
  return dispatch(ctx, c, afterVerdict(verdict), { target: t.target, prev: undefined, prepared });
}

/**
 * Dispatch-time re-check before a cleared call runs (a fresh approval, or a re-run after a
 * restart): the whole verdict again on what would run now (dispatch-recheck.ts).
 */
async function recheckThenExecute(
  ctx: EngineContext,
  c0: CallInFlight,
  pending: PreparedToolCall,
): Promise<StepOutcome> {
  const c = { ...c0, params: pending.params };
  const t = await resolveTarget(c, pending.params);
  if ('error' in t) return finishCall(ctx, c, Finishes.failed(t.error));
  const { verdict, ruleVersion } = await judge(ctx, c, t.target);
  const recheck = dispatchRecheck(pending, {
    target: t.target,
    ruleVersion,
    descriptorDigest: c.dDigest,
    approvalDigest: await approvalDigest(c.dDigest, pending.params, t.target.origin),
    verdict,
  });
  return dispatch(ctx, c, afterRecheck(recheck, { verdict, phase: pending.phase }), {
    target: t.target,
    prev: pending,
    prepared: pending,
  });
}

/** Act on a dispatch decision: record the refusal, park on an approval, or run the call. */
function dispatch(
  ctx: EngineContext,
  c: CallInFlight,
  d: DispatchDecision,
  o: { target: ToolTarget; prev: PreparedToolCall | undefined; prepared: PreparedToolCall },
): Promise<StepOutcome> {
  if (d.kind === 'finish') return finishCall(ctx, c, d.finish);
  if (d.kind === 'ask')
    return beginApproval(ctx, c, {
      target: o.target,
      reason: d.reason,
      prev: o.prev,
      options: d.options,
    });
  return execute(ctx, c, { target: o.target, prev: o.prepared });
}
