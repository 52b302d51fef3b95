import type { ContentBlock, ToolCallItem, ToolCallState } from '../protocol';
import { approvalDigest } from '../gatekeeper/approval-digest';
import { ALL_DECISIONS, decideVerdict, permissionKey } from '../gatekeeper/verdict';
import { RECORD_VERSION, type NodeRecord, type PlannedToolCall, type PreparedToolCall, type RunRecord } from '../store/records';
import type { RegisteredTool } from '../tools/registry';
import type { ToolCallContext, ToolDescriptor, ToolResult, ToolTarget } from '../tools/types';
import { digestOf } from '../util/canonical-json';
import { RunAborted, type EngineContext } from './context';
import { catalogEntry } from './environment';
import { appendNotice, emitCommitted, type StepOutcome } from './model-step';
import { approvalEvent, interactionEvent } from './thread-view';

const WARN_AFTER = 3;
/** Starts of one call across restarts before recovery gives up on it. */
const MAX_TOOL_ATTEMPTS = 3;
const DISABLE_AFTER = 5;

/** How a finished call moves the failure breaker: user and policy denials are neutral. */
type FailureEffect = 'success' | 'failure' | 'neutral';

interface Finish {
  callState: ToolCallState;
  ok: boolean;
  outcome: 'ok' | 'error' | 'denied' | 'interrupted' | 'invalid' | 'lost' | 'marked_done';
  content: ContentBlock[];
  details?: unknown;
  failure: FailureEffect;
  /** End the turn after recording this call (deny_stop, or the user marking an uncertain call failed). */
  end?: { state: 'completed' | 'failed'; stopReason: 'interrupted' | 'error'; notice: { code: string; text: string }; error?: { code: string; message: string } };
}

const descriptorDigests = new WeakMap<ToolDescriptor, Promise<string>>();
function descriptorDigest(d: ToolDescriptor): Promise<string> {
  let p = descriptorDigests.get(d);
  if (!p) descriptorDigests.set(d, (p = digestOf(d)));
  return p;
}

function text(t: string): ContentBlock[] {
  return [{ type: 'text', text: t }];
}

/**
 * Work through the current assistant message's tool calls, one step at a time (spec/001 §2):
 * validate → resolve target → Gatekeeper → (ask: park on an approval) → execute → commit the
 * result. Each call's phase is persisted in `run.pendingTool`, so recovery knows whether a call
 * may have had an effect (phase 'executing') or certainly did not.
 */
