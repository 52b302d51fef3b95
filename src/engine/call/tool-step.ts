import { approvalDigest } from '../../gatekeeper/approval-digest';
import { dispatchRecheck } from '../../gatekeeper/dispatch-recheck';
import { decideVerdict, permissionKey } from '../../gatekeeper/verdict';
import type { PlannedToolCall, PreparedToolCall, RunRecord } from '../../store/records';
import { argumentDepthError, jsonDepthError } from '../../tools/argument-depth';
import type { RegisteredTool } from '../../tools/registry';
import type { ToolCallInfo, ToolDescriptor, ToolTarget } from '../../tools/types';
import { isSignInPayload, signInAnsweredAfterRestart } from '../../tools/mcp/sign-in';
import { digestOf } from '../../util/canonical-json';
import type { EngineContext } from '../host/engine-context';
import { catalogEntry } from '../env/environment';
import type { StepOutcome } from '../run/step-outcome';
import { LeafWriter } from '../run/leaf-writer';
import { emitCommitted } from '../run/nodes';
import { errorText, text } from '../run/tool-call-node';
import { execute } from './tool-execute';
import { finishCall } from './tool-finish';
import { beginApproval, beginInteraction } from './tool-park';
import { moveRun } from '../run/run-edges';

/** Starts of one call across restarts before recovery gives up on it. */
const MAX_TOOL_ATTEMPTS = 3;

const descriptorDigests = new WeakMap<ToolDescriptor, Promise<string>>();
function descriptorDigest(d: ToolDescriptor): Promise<string> {
  let p = descriptorDigests.get(d);
  if (!p) descriptorDigests.set(d, (p = digestOf(d)));
  return p;
}

/**
 * Work through the current assistant message's tool calls, one step at a time (spec/001 §2):
 * validate → resolve target → Gatekeeper → (ask: park on an approval) → execute → commit the
 * result. Each call's phase is persisted in `run.pendingTool`, so recovery knows whether a call
 * may have had an effect (phase 'executing') or certainly did not.
 */
