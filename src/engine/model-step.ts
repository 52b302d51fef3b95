import type { Item, ProviderStopReason, StopReason, ThinkingPart, ToolCallItem, Usage } from '../protocol';
import type { NormalizedStopReason, Provider, ProviderError, ProviderRequest } from '../providers/types';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../store/records';
import { toolSpecs } from '../tools/registry';
import { DEFAULT_TRUNCATION, buildContext } from './context-builder';
import { estimateTokens, maybeCompact } from './compaction';
import { CONTINUATION_PROMPT, IntentTagFilter, PLANNING_PROMPT, detectIntent, stripIntentTags } from './planning';
import { RunAborted, type EngineContext } from './context';
import { repairToolCallIds } from './tool-call-ids';
import { addUsage, costOf, totalTokens } from './usage';

export type StepOutcome = 'continue' | 'parked' | 'ended';

interface StreamedCall {
  index: number;
  id: string;
  name: string;
  args: string;
  nodeId: string;
}

interface StreamResult {
  text: string;
  thinking: string;
  thinkingParts: ThinkingPart[];
  calls: StreamedCall[];
  usage: Usage;
  stop: NormalizedStopReason | null;
  error: ProviderError | null;
}

/** Map a final provider stop reason onto the turn's stop reason. */
export function turnStopReason(stop: NormalizedStopReason): StopReason {
  switch (stop) {
    case 'end':
    case 'tool_use':
      return 'end';
    case 'max_tokens':
    case 'content_filter':
    case 'refusal':
      return stop;
    case 'error':
      return 'error';
  }
}

/**
 * One model call of a run (spec/001 §2): take the steer cutoff and materialize admitted steers
 * after the leaf, build the context, stream, and commit the assistant message with its usage and
 * the run's next state in one transaction. Partial streams are never persisted: a failed or
 * interrupted attempt is discarded and redone from this checkpoint.
 */