export async function toolStep(ctx: EngineContext, runId: string, signal: AbortSignal): Promise<StepOutcome> {
  const run = await ctx.store.runs.get(runId);
  if (!run || run.state !== 'executing_tool' || !run.env) return 'ended';
  const { toolCalls, nextToolIndex } = run.stepCursor;
  if (nextToolIndex >= toolCalls.length) {
    await ctx.commit('tools_done', () => ctx.store.runs.update(runId, (r) => void (r.state = 'streaming_model'), ctx.clock.now()));
    return 'continue';
  }
  const call = toolCalls[nextToolIndex];
  const pending = run.pendingTool?.toolCallId === call.id ? run.pendingTool : undefined;
  const reg = ctx.registry.get(call.name);
  const entry = catalogEntry(run.env, call.name);
  if (!reg || !entry) {
    const names = run.env.toolCatalog.map((e) => e.name).join(', ') || 'none';
    return finishCall(ctx, run, call, undefined, { callState: 'invalid', ok: false, outcome: 'error', content: text(`Unknown tool "${call.name}". Available tools: ${names}.`), failure: 'failure' });
  }
  const dDigest = await descriptorDigest(reg.descriptor);
  if (dDigest !== entry.digest) {
    return finishCall(ctx, run, call, reg, { callState: 'invalid', ok: false, outcome: 'error', content: text(`Tool ${call.name} changed since this turn started and was not run. Ask the user to continue in a new message.`), failure: 'neutral' });
  }
  const tctx: ToolCallContext = { threadId: run.threadId, runId, ...(run.tabId !== undefined ? { tabId: run.tabId } : {}), model: { vision: run.env.modelInfo.vision } };

  if (pending) {
    switch (pending.phase) {
      case 'awaiting_approval':
      case 'awaiting_interaction':
        return 'parked';
      case 'denied':
      case 'denied_stop': {
        const why = pending.denyReason ? ` Their reason: ${pending.denyReason}` : '';
        return finishCall(ctx, run, call, reg, {
          callState: 'rejected',
          ok: false,
          outcome: 'denied',
          content: text(`The user denied this call.${why} Do not retry it; continue another way or ask the user.`),
          failure: 'neutral',
          ...(pending.phase === 'denied_stop'
            ? { end: { state: 'completed' as const, stopReason: 'interrupted' as const, notice: { code: 'deny_stop', text: `You denied "${reg.descriptor.label}" and stopped the turn.` } } }
            : {}),
        });
      }
      case 'answered': {
        const interaction = pending.interactionId ? await ctx.store.interactions.get(pending.interactionId) : undefined;
        const prep = reg.tool.interaction;
        if (interaction?.kind === 'elicitation' && !prep) {
          // The remote call that asked could not survive the restart (spec/001 §5).
          return finishCall(ctx, run, call, reg, {
            callState: 'result',
            ok: false,
            outcome: 'error',
            content: text(`The server asked the user a question and they answered ${JSON.stringify(interaction.response)}, but Keel restarted meanwhile, so the original call could not continue and its outcome is unknown. Re-issue the call only if doing it twice is safe; otherwise check its effect first.`),
            failure: 'neutral',
          }, { interactionId: interaction.interactionId });
        }
        if (!interaction || !prep) {
          return finishCall(ctx, run, call, reg, { callState: 'invalid', ok: false, outcome: 'lost', content: text('The answer to this question was lost.'), failure: 'neutral' });
        }
        const result = prep.complete(interaction.payload, interaction.response);
        return finishCall(ctx, run, call, reg, { callState: 'result', ok: !result.isError, outcome: result.isError ? 'error' : 'ok', content: result.content, details: result.details, failure: 'neutral' }, { interactionId: interaction.interactionId });
      }
      case 'approved': {
        // Dispatch-time re-check: same origin, same rule version, same tool as approved.
        let target: ToolTarget;
        try {
          target = reg.tool.resolveTarget ? await reg.tool.resolveTarget(pending.params, tctx) : {};
        } catch (e) {
          return finishCall(ctx, run, call, reg, { callState: 'result', ok: false, outcome: 'error', content: text(errorText(e)), failure: 'failure' });
        }
        const key = permissionKey(reg.descriptor, target);
        const ruleRec = key ? await ctx.store.siteRules.get(key) : undefined;
        const drift =
          (target.origin ?? null) !== (pending.target?.origin ?? null)
            ? `the tab is now on ${target.origin ?? 'another page'}`
            : (ruleRec?.version ?? 0) !== (pending.ruleVersion ?? 0)
              ? 'the site permission changed'
              : pending.descriptorDigest !== dDigest
                ? 'the tool changed'
                : null;
        if (drift) {
          // Judge the call afresh where it would now run: refused targets stay refused, and a
          // call that must always ask keeps its once-only options.
          const verdict = decideVerdict({ descriptor: reg.descriptor, target, rule: ruleRec?.rule, approvalMode: run.env.approvalMode });
          if (verdict.kind === 'deny') {
            return finishCall(ctx, run, call, reg, { callState: 'rejected', ok: false, outcome: 'denied', content: text(`Not run: ${verdict.reason}`), failure: 'neutral' });
          }
          const options = verdict.kind === 'ask' ? verdict.options : ALL_DECISIONS;
          return beginApproval(ctx, run, call, reg, pending.params, target, dDigest, `changed:${drift}`, pending, options);
        }
        return execute(ctx, run, call, reg, pending.params, target, tctx, signal, pending);
      }
      case 'resolved_done':
        return finishCall(ctx, run, call, reg, { callState: 'result', ok: true, outcome: 'marked_done', content: text('The user checked and confirmed this action completed.'), failure: 'success' });
      case 'resolved_failed':
        return finishCall(ctx, run, call, reg, {
          callState: 'result',
          ok: false,
          outcome: 'error',
          content: text('The user reported that this action did not complete.'),
          failure: 'neutral',
          end: { state: 'failed', stopReason: 'error', notice: { code: 'user_failed', text: `You marked "${reg.descriptor.label}" as failed; the turn stopped.` }, error: { code: 'user_failed', message: 'The user marked an uncertain action as failed.' } },
        });
      case 'executing': {
        // Only reachable after a restart: the call may or may not have run (ARCHITECTURE.md
        // recovery table). Reads and retry-safe tools run again; other writes wait for the user.
        const d = reg.descriptor;
        if (pending.attempts >= MAX_TOOL_ATTEMPTS) {
          // The worker died during this call again and again: stop re-running it (a crash loop
          // must not spin forever, and the persisted counter survives every restart).
          return finishCall(ctx, run, call, reg, { callState: 'result', ok: false, outcome: 'lost', content: text(`This call was interrupted by ${pending.attempts} restarts in a row and was not run again.`), failure: 'failure' });
        }
        if (d.effects === 'read' || d.recovery === 'retry-safe') {
          const target = pending.target ?? {};
          return execute(ctx, run, call, reg, pending.params, target, tctx, signal, pending);
        }
        await ctx.commit('uncertain', async () => {
          const now = ctx.clock.now();
          const thread = (await ctx.store.threads.get(run.threadId))!;
          const notice = await appendNotice(
            ctx,
            run,
            thread.leafId,
            'paused_uncertain',
            `Keel stopped while "${d.label}" was running, so it may or may not have happened. Check the page, then choose Retry, Mark done or Fail.`,
          );
          await ctx.store.threads.update(run.threadId, (t) => void (t.leafId = notice.id));
          await ctx.store.runs.update(runId, (r) => {
            r.state = 'paused_uncertain';
            r.stopReason = 'paused_uncertain';
          }, now);
          return notice;
        }).then((n) => emitCommitted(ctx, n));
        return 'ended';
      }
    }
  }

  // A new call: validate, resolve its target, ask the Gatekeeper.
  if (call.rawArgs !== undefined) {
    return finishCall(ctx, run, call, reg, { callState: 'invalid', ok: false, outcome: 'invalid', content: text(`The arguments were not valid JSON: ${call.rawArgs.slice(0, 500)}. Send a JSON object matching the tool's schema.`), failure: 'failure' });
  }
  const parsed = reg.tool.parameters.safeParse(call.args);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 8).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return finishCall(ctx, run, call, reg, { callState: 'invalid', ok: false, outcome: 'invalid', content: text(`Invalid arguments for ${call.name}: ${issues}. Fix them and call again.`), failure: 'failure' });
  }
  const params = parsed.data;
  if (reg.tool.interaction) return beginInteraction(ctx, run, call, reg, params);
  let target: ToolTarget;
  try {
    target = reg.tool.resolveTarget ? await reg.tool.resolveTarget(params, tctx) : {};
  } catch (e) {
    return finishCall(ctx, run, call, reg, { callState: 'result', ok: false, outcome: 'error', content: text(errorText(e)), failure: 'failure' });
  }
  const key = permissionKey(reg.descriptor, target);
  const rule = key ? (await ctx.store.siteRules.get(key))?.rule : undefined;
  const verdict = decideVerdict({ descriptor: reg.descriptor, target, rule, approvalMode: run.env.approvalMode });
  if (verdict.kind === 'deny') {
    return finishCall(ctx, run, call, reg, { callState: 'rejected', ok: false, outcome: 'denied', content: text(`Not allowed: ${verdict.reason}`), failure: 'neutral' });
  }
  if (verdict.kind === 'ask') return beginApproval(ctx, run, call, reg, params, target, dDigest, verdict.reason, undefined, verdict.options);
  // Record what the call ran under, so a retry after a restart re-checks against the same rule.
  const ruleVersion = key ? ((await ctx.store.siteRules.get(key))?.version ?? 0) : 0;
  const prepared: PreparedToolCall = { toolCallId: call.id, nodeId: call.nodeId, name: call.name, params, phase: 'approved', target, ruleVersion, descriptorDigest: dDigest, attempts: 0 };
  return execute(ctx, run, call, reg, params, target, tctx, signal, prepared);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function callItem(c: PlannedToolCall, reg: RegisteredTool | undefined, params: unknown, state: ToolCallState, assistantId: string | undefined, now: number): ToolCallItem {
  const d = reg?.descriptor;
  return {
    kind: 'tool_call',
    id: c.nodeId,
    createdAt: now,
    toolCallId: c.id,
    ...(assistantId ? { assistantId } : {}),
    name: c.name,
    label: d?.label ?? c.name,
    params,
    state,
    ...(d ? { level: d.level, effects: d.effects, visibility: d.visibility } : {}),
    ...(c.rawArgs !== undefined ? { rawArgs: c.rawArgs } : {}),
  };
}