export async function toolStep(
  ctx: EngineContext,
  runId: string,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const run = await ctx.store.runs.get(runId);
  if (!run || run.state !== 'executing_tool' || !run.env) return 'ended';
  const { toolCalls, nextToolIndex } = run.stepCursor;
  if (nextToolIndex >= toolCalls.length) {
    await ctx.commit('tools_done', () =>
      ctx.store.runs.update(
        runId,
        (r) => moveRun(r, 'toolStep', 'streaming_model'),
        ctx.clock.now(),
      ),
    );
    return 'continue';
  }
  const call = toolCalls[nextToolIndex];
  const pending = run.pendingTool?.toolCallId === call.id ? run.pendingTool : undefined;
  const reg = ctx.registry.get(call.name);
  const entry = catalogEntry(run.env, call.name);
  if (!reg || !entry) {
    const names = run.env.toolCatalog.map((e) => e.name).join(', ') || 'none';
    return finishCall(ctx, run, call, undefined, {
      callState: 'invalid',
      ok: false,
      outcome: 'error',
      content: text(`Unknown tool "${call.name}". Available tools: ${names}.`),
      failure: 'failure',
    });
  }
  const dDigest = await descriptorDigest(reg.descriptor);
  if (dDigest !== entry.digest) {
    return finishCall(ctx, run, call, reg, {
      callState: 'invalid',
      ok: false,
      outcome: 'error',
      content: text(
        `Tool ${call.name} changed since this turn started and was not run. Ask the user to continue in a new message.`,
      ),
      failure: 'neutral',
    });
  }
  const tctx: ToolCallInfo = {
    threadId: run.threadId,
    runId,
    ...(run.tabId !== undefined ? { tabId: run.tabId } : {}),
    model: { vision: run.env.modelInfo.vision },
  };

  if (pending) {
    switch (pending.phase) {
      case 'awaiting_approval':
      case 'awaiting_interaction':
        return 'parked';
      case 'denied':
      case 'denied_stop': {
        const why = pending.denyReason ? ` Their reason: ${pending.denyReason}` : '';
        const held = pending.holding;
        const what = held
          ? `The call was stopped before ${held.what}, and the user denied that, so it did not happen.${held.partial ? ` Before it stopped: ${held.partial}.` : ''}`
          : 'The user denied this call.';
        return finishCall(ctx, run, call, reg, {
          callState: 'rejected',
          ok: false,
          outcome: 'denied',
          content: text(`${what}${why} Do not retry it; continue another way or ask the user.`),
          failure: 'neutral',
          ...(pending.phase === 'denied_stop'
            ? {
                end: {
                  state: 'completed' as const,
                  stopReason: 'interrupted' as const,
                  notice: {
                    code: 'deny_stop',
                    text: `You denied "${reg.descriptor.label}" and stopped the turn.`,
                  },
                },
              }
            : {}),
        });
      }
      case 'answered': {
        const interaction = pending.interactionId
          ? await ctx.store.interactions.get(pending.interactionId)
          : undefined;
        const prep = reg.tool.interaction;
        if (interaction?.kind === 'elicitation' && !prep) {
          // The remote call that asked could not survive the restart (spec/001 §5). A sign-in
          // request is different: the server refused the call before running it.
          const signIn = isSignInPayload(interaction.payload)
            ? signInAnsweredAfterRestart(interaction.payload, interaction.response)
            : null;
          return finishCall(
            ctx,
            run,
            call,
            reg,
            {
              callState: 'result',
              ok: false,
              outcome: 'error',
              content: text(
                signIn ??
                  `The server asked the user a question and they answered ${JSON.stringify(interaction.response)}, but Keel restarted meanwhile, so the original call could not continue and its outcome is unknown. Re-issue the call only if doing it twice is safe; otherwise check its effect first.`,
              ),
              failure: 'neutral',
            },
            { interactionId: interaction.interactionId },
          );
        }
        if (!interaction || !prep) {
          return finishCall(ctx, run, call, reg, {
            callState: 'invalid',
            ok: false,
            outcome: 'lost',
            content: text('The answer to this question was lost.'),
            failure: 'neutral',
          });
        }
        const result = prep.complete(interaction.payload, interaction.response);
        return finishCall(
          ctx,
          run,
          call,
          reg,
          {
            callState: 'result',
            ok: !result.isError,
            outcome: result.isError ? 'error' : 'ok',
            content: result.content,
            details: result.details,
            failure: 'neutral',
          },
          { interactionId: interaction.interactionId },
        );
      }
      case 'approved': {
        return recheckThenExecute(ctx, run, call, reg, pending, dDigest, tctx, signal);
      }
      case 'resolved_done':
        return finishCall(ctx, run, call, reg, {
          callState: 'result',
          ok: true,
          outcome: 'marked_done',
          content: text('The user checked and confirmed this action completed.'),
          failure: 'success',
        });
      case 'resolved_failed':
        return finishCall(ctx, run, call, reg, {
          callState: 'result',
          ok: false,
          outcome: 'error',
          content: text('The user reported that this action did not complete.'),
          failure: 'neutral',
          end: {
            state: 'failed',
            stopReason: 'error',
            notice: {
              code: 'user_failed',
              text: `You marked "${reg.descriptor.label}" as failed; the turn stopped.`,
            },
            error: {
              code: 'user_failed',
              message: 'The user marked an uncertain action as failed.',
            },
          },
        });
      case 'executing': {
        // Only reachable after a restart: the call may or may not have run (ARCHITECTURE.md
        // recovery table). Reads and retry-safe tools run again; other writes wait for the user.
        const d = reg.descriptor;
        if (pending.attempts >= MAX_TOOL_ATTEMPTS) {
          // The worker died during this call again and again: stop re-running it (a crash loop
          // must not spin forever, and the persisted counter survives every restart).
          return finishCall(ctx, run, call, reg, {
            callState: 'result',
            ok: false,
            outcome: 'lost',
            content: text(
              `This call was interrupted by ${pending.attempts} restarts in a row and was not run again.`,
            ),
            failure: 'failure',
          });
        }
        if (d.effects === 'read' || d.recovery === 'retry-safe') {
          // Running it again is a new dispatch: the same re-check as any cleared call (the site
          // may have been blocked meanwhile).
          return recheckThenExecute(ctx, run, call, reg, pending, dDigest, tctx, signal);
        }
        // The call has no result yet, so this leaf is not safe for steers: they stay pending
        // until the user's answer lets the call finish.
        const created = await ctx.commit('uncertain', async () => {
          const now = ctx.clock.now();
          const w = await LeafWriter.open(ctx, run);
          await w.notice(
            'paused_uncertain',
            `Keel stopped while "${d.label}" was running, so it may or may not have happened. Check the page, then choose Retry, Mark done or Fail.`,
          );
          await w.finish(now);
          await ctx.store.runs.update(
            runId,
            (r) => {
              moveRun(r, 'toolStep', 'paused_uncertain');
              r.stopReason = 'paused_uncertain';
            },
            now,
          );
          return w.created;
        });
        for (const n of created) emitCommitted(ctx, n);
        return 'ended';
      }
    }
  }

  // A new call: validate, resolve its target, ask the Gatekeeper.
  if (call.rawArgs !== undefined) {
    const deep = jsonDepthError(call.rawArgs);
    if (deep)
      return finishCall(ctx, run, call, reg, {
        callState: 'invalid',
        ok: false,
        outcome: 'invalid',
        content: text(`Invalid arguments for ${call.name}: ${deep}. Send flatter arguments.`),
        failure: 'failure',
      });
    return finishCall(ctx, run, call, reg, {
      callState: 'invalid',
      ok: false,
      outcome: 'invalid',
      content: text(
        `The arguments were not valid JSON: ${call.rawArgs.slice(0, 500)}. Send a JSON object matching the tool's schema.`,
      ),
      failure: 'failure',
    });
  }
  const tooDeep = argumentDepthError(call.args);
  if (tooDeep)
    return finishCall(ctx, run, call, reg, {
      callState: 'invalid',
      ok: false,
      outcome: 'invalid',
      content: text(`Invalid arguments for ${call.name}: ${tooDeep}. Send flatter arguments.`),
      failure: 'failure',
    });
  const parsed = reg.tool.parameters.safeParse(call.args);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 8)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return finishCall(ctx, run, call, reg, {
      callState: 'invalid',
      ok: false,
      outcome: 'invalid',
      content: text(`Invalid arguments for ${call.name}: ${issues}. Fix them and call again.`),
      failure: 'failure',
    });
  }
  const params = parsed.data;
  if (reg.tool.interaction) return beginInteraction(ctx, run, call, reg, params);
  let target: ToolTarget;
  try {
    target = reg.tool.resolveTarget ? await reg.tool.resolveTarget(params, tctx) : {};
  } catch (e) {
    return finishCall(ctx, run, call, reg, {
      callState: 'result',
      ok: false,
      outcome: 'error',
      content: text(errorText(e)),
      failure: 'failure',
    });
  }
  const key = permissionKey(reg.descriptor, target);
  const rule = key ? (await ctx.store.siteRules.get(key))?.rule : undefined;
  const verdict = decideVerdict({
    descriptor: reg.descriptor,
    target,
    rule,
    approvalMode: run.env.approvalMode,
  });
  if (verdict.kind === 'deny') {
    return finishCall(ctx, run, call, reg, {
      callState: 'rejected',
      ok: false,
      outcome: 'denied',
      content: text(`Not allowed: ${verdict.reason}`),
      failure: 'neutral',
    });
  }
  if (verdict.kind === 'ask')
    return beginApproval(
      ctx,
      run,
      call,
      reg,
      params,
      target,
      dDigest,
      verdict.reason,
      undefined,
      verdict.options,
    );
  // Record what the call ran under, so a retry after a restart re-checks against the same rule.
  const ruleVersion = key ? ((await ctx.store.siteRules.get(key))?.version ?? 0) : 0;
  const prepared: PreparedToolCall = {
    toolCallId: call.id,
    nodeId: call.nodeId,
    name: call.name,
    params,
    phase: 'approved',
    target,
    ruleVersion,
    descriptorDigest: dDigest,
    attempts: 0,
  };
  return execute(ctx, run, call, reg, params, target, tctx, signal, prepared);
}