export async function modelStep(ctx: EngineContext, runId: string, signal: AbortSignal): Promise<StepOutcome> {
  const { store } = ctx;

  // 1. Cutoff: one per request. Budget check, steers materialized, attempt counted — atomically.
  const cut = await ctx.commit('cutoff', async () => {
    const run = await store.runs.get(runId);
    if (!run || run.state !== 'streaming_model' || !run.env) return null;
    const thread = await store.threads.get(run.threadId);
    if (!thread) return null;
    const now = ctx.clock.now();
    const budget = run.env.tokenBudget;
    if (budget !== null && run.stepCursor.modelCalls > 0 && totalTokens(run.usage) - run.counters.budgetBaseline >= budget) {
      const notice = await appendNotice(ctx, run, thread.leafId, 'budget_pause', `Paused: this turn used its token budget (${budget.toLocaleString('en-US')} tokens). Continue to give it another budget.`);
      await store.threads.update(run.threadId, (t) => {
        t.leafId = notice.id;
        t.updatedAt = now;
      });
      const r = await store.runs.update(runId, (r) => {
        r.state = 'budget_paused';
        r.stopReason = 'budget_pause';
      }, now);
      return { kind: 'budget' as const, run: r, created: [notice] };
    }
    const steers = [...run.pendingSteers].sort((a, b) => a.seq - b.seq);
    let leaf = thread.leafId;
    const created: NodeRecord[] = [];
    for (const s of steers) {
      const node = await store.threads.appendNode({
        threadId: run.threadId,
        parentId: leaf,
        runId,
        turnId: run.turnId,
        item: { kind: 'user_message', id: ctx.ids.next('n'), createdAt: now, text: s.input.text, ...(s.input.images?.length ? { images: s.input.images } : {}), steered: true },
      });
      created.push(node);
      leaf = node.id;
    }
    if (steers.length) {
      await store.threads.update(run.threadId, (t) => {
        t.leafId = leaf;
        t.updatedAt = now;
      });
    }
    const attempts = run.counters.modelAttempts + 1;
    if (attempts > ctx.options.maxModelAttempts) {
      const r = await store.runs.update(runId, (r) => {
        r.pendingSteers = [];
        r.state = 'failed';
        r.stopReason = 'error';
        r.error = { code: 'model_failed', message: `The model call failed ${ctx.options.maxModelAttempts} times; the run stopped. Retry with Continue or a new message.` };
      }, now);
      return { kind: 'failed' as const, run: r, created };
    }
    const r = await store.runs.update(runId, (r) => {
      r.pendingSteers = [];
      r.counters.modelAttempts = attempts;
    }, now);
    return { kind: 'call' as const, run: r, leaf, created };
  });
  if (!cut) return 'ended';
  for (const n of cut.created) emitCommitted(ctx, n);
  if (cut.kind !== 'call') return 'ended';
  const run = cut.run;
  const env = run.env!;

  // 2. Context from the path (old tool results clipped; older turns summarized when the window
  // fills up), and the provider.
  const round = currentRound(run);
  const contextOpts = { vision: env.modelInfo.vision, providerKind: env.transport.kind, truncate: DEFAULT_TRUNCATION };
  let path = await store.threads.path(run.threadId, cut.leaf);
  let messages = buildContext(path, contextOpts);
  const tools = env.modelInfo.toolUse && !round ? toolSpecs(env.toolCatalog) : [];
  const estimate = estimateTokens(env.systemPrompt, messages, JSON.stringify(tools));
  const compacted = await maybeCompact(ctx, run, path, estimate);
  if (compacted !== path) {
    path = compacted;
    messages = buildContext(path, contextOpts);
  }
  const provider = await ctx.providers.resolve(env.providerId);
  if (!provider) return failRun(ctx, runId, { code: 'no_provider', message: `Provider "${env.providerId}" is not configured any more.` });
  const toolsDisabled = run.counters.toolsDisabled;
  const system = round === 'plan' ? `${env.systemPrompt}\n\n${PLANNING_PROMPT}` : round === 'continuation' ? `${env.systemPrompt}\n\n${CONTINUATION_PROMPT}` : env.systemPrompt;
  const request: ProviderRequest = {
    model: env.model,
    system,
    messages,
    tools,
    ...(toolsDisabled && tools.length ? { toolChoice: 'none' as const } : {}),
    maxOutputTokens: Math.min(env.modelInfo.maxOutputTokens, 32_000),
    signal,
  };

  // 3. Stream.
  const assistantId = ctx.ids.next('n');
  const res = await streamOnce(ctx, run, provider, assistantId, request, round ? new IntentTagFilter() : null);
  if (signal.aborted) {
    discard(ctx, run.threadId, assistantId, res.calls);
    throw new RunAborted();
  }
  if (res.error || !res.stop) {
    discard(ctx, run.threadId, assistantId, res.calls);
    const err = res.error ?? { code: 'stream' as const, message: 'The model stream ended without a stop reason.', retryable: true };
    return attemptFailed(ctx, runId, err);
  }

  // 4. Commit the assistant message and decide the run's next state.
  return commitAssistant(ctx, run, assistantId, res, path);
}

/** The round this model call belongs to: a planning round first when the thread asks for one. */
export function currentRound(run: RunRecord): 'plan' | 'continuation' | undefined {
  const r = run.stepCursor.round;
  if (r === 'plan' || r === 'continuation') return r;
  return run.env?.planFirst && run.stepCursor.modelCalls === 0 ? 'plan' : undefined;
}