/** Create the tool_call node under the leaf, or move an existing one to a new state. */
async function upsertCallNode(ctx: EngineContext, run: RunRecord, c: PlannedToolCall, reg: RegisteredTool | undefined, params: unknown, state: ToolCallState): Promise<NodeRecord> {
  const existing = await ctx.store.threads.getNode(c.nodeId);
  if (existing) {
    return ctx.store.threads.updateNodeItem(c.nodeId, (item) => {
      if (item.kind === 'tool_call') item.state = state;
    });
  }
  const thread = (await ctx.store.threads.get(run.threadId))!;
  const node = await ctx.store.threads.appendNode({
    threadId: run.threadId,
    parentId: thread.leafId,
    runId: run.runId,
    turnId: run.turnId,
    item: callItem(c, reg, params, state, run.stepCursor.assistantNodeId, ctx.clock.now()),
  });
  await ctx.store.threads.update(run.threadId, (t) => void (t.leafId = node.id));
  return node;
}

async function beginApproval(
  ctx: EngineContext,
  run: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool,
  params: unknown,
  target: ToolTarget,
  dDigest: string,
  reason: string,
  prev: PreparedToolCall | undefined,
  options = ['allow_once', 'allow_site', 'deny', 'deny_stop'] as ('allow_once' | 'allow_site' | 'deny' | 'deny_stop')[],
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
      tool: { name: reg.descriptor.name, label: reg.descriptor.label, level: reg.descriptor.level, effects: reg.descriptor.effects },
      params,
      target,
      options: opts,
      reason,
      digest,
      status: 'pending' as const,
      createdAt: now,
    };
    await ctx.store.approvals.put(rec);
    const r = await ctx.store.runs.update(run.runId, (r) => {
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
    }, now);
    return { node, rec, run: r };
  });
  emitCommitted(ctx, out.node);
  ctx.emit(approvalEvent(out.rec));
  ctx.emit({ type: 'run.updated', threadId: run.threadId, runId: run.runId, state: 'waiting_approval' });
  return 'parked';
}

