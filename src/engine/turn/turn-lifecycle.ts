import type { UserInput } from '../../protocol';
import {
  RECORD_VERSION,
  type NodeRecord,
  type RunEnvironmentSnapshot,
  type RunRecord,
  type ThreadRecord,
} from '../../store/records';
import type { EngineHost } from './engine-host';
import { resolveEnvironment } from '../env/environment';
import { LeafWriter } from '../run/leaf-writer';
import { itemEvent, type Outbox } from '../host/outbox';
import { isSupersedable } from '../run/run-machine';
import { commitEnd } from '../run/run-end';
import { threadMeta } from '../views/thread-view';
import { generateTitle } from './titles';

export function newRun(fields: {
  runId: string;
  turnId: string;
  threadId: string;
  now: number;
  state: RunRecord['state'];
  input?: UserInput;
  queueSeq?: number;
  env?: RunEnvironmentSnapshot;
  tabId?: number;
  overrides?: RunRecord['overrides'];
}): RunRecord {
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
    counters: {
      consecutiveToolFailures: 0,
      toolsDisabled: false,
      modelAttempts: 0,
      budgetBaseline: 0,
    },
    pendingSteers: [],
    nextSteerSeq: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
  };
}

export function firstLineTitle(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line;
}

async function enabledSkills(
  engine: EngineHost,
  thread: ThreadRecord,
): Promise<{ name: string; description: string; body: string }[]> {
  const out = [];
  for (const name of thread.enabledSkills ?? []) {
    const s = await engine.ctx.store.skills.get(name);
    if (s) out.push({ name: s.name, description: s.description, body: s.body });
  }
  return out;
}

/** Resolve what a starting run needs outside any transaction (crypto, settings, the active tab). */
export async function prepareStart(
  engine: EngineHost,
  thread: ThreadRecord,
  overrides?: RunRecord['overrides'],
): Promise<{ env: RunEnvironmentSnapshot; tabId?: number }> {
  const { ctx } = engine;
  // A server added a moment ago should be in this run's catalog; never wait more than 5 s.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    ctx.live.toolsSettled().catch(() => undefined),
    new Promise((r) => (timer = setTimeout(r, 5_000))),
  ]);
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
export async function commitTurnStart(
  engine: EngineHost,
  args: {
    thread: ThreadRecord;
    run: RunRecord;
    input: UserInput;
    parentId: string | null;
    now: number;
  },
): Promise<{ node: NodeRecord; thread: ThreadRecord; firstTurn: boolean }> {
  const { store, ids } = engine.ctx;
  const node = await store.threads.appendNode({
    threadId: args.thread.threadId,
    parentId: args.parentId,
    runId: args.run.runId,
    turnId: args.run.turnId,
    item: {
      kind: 'user_message',
      id: ids.next('n'),
      createdAt: args.now,
      text: args.input.text,
      ...(args.input.images?.length ? { images: args.input.images } : {}),
    },
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
export function announceTurnStart(
  engine: EngineHost,
  r: { node: NodeRecord; thread: ThreadRecord; firstTurn: boolean; run: RunRecord },
  drive: 'schedule' | 'inline',
): Promise<void> | void {
  const { ctx } = engine;
  ctx.emit({ type: 'thread.updated', thread: threadMeta(r.thread, r.run) });
  ctx.emit({
    type: 'turn.start',
    threadId: r.run.threadId,
    turnId: r.run.turnId,
    runId: r.run.runId,
  });
  ctx.emit({
    type: 'item.start',
    threadId: r.run.threadId,
    turnId: r.run.turnId,
    item: r.node.item,
  });
  const item = itemEvent(r.node);
  if (item) ctx.emit(item);
  ctx.emit({
    type: 'run.updated',
    threadId: r.run.threadId,
    runId: r.run.runId,
    state: r.run.state,
  });
  if (r.firstTurn && r.thread.titleSource === 'first_line' && ctx.options.generateTitles) {
    void generateTitle(
      engine,
      r.thread.threadId,
      r.node.item.kind === 'user_message' ? r.node.item.text : '',
    ).catch((e) => engine.onBackgroundError(e));
  }
  if (drive === 'inline') return engine.driver.drive(r.run.runId);
  engine.schedule(r.run.threadId, r.run.runId);
}

/**
 * Inside a commit: a paused run that a new turn replaces (submit, branch selection) ends
 * `completed` with its stop reason kept — its acked pending steers materialized at its leaf first
 * (spec/001 §3), so superseding can never drop them. The nodes written go to `out`.
 */
export async function supersedeCurrent(
  engine: EngineHost,
  current: RunRecord | undefined,
  out: Outbox,
): Promise<void> {
  if (!current || !isSupersedable(current.state)) return;
  const w = await LeafWriter.open(engine.ctx, current, out);
  await commitEnd(engine.ctx, w, current, {
    by: 'supersedeCurrent',
    to: 'completed',
    stopReason: current.stopReason ?? 'interrupted',
  });
}

/** A message with images for a model that cannot see them: the reason to refuse it, or null. */
export function imagesRefusal(input: UserInput, vision: boolean, model: string): string | null {
  return input.images?.length && !vision
    ? `The model ${model} cannot see images: remove them or choose a model with vision.`
    : null;
}
