import type { UserInput } from '../protocol';
import { CURRENT_RUN_STATES } from '../store/runs-repo';
import { RECORD_VERSION, type NodeRecord, type RunEnvironmentSnapshot, type RunRecord, type ThreadRecord } from '../store/records';
import type { Engine } from './engine-core';
import { EnvironmentError, resolveEnvironment, verifyEnvironment } from './environment';
import { appendNotice, emitCommitted } from './nodes';
import { text, upsertCallNode } from './tool-call-node';
import { approvalEvent, interactionEvent, runSummary, threadMeta } from './thread-view';
import { generateTitle } from './titles';

/** Runs that are the thread's turn and busy (submit → `busy`; steer or enqueue instead). */
export const BUSY_STATES = new Set(['streaming_model', 'executing_tool', 'waiting_approval', 'waiting_interaction', 'paused_uncertain']);
/** Paused runs a new turn may replace (they end with their stop reason kept). */
export const SUPERSEDABLE = new Set(['interrupted', 'budget_paused']);

export function newRun(fields: { runId: string; turnId: string; threadId: string; now: number; state: RunRecord['state']; input?: UserInput; queueSeq?: number; env?: RunEnvironmentSnapshot; tabId?: number; overrides?: RunRecord['overrides'] }): RunRecord {
  return {
    v: RECORD_VERSION,
    runId: fields.runId,
    threadId: fields.threadId,
    turnId: fields.turnId,
    state: fields.state,
    createdAt: fields.now,
    updatedAt: fields.now,
    revision: 1,
    ...(fields.input ? { input: fields.input } : {}),
    ...(fields.queueSeq !== undefined ? { queueSeq: fields.queueSeq } : {}),
    ...(fields.env ? { env: fields.env } : {}),
    ...(fields.tabId !== undefined ? { tabId: fields.tabId } : {}),
    ...(fields.overrides ? { overrides: fields.overrides } : {}),
    stepCursor: { modelCalls: 0, toolCalls: [], nextToolIndex: 0 },
    counters: { consecutiveToolFailures: 0, toolsDisabled: false, modelAttempts: 0, budgetBaseline: 0 },
    pendingSteers: [],
    nextSteerSeq: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
  };
}

export function firstLineTitle(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line;
}

async function enabledSkills(engine: Engine, thread: ThreadRecord): Promise<{ name: string; description: string; body: string }[]> {
  const out = [];
  for (const name of thread.enabledSkills ?? []) {
    const s = await engine.ctx.store.skills.get(name);
    if (s) out.push({ name: s.name, description: s.description, body: s.body });
  }
  return out;
}

/** Resolve what a starting run needs outside any transaction (crypto, settings, the active tab). */
export async function prepareStart(engine: Engine, thread: ThreadRecord, overrides?: RunRecord['overrides']): Promise<{ env: RunEnvironmentSnapshot; tabId?: number }> {
  const { ctx } = engine;
  // A server added a moment ago should be in this run's catalog; never wait more than 5 s.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([ctx.live.toolsSettled().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
  clearTimeout(timer);
  const settings = await ctx.store.settings.get();
  const env = await resolveEnvironment({
    settings,
    ...(overrides ? { overrides } : {}),
    providers: ctx.providers,
    registry: ctx.registry,
    now: ctx.clock.now(),
    planFirst: thread.planFirst ?? false,
    maxBytes: ctx.options.maxSnapshotBytes,
    skills: await enabledSkills(engine, thread),
  });
  const tabId = await ctx.browser?.activeTabId().catch(() => undefined);
  return { env, ...(tabId !== undefined ? { tabId } : {}) };
}

/**
 * Inside a transaction: put the user's message after `parentId` and make `run` the thread's
 * running turn (spec/001 §2: turn context + user_message + Run(streaming_model) atomically).
 */
export async function commitTurnStart(engine: Engine, args: { thread: ThreadRecord; run: RunRecord; input: UserInput; parentId: string | null; now: number }): Promise<{ node: NodeRecord; thread: ThreadRecord; firstTurn: boolean }> {
  const { store, ids } = engine.ctx;
  const node = await store.threads.appendNode({
    threadId: args.thread.threadId,
    parentId: args.parentId,
    runId: args.run.runId,
    turnId: args.run.turnId,
    item: { kind: 'user_message', id: ids.next('n'), createdAt: args.now, text: args.input.text, ...(args.input.images?.length ? { images: args.input.images } : {}) },
  });
  const firstTurn = args.thread.titleSource === 'default';
  const thread = await store.threads.update(args.thread.threadId, (t) => {
    t.leafId = node.id;
    t.updatedAt = args.now;
    if (firstTurn) {
      const title = firstLineTitle(args.input.text);
      if (title) {
        t.title = title;
        t.titleSource = 'first_line';
      }
    }
  });
  return { node, thread, firstTurn };
}