async function beginInteraction(ctx: EngineContext, run: RunRecord, call: PlannedToolCall, reg: RegisteredTool, params: unknown): Promise<StepOutcome> {
  const prep = reg.tool.interaction!;
  const payload = prep.prepare(params);
  const interactionId = ctx.ids.next('int');
  const out = await ctx.commit('interaction', async () => {
    const now = ctx.clock.now();
    const node = await upsertCallNode(ctx, run, call, reg, params, 'executing');
    const rec = { v: RECORD_VERSION, interactionId, threadId: run.threadId, runId: run.runId, toolCallId: call.id, nodeId: call.nodeId, kind: prep.kind, payload, status: 'pending' as const, createdAt: now };
    await ctx.store.interactions.put(rec);
    await ctx.store.runs.update(run.runId, (r) => {
      r.state = 'waiting_interaction';
      r.pendingTool = { toolCallId: call.id, nodeId: call.nodeId, name: call.name, params, phase: 'awaiting_interaction', interactionId, attempts: 0 };
    }, now);
    return { node, rec };
  });
  emitCommitted(ctx, out.node);
  ctx.emit(interactionEvent(out.rec));
  ctx.emit({ type: 'run.updated', threadId: run.threadId, runId: run.runId, state: 'waiting_interaction' });
  return 'parked';
}

