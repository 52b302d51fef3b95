import type { Item, ProviderStopReason, StopReason, ToolCallItem } from '../protocol';
import type { NormalizedStopReason } from '../providers/types';
import type { NodeRecord, PlannedToolCall, RunRecord } from '../store/records';
import type { EngineContext } from './context';
import { currentRound, type StepOutcome } from './model-step';
import type { StreamResult } from './model-stream';
import { emitCommitted } from './nodes';
import { detectIntent, stripIntentTags } from './planning';
import { repairToolCallIds } from './tool-call-ids';
import { addUsage, costOf } from './usage';

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

/**
 * Commit a finished model message with its usage and the run's next state, in one transaction.
 * Tool calls run only from a `tool_use` message; calls from any other message are closed as invalid
 * before any side effect (spec/001 §2).
 */
export async function commitAssistant(ctx: EngineContext, run0: RunRecord, assistantId: string, res: StreamResult, path: NodeRecord[]): Promise<StepOutcome> {
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
      if (stop === 'max_tokens' && run.pendingSteers.length > 0) {
        // Acked steers are waiting: the turn goes on with them (spec/001 §3).
        next = 'streaming_model';
      } else if (stop === 'max_tokens') {
        stopReason = 'max_tokens';
      } else {
        // The turn fails: its acked steers are materialized first (spec/001 §3).
        for (const s of [...run.pendingSteers].sort((a, b) => a.seq - b.seq)) {
          const steer = await store.threads.appendNode({ threadId: run.threadId, parentId: leaf, runId: run.runId, turnId: run.turnId, item: { kind: 'user_message', id: ctx.ids.next('n'), createdAt: now, text: s.input.text, ...(s.input.images?.length ? { images: s.input.images } : {}), steered: true } });
          created.push(steer);
          leaf = steer.id;
        }
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
      if (next === 'failed') r.pendingSteers = [];
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