async function streamOnce(ctx: EngineContext, run: RunRecord, provider: Provider, assistantId: string, request: ProviderRequest, tags: IntentTagFilter | null): Promise<StreamResult> {
  const res: StreamResult = { text: '', thinking: '', thinkingParts: [], calls: [], usage: { inputTokens: 0, outputTokens: 0 }, stop: null, error: null };
  const byIndex = new Map<number, StreamedCall>();
  const threadId = run.threadId;
  ctx.emit({
    type: 'item.start',
    threadId,
    turnId: run.turnId,
    item: { kind: 'assistant_message', id: assistantId, createdAt: ctx.clock.now(), text: '', providerStopReason: 'end', streaming: true, model: run.env!.model },
  });
  let first = true;
  try {
    for await (const ev of provider.stream(request)) {
      if (first) {
        first = false;
        await ctx.boundary('stream:first');
      }
      switch (ev.type) {
        case 'text_delta': {
          res.text += ev.text;
          // Intent tags of a planning round never reach the user.
          const shown = tags ? tags.push(ev.text) : ev.text;
          if (shown) ctx.emit({ type: 'item.delta', threadId, itemId: assistantId, delta: { text: shown } });
          break;
        }
        case 'thinking_delta':
          res.thinking += ev.text;
          ctx.emit({ type: 'item.delta', threadId, itemId: assistantId, delta: { thinking: ev.text } });
          break;
        case 'thinking_block':
          res.thinkingParts.push({ ...ev.part, providerKind: ev.part.providerKind ?? run.env!.transport.kind });
          break;
        case 'tool_call_start': {
          const call: StreamedCall = { index: ev.index, id: ev.id, name: ev.name, args: '', nodeId: ctx.ids.next('n') };
          byIndex.set(ev.index, call);
          res.calls.push(call);
          const visible = ctx.registry.get(ev.name)?.descriptor.visibility !== 'internal';
          if (visible) {
            ctx.emit({
              type: 'item.start',
              threadId,
              turnId: run.turnId,
              item: { kind: 'tool_call', id: call.nodeId, createdAt: ctx.clock.now(), toolCallId: ev.id, assistantId, name: ev.name, label: labelOf(ctx, ev.name), params: {}, state: 'start' },
            });
          }
          break;
        }
        case 'tool_call_delta': {
          const call = byIndex.get(ev.index);
          if (call) {
            call.args += ev.argsFragment;
            ctx.emit({ type: 'item.delta', threadId, itemId: call.nodeId, delta: { toolArgs: ev.argsFragment } });
          }
          break;
        }
        case 'tool_call_end':
          break;
        case 'usage':
          res.usage = ev.usage;
          break;
        case 'stop':
          res.stop = ev.reason;
          break;
        case 'error':
          res.error = ev.error;
          break;
      }
      if (res.stop || res.error) break;
    }
  } catch (e) {
    // Provider contract says stream never throws; a bug there must not wedge the run.
    res.error = { code: 'stream', message: e instanceof Error ? e.message : String(e), retryable: true };
  }
  const rest = tags?.flush();
  if (rest && !res.error) ctx.emit({ type: 'item.delta', threadId, itemId: assistantId, delta: { text: rest } });
  await ctx.boundary('stream:end');
  return res;
}

function labelOf(ctx: EngineContext, name: string): string {
  return ctx.registry.get(name)?.descriptor.label ?? name;
}

function discard(ctx: EngineContext, threadId: string, assistantId: string, calls: StreamedCall[]): void {
  for (const c of calls) ctx.emit({ type: 'item.discarded', threadId, itemId: c.nodeId });
  ctx.emit({ type: 'item.discarded', threadId, itemId: assistantId });
}

/** A failed attempt: retry from the checkpoint while attempts remain and the error may pass. */
async function attemptFailed(ctx: EngineContext, runId: string, err: ProviderError): Promise<StepOutcome> {
  const { store } = ctx;
  const out = await ctx.commit('attempt_failed', async () => {
    const run = (await store.runs.get(runId))!;
    const now = ctx.clock.now();
    const retry = err.retryable && run.counters.modelAttempts < ctx.options.maxModelAttempts && err.code !== 'aborted';
    const thread = (await store.threads.get(run.threadId))!;
    const text = retry
      ? `The model call failed (${err.message}). Retrying from the last checkpoint (attempt ${run.counters.modelAttempts + 1} of ${ctx.options.maxModelAttempts}).`
      : `The model call failed: ${err.message}`;
    const notice = await appendNotice(ctx, run, thread.leafId, 'model_error', text);
    await store.threads.update(run.threadId, (t) => {
      t.leafId = notice.id;
      t.updatedAt = now;
    });
    const r = retry
      ? run
      : await store.runs.update(runId, (r) => {
          r.state = 'failed';
          r.stopReason = 'error';
          r.error = { code: err.code, message: err.message };
        }, now);
    return { retry, notice, run: r };
  });
  emitCommitted(ctx, out.notice);
  return out.retry ? 'continue' : 'ended';
}