/**
 * Dispatch-time re-check before a cleared call runs (a fresh approval, or a re-run after a
 * restart): the whole verdict again on what would run now (dispatch-recheck.ts). A call re-run
 * after a restart that is now simply allowed runs; an approval made under other conditions is
 * asked again; a target refused now stays refused.
 */
async function recheckThenExecute(
  ctx: EngineContext,
  run: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool,
  pending: PreparedToolCall,
  dDigest: string,
  tctx: ToolCallInfo,
  signal: AbortSignal,
): Promise<StepOutcome> {
  let target: ToolTarget;
  try {
    target = reg.tool.resolveTarget ? await reg.tool.resolveTarget(pending.params, tctx) : {};
  } catch (e) {
    return finishCall(ctx, run, call, reg, {
      callState: 'result',
      ok: false,
      outcome: 'error',
      content: text(errorText(e)),
      failure: 'failure',
    });
  }
  const key = permissionKey(reg.descriptor, target);
  const ruleRec = key ? await ctx.store.siteRules.get(key) : undefined;
  const verdict = decideVerdict({
    descriptor: reg.descriptor,
    target,
    rule: ruleRec?.rule,
    approvalMode: run.env!.approvalMode,
  });
  const digest = await approvalDigest(dDigest, pending.params, target.origin);
  const recheck = dispatchRecheck(pending, {
    target,
    ruleVersion: ruleRec?.version ?? 0,
    descriptorDigest: dDigest,
    approvalDigest: digest,
    verdict,
  });
  if (recheck.kind === 'deny') {
    return finishCall(ctx, run, call, reg, {
      callState: 'rejected',
      ok: false,
      outcome: 'denied',
      content: text(`Not run: ${recheck.reason}`),
      failure: 'neutral',
    });
  }
  if (recheck.kind === 'ask') {
    if (verdict.kind === 'allow' && pending.phase === 'executing')
      return execute(ctx, run, call, reg, pending.params, target, tctx, signal, pending);
    return beginApproval(
      ctx,
      run,
      call,
      reg,
      pending.params,
      target,
      dDigest,
      `changed:${recheck.drift}`,
      pending,
      recheck.options,
    );
  }
  return execute(ctx, run, call, reg, pending.params, target, tctx, signal, pending);
}