async function execute(
  ctx: EngineContext,
  run: RunRecord,
  call: PlannedToolCall,
  reg: RegisteredTool,
  params: unknown,
  target: ToolTarget,
  tctx: ToolCallContext,
  signal: AbortSignal,
  prev: PreparedToolCall | undefined,
): Promise<StepOutcome> {
  const node = await ctx.commit('tool_start', async () => {
    const now = ctx.clock.now();
    const n = await upsertCallNode(ctx, run, call, reg, params, 'executing');
    await ctx.store.runs.update(run.runId, (r) => {
      r.state = 'executing_tool';
      r.pendingTool = {
        ...(prev ?? { toolCallId: call.id, nodeId: call.nodeId, name: call.name, params, attempts: 0 }),
        params,
        target,
        phase: 'executing',
        attempts: (prev?.attempts ?? 0) + 1,
      };
    }, now);
    return n;
  });
  emitCommitted(ctx, node);
  await ctx.boundary('tool:running');

  let progress = '';
  const liveCtx: ToolCallContext = {
    ...tctx,
    requestInteraction: async (kind, payload) => {
      const interactionId = ctx.ids.next('int');
      const rec = await ctx.commit('interaction_live', async () => {
        const now = ctx.clock.now();
        const r = { v: RECORD_VERSION, interactionId, threadId: run.threadId, runId: run.runId, toolCallId: call.id, nodeId: call.nodeId, kind, payload, status: 'pending' as const, createdAt: now };
        await ctx.store.interactions.put(r);
        await ctx.store.runs.update(run.runId, (x) => {
          x.state = 'waiting_interaction';
          if (x.pendingTool) x.pendingTool.interactionId = interactionId;
        }, now);
        return r;
      });
      ctx.emit(interactionEvent(rec));
      ctx.emit({ type: 'run.updated', threadId: run.threadId, runId: run.runId, state: 'waiting_interaction' });
      return ctx.waiters.wait(interactionId, signal);
    },
  };
  const callAbort = new AbortController();
  const onRunAbort = () => callAbort.abort(signal.reason);
  signal.addEventListener('abort', onRunAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbortReject: (() => void) | undefined;
  let result: ToolResult;
  try {
    // MCP calls keep their own deadline, reset by progress and paused while the user answers an
    // elicitation; every other tool gets the engine's fixed bound.
    const timeout = new Promise<never>((_, reject) => {
      if (reg.descriptor.level === 'mcp') return;
      timer = setTimeout(() => {
        callAbort.abort(new Error('timeout'));
        reject(new Error(`The tool did not finish within ${Math.round(ctx.options.toolTimeoutMs / 1000)} s and was stopped.`));
      }, ctx.options.toolTimeoutMs);
    });
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new RunAborted());
      onAbortReject = () => reject(new RunAborted());
      signal.addEventListener('abort', onAbortReject, { once: true });
    });
    result = await Promise.race([
      reg.tool.execute(call.id, params, callAbort.signal, (u) => {
        progress = u.progressText;
        ctx.emit({ type: 'item.delta', threadId: run.threadId, itemId: call.nodeId, delta: { toolProgress: u.progressText } });
      }, liveCtx),
      timeout,
      aborted,
    ]);
  } catch (e) {
    if (e instanceof RunAborted || signal.aborted) throw new RunAborted(progress);
    result = { content: text(errorText(e)), isError: true };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onRunAbort);
    if (onAbortReject) signal.removeEventListener('abort', onAbortReject);
  }
  await ctx.boundary('tool:returned');
  const ok = !result.isError;
  return finishCall(ctx, run, call, reg, { callState: 'result', ok, outcome: ok ? 'ok' : 'error', content: result.content, details: result.details, failure: ok ? 'success' : 'failure' });
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
      ...(d && !d.trusted && f.outcome === 'ok' ? { untrusted: true } : {}),
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
    }, now);
    return { created, run: r };
  });
  for (const n of out.created) emitCommitted(ctx, n);
  return out.run.state === 'completed' || out.run.state === 'failed' ? 'ended' : 'continue';
}