export async function failRun(ctx: EngineContext, runId: string, error: { code: string; message: string }): Promise<StepOutcome> {
  const { store } = ctx;
  const notice = await ctx.commit('fail_run', async () => {
    const run = (await store.runs.get(runId))!;
    const thread = (await store.threads.get(run.threadId))!;
    const now = ctx.clock.now();
    const n = await appendNotice(ctx, run, thread.leafId, error.code, error.message);
    await store.threads.update(run.threadId, (t) => {
      t.leafId = n.id;
      t.updatedAt = now;
    });
    await store.runs.update(runId, (r) => {
      r.state = 'failed';
      r.stopReason = 'error';
      r.error = error;
    }, now);
    return n;
  });
  emitCommitted(ctx, notice);
  return 'ended';
}

function parseArgs(raw: string): { args: unknown; rawArgs?: string } {
  if (!raw.trim()) return { args: {} };
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { args: v };
    return { args: {}, rawArgs: raw };
  } catch {
    return { args: {}, rawArgs: raw };
  }
}

async function commitAssistant(ctx: EngineContext, run0: RunRecord, assistantId: string, res: StreamResult, path: NodeRecord[]): Promise<StepOutcome> {
  const { store } = ctx;
  const env = run0.env!;
  const used = new Set<string>();
  for (const n of path) if (n.item.kind === 'assistant_message') for (const c of n.item.toolCalls ?? []) used.add(c.id);
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

  const out = await ctx.commit('assistant', async () => {
    const run = (await store.runs.get(run0.runId))!;
    const thread = (await store.threads.get(run.threadId))!;
    const now = ctx.clock.now();
    const providerStopReason: ProviderStopReason = stop;
    const item: Item = {
      kind: 'assistant_message',
      id: assistantId,
      createdAt: now,
      text: shownText,
      ...(round ? { round } : {}),
      ...(res.thinking ? { thinking: res.thinking } : {}),
      ...(res.thinkingParts.length ? { thinkingParts: res.thinkingParts } : {}),
      providerStopReason,
      usage: res.usage,
      model: env.model,
      providerId: env.providerId,
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(planned.length ? { toolCalls: planned.map(({ nodeId: _n, ...c }) => c) } : {}),
    };
    const created: NodeRecord[] = [await store.threads.appendNode({ threadId: run.threadId, parentId: thread.leafId, item, runId: run.runId, turnId: run.turnId })];
    let leaf = assistantId;

    let next: RunRecord['state'] = 'completed';
    let stopReason: StopReason | undefined;
    let error: { code: string; message: string } | undefined;
    const closeCalls = async (why: string) => {
      for (const c of planned) {
        const call = await store.threads.appendNode({ threadId: run.threadId, parentId: leaf, runId: run.runId, turnId: run.turnId, item: invalidCallItem(ctx, c, assistantId, now) });
        const result = await store.threads.appendNode({
          threadId: run.threadId,
          parentId: call.id,
          runId: run.runId,
          turnId: run.turnId,
          item: { kind: 'tool_result', id: ctx.ids.next('n'), createdAt: now, toolCallId: c.id, name: c.name, ok: false, outcome: 'invalid', content: [{ type: 'text', text: why }] },
        });
        created.push(call, result);
        leaf = result.id;
      }
    };

    let nextRound: 'continuation' | undefined;
    if (round) {
      // Planning and continuation rounds offer no tools: any call is closed, never run.
      if (planned.length) await closeCalls('Not executed: tools are not available in this round.');
      if (round === 'plan' && stop !== 'max_tokens' && stop !== 'error' && stop !== 'content_filter' && stop !== 'refusal') {
        next = 'streaming_model';
        if (intent === 'no_tool') nextRound = 'continuation';
      } else {
        stopReason = turnStopReason(stop);
        if (stop === 'error') next = 'failed';
      }
    } else if (run.counters.toolsDisabled) {
      if (planned.length) await closeCalls('Not executed: tools are disabled after repeated failures.');
      stopReason = 'tool_failures';
    } else if (planned.length && stop === 'tool_use') {
      next = 'executing_tool';
    } else if (planned.length) {
      // Fail closed before any side effect: calls from a truncated or otherwise non-tool_use
      // message may be incomplete (spec/001 §2).
      await closeCalls(`Not executed: the response ended with "${stop}" instead of a tool call, so the call may be incomplete.`);
      if (stop === 'max_tokens') {
        stopReason = 'max_tokens';
      } else {
        next = 'failed';
        stopReason = 'error';
        error = { code: 'protocol_error', message: `The model requested tools but its response ended with "${stop}"; nothing was executed.` };
      }
    } else if (run.pendingSteers.length > 0) {
      // A steer arrived while the final answer streamed: the turn goes on (spec/001 §3).
      next = 'streaming_model';
    } else {
      stopReason = turnStopReason(stop);
      if (stop === 'error') next = 'failed';
    }

    const t = await store.threads.update(run.threadId, (t) => {
      t.leafId = leaf;
      t.updatedAt = now;
      t.usage = addUsage(t.usage, res.usage);
      t.costUsd += cost ?? 0;
    });
    const r = await store.runs.update(run.runId, (r) => {
      r.usage = addUsage(r.usage, res.usage);
      r.costUsd += cost ?? 0;
      r.counters.modelAttempts = 0;
      r.stepCursor = { ...r.stepCursor, modelCalls: r.stepCursor.modelCalls + 1, assistantNodeId: assistantId, toolCalls: next === 'executing_tool' ? planned : [], nextToolIndex: 0 };
      if (nextRound) r.stepCursor.round = nextRound;
      else delete r.stepCursor.round;
      r.state = next;
      if (stopReason) r.stopReason = stopReason;
      if (error) r.error = error;
    }, now);
    return { created, run: r, thread: t };
  });

  for (const n of out.created) emitCommitted(ctx, n);
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
  return out.run.state === 'executing_tool' || out.run.state === 'streaming_model' ? 'continue' : 'ended';
}