/** After a turn-start commit: tell the UI, start the title, and drive the run. */
export function announceTurnStart(engine: Engine, r: { node: NodeRecord; thread: ThreadRecord; firstTurn: boolean; run: RunRecord }, drive: 'schedule' | 'inline'): Promise<void> | void {
  const { ctx } = engine;
  ctx.emit({ type: 'thread.updated', thread: threadMeta(r.thread, r.run) });
  ctx.emit({ type: 'turn.start', threadId: r.run.threadId, turnId: r.run.turnId, runId: r.run.runId });
  ctx.emit({ type: 'item.start', threadId: r.run.threadId, turnId: r.run.turnId, item: r.node.item });
  emitCommitted(ctx, r.node);
  ctx.emit({ type: 'run.updated', threadId: r.run.threadId, runId: r.run.runId, state: r.run.state });
  if (r.firstTurn && r.thread.titleSource === 'first_line' && ctx.options.generateTitles) {
    void generateTitle(engine, r.thread.threadId, r.node.item.kind === 'user_message' ? r.node.item.text : '').catch((e) => engine.onBackgroundError(e));
  }
  if (drive === 'inline') return engine.driver.drive(r.run.runId);
  engine.schedule(r.run.threadId, r.run.runId);
}

/** Start the next queued run of a thread if it has no current run ("started in order when a turn ends"). */
export function startNextQueued(engine: Engine, threadId: string): Promise<void> {
  return engine.actors.for(threadId).run(async () => {
    const { store, clock } = engine.ctx;
    for (;;) {
      if (await store.runs.current(threadId)) return;
      const next = (await store.runs.queued(threadId))[0];
      if (!next) return;
      const thread = await store.threads.get(threadId);
      if (!thread) return;
      let prepared: Awaited<ReturnType<typeof prepareStart>>;
      try {
        prepared = await prepareStart(engine, thread, next.overrides);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        await engine.ctx.commit('queued_failed', () =>
          store.runs.update(next.runId, (r) => {
            r.state = 'failed';
            r.stopReason = 'error';
            r.error = { code: e instanceof EnvironmentError ? e.code : 'internal', message };
          }, clock.now()),
        );
        engine.ctx.emit({ type: 'queue.updated', threadId, items: await queueItems(engine, threadId) });
        engine.ctx.emit({ type: 'turn.complete', threadId, turnId: next.turnId, runId: next.runId, stopReason: 'error', error: { code: 'no_provider', message } });
        continue;
      }
      const started = await engine.ctx.commit('queued_start', async () => {
        if (await store.runs.current(threadId)) return null;
        const r0 = await store.runs.get(next.runId);
        if (!r0 || r0.state !== 'queued') return null;
        const t = (await store.threads.get(threadId))!;
        const now = clock.now();
        const run = await store.runs.update(next.runId, (r) => {
          r.state = 'streaming_model';
          r.env = prepared.env;
          if (prepared.tabId !== undefined) r.tabId = prepared.tabId;
          delete r.queueSeq;
        }, now);
        const res = await commitTurnStart(engine, { thread: t, run, input: r0.input ?? { text: '' }, parentId: t.leafId, now });
        return { ...res, run };
      });
      if (!started) continue;
      engine.ctx.emit({ type: 'queue.updated', threadId, items: await queueItems(engine, threadId) });
      await announceTurnStart(engine, started, 'inline');
      return;
    }
  });
}

export async function queueItems(engine: Engine, threadId: string): Promise<{ queueItemId: string; input: UserInput }[]> {
  return (await engine.ctx.store.runs.queued(threadId)).map((r) => ({ queueItemId: r.runId, input: r.input ?? { text: '' } }));
}

/**
 * Recovery when the service worker starts (ARCHITECTURE.md "Run machine and recovery"):
 *
 * | state at death                    | on restart                                                     |
 * |-----------------------------------|----------------------------------------------------------------|
 * | queued                            | resolve the environment now and start (if the thread is free)  |
 * | streaming_model                   | verify the snapshot, redo the model call from the checkpoint   |
 * | executing_tool                    | verify; the tool step applies the recovery policy of the call  |
 * | waiting_approval / _interaction   | stay parked; the request is re-shown from its table            |
 * | budget_paused / interrupted /     | wait for the user                                              |
 * |   paused_uncertain                |                                                                |
 */