function invalidCallItem(ctx: EngineContext, c: PlannedToolCall, assistantId: string, now: number): ToolCallItem {
  const d = ctx.registry.get(c.name)?.descriptor;
  return {
    kind: 'tool_call',
    id: c.nodeId,
    createdAt: now,
    toolCallId: c.id,
    assistantId,
    name: c.name,
    label: d?.label ?? c.name,
    params: c.args,
    state: 'invalid',
    ...(d ? { level: d.level, effects: d.effects, visibility: d.visibility } : {}),
    ...(c.rawArgs !== undefined ? { rawArgs: c.rawArgs } : {}),
  };
}

export async function appendNotice(ctx: EngineContext, run: RunRecord, parentId: string | null, code: string, text: string, forModel = false): Promise<NodeRecord> {
  return ctx.store.threads.appendNode({
    threadId: run.threadId,
    parentId,
    runId: run.runId,
    turnId: run.turnId,
    item: { kind: 'notice', id: ctx.ids.next('n'), createdAt: ctx.clock.now(), code, text, ...(forModel ? { forModel: true } : {}) },
  });
}

/** Emit a committed node: `item.complete` (the UI upserts by id), hidden for internal tools. */
export function emitCommitted(ctx: EngineContext, n: NodeRecord): void {
  const vis = (n.item as { visibility?: string }).visibility;
  if ((n.item.kind === 'tool_call' || n.item.kind === 'tool_result') && vis === 'internal') return;
  ctx.emit({ type: 'item.complete', threadId: n.threadId, item: n.item });
}