export async function recoverRuns(engine: Engine): Promise<void> {
  const { store, providers, registry } = engine.ctx;
  const runs = (await store.runs.unfinished()).sort((a, b) => a.createdAt - b.createdAt);
  const threadsWithQueue = new Set<string>();
  for (const run of runs) {
    if (run.state === 'queued') {
      threadsWithQueue.add(run.threadId);
      continue;
    }
    if (!CURRENT_RUN_STATES.includes(run.state)) continue;
    if (run.state === 'waiting_approval') {
      for (const a of await store.approvals.pendingForRun(run.runId)) engine.ctx.emit(approvalEvent(a));
      continue;
    }
    if (run.state === 'waiting_interaction') {
      for (const i of await store.interactions.pendingForRun(run.runId)) engine.ctx.emit(interactionEvent(i));
      continue;
    }
    if (run.state !== 'streaming_model' && run.state !== 'executing_tool') continue;
    const drift = run.env ? await verifyEnvironment(run.env, providers, registry.snapshot()) : 'the run has no environment snapshot';
    if (drift) {
      await refuseResume(engine, run, drift);
      continue;
    }
    engine.schedule(run.threadId, run.runId);
  }
  for (const threadId of threadsWithQueue) void startNextQueued(engine, threadId).catch((e) => engine.onBackgroundError(e));
}

async function refuseResume(engine: Engine, run: RunRecord, drift: string): Promise<void> {
  const { store, clock } = engine.ctx;
  const created = await engine.ctx.commit('refuse_resume', async () => {
    const cur = (await store.runs.get(run.runId))!;
    const now = clock.now();
    const out: NodeRecord[] = [];
    const append = async (item: NodeRecord['item']) => {
      const t = (await store.threads.get(cur.threadId))!;
      const n = await store.threads.appendNode({ threadId: cur.threadId, parentId: t.leafId, runId: cur.runId, turnId: cur.turnId, item });
      await store.threads.update(cur.threadId, (th) => void (th.leafId = n.id));
      out.push(n);
    };
    // The run fails, but first (spec/001 §2–§3) every call it still owed gets a result and its
    // acked steers are materialized, so the thread stays a valid conversation.
    const calls = cur.state === 'executing_tool' ? cur.stepCursor.toolCalls.slice(cur.stepCursor.nextToolIndex) : [];
    for (const c of calls) {
      const reg = engine.ctx.registry.get(c.name);
      out.push(await upsertCallNode(engine.ctx, cur, c, reg, c.args, 'invalid'));
      await append({ kind: 'tool_result', id: engine.ctx.ids.next('n'), createdAt: now, toolCallId: c.id, name: c.name, ok: false, outcome: 'lost', content: text('Not executed: Keel restarted and could not resume this task.'), ...(reg?.descriptor.visibility === 'internal' ? { visibility: 'internal' as const } : {}) });
    }
    for (const st of [...cur.pendingSteers].sort((a, b) => a.seq - b.seq)) {
      await append({ kind: 'user_message', id: engine.ctx.ids.next('n'), createdAt: now, text: st.input.text, ...(st.input.images?.length ? { images: st.input.images } : {}), steered: true });
    }
    const t = (await store.threads.get(cur.threadId))!;
    const n = await appendNotice(engine.ctx, cur, t.leafId, 'environment_drift', `This task could not resume after Keel restarted: ${drift}. Nothing more was run; send a new message to continue.`);
    await store.threads.update(cur.threadId, (th) => void (th.leafId = n.id));
    out.push(n);
    await store.runs.update(cur.runId, (r) => {
      r.state = 'failed';
      r.stopReason = 'error';
      r.error = { code: 'environment_drift', message: drift };
      r.pendingSteers = [];
      r.pendingTool = undefined;
      r.stepCursor = { ...r.stepCursor, nextToolIndex: r.stepCursor.toolCalls.length };
    }, now);
    return out;
  });
  for (const n of created) emitCommitted(engine.ctx, n);
  const r = (await store.runs.get(run.runId))!;
  engine.ctx.emit({ type: 'run.updated', threadId: r.threadId, runId: r.runId, state: r.state, run: runSummary(r) });
  engine.ctx.emit({ type: 'turn.complete', threadId: r.threadId, turnId: r.turnId, runId: r.runId, stopReason: 'error', error: r.error! });
}
