import { pathFrom } from '../../store/threads-repo';
import type { NodeRecord } from '../../store/records';
import { ack, reject } from './receipts';
import { done, type Handler } from './op-handler';
import { isVisible, threadMeta, threadSnapshot } from '../views/thread-view';
import { readPublicSettings } from '../env/settings-service';
import { redactSecrets } from '../views/secret-scan';
import { Outbox, sendOutbox } from '../host/outbox';
import { isBusy } from '../run/run-machine';
import { supersedeCurrent } from '../turn/turn-lifecycle';
import { auditApprovals, auditSteps } from '../views/audit-trail';
import { matchThread, queryWords, type ThreadMatch } from '../views/thread-search';
import { listWorkflowMetas } from '../views/workflow-view';

/** How many threads' full snapshots `initialize` sends for '*' (the rest load on subscribe). */
const INITIAL_SNAPSHOTS = 20;

const initialize: Handler<'initialize'> = async (engine, client, op) => {
  engine.setSubscriptions(client, op.subscribe, 'replace');
  engine.holdEvents(client);
  const { store } = engine.ctx;
  const threads = await store.threads.list();
  const metas = await Promise.all(
    threads.map(async (t) => threadMeta(t, await store.runs.current(t.threadId))),
  );
  const wanted =
    op.subscribe?.includes('*') || !op.subscribe
      ? threads.slice(0, INITIAL_SNAPSHOTS).map((t) => t.threadId)
      : op.subscribe;
  const snapshots = [];
  for (const id of wanted) {
    const s = await threadSnapshot(store, id);
    if (s) snapshots.push(s);
  }
  const recording = await engine.ctx.browser?.recorder?.status();
  engine.releaseEvents(client, {
    type: 'initialized',
    threads: metas,
    snapshots,
    settings: await readPublicSettings(engine.ctx),
    workflows: await listWorkflowMetas(engine.ctx),
    ...(recording ? { recording } : {}),
  });
  return done(ack());
};

const subscribe: Handler<'thread.subscribe'> = async (engine, client, op) => {
  const snap = await threadSnapshot(engine.ctx.store, op.threadId);
  if (!snap) return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  engine.setSubscriptions(client, [op.threadId], 'add');
  // (Read before subscribing: an event racing the read is at worst applied twice — items upsert by id.)
  engine.sendTo(client, { type: 'thread.snapshot', snapshot: snap });
  return done(ack());
};

const unsubscribe: Handler<'thread.unsubscribe'> = async (engine, client, op) => {
  engine.setSubscriptions(client, [op.threadId], 'remove');
  return done(ack());
};

const create: Handler<'thread.create'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  const threadId = ids.next('thr');
  const t = store.threads.newThread({
    threadId,
    ...(op.title ? { title: op.title } : {}),
    now: clock.now(),
  });
  const outcome = ack({ threadId });
  await engine.ctx.commit('thread_create', async () => {
    await store.threads.put(t);
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => engine.ctx.emit({ type: 'thread.updated', thread: threadMeta(t) }));
};

const del: Handler<'thread.delete'> = async (engine, _client, op, ctx) => {
  const { store } = engine.ctx;
  const thread = await store.threads.get(op.threadId);
  if (!thread) return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const current = await store.runs.current(op.threadId);
  if (current && engine.driver.isLive(current.runId)) {
    return done(reject('busy', 'The thread is working on a task: interrupt it first.'));
  }
  const outcome = ack();
  await engine.ctx.commit('thread_delete', async () => {
    await store.threads.delete(op.threadId);
    await store.runs.deleteByThread(op.threadId);
    await store.approvals.deleteByThread(op.threadId);
    await store.interactions.deleteByThread(op.threadId);
    await ctx.writeReceipt(outcome);
  });
  return done(outcome, () => {
    engine.actors.delete(op.threadId);
    // Its recording goes too (best effort: frames are not engine records).
    void engine.ctx.browser?.frames?.deleteThread(op.threadId).catch(() => undefined);
    engine.ctx.emit({ type: 'thread.deleted', threadId: op.threadId });
  });
};

/**
 * While an approval or interaction waits — and after it was answered, until its continuation has
 * recorded the call's result — its thread's history may not move (spec/001 §5 exclusivity).
 */
async function exclusivity(
  engine: Parameters<Handler<'thread.fork'>>[0],
  threadId: string,
): Promise<string | null> {
  const current = await engine.ctx.store.runs.current(threadId);
  if (
    current &&
    (current.state === 'waiting_approval' || current.state === 'waiting_interaction')
  ) {
    return 'The thread is waiting for your answer to a pending request: answer it or interrupt first.';
  }
  if (current && current.pendingTool && CLAIMED_PHASES.has(current.pendingTool.phase)) {
    return 'The thread is carrying out an answered request: wait for it to finish or interrupt first.';
  }
  return null;
}

/** Phases of a call whose approval or answer was claimed but whose result is not recorded yet. */
const CLAIMED_PHASES = new Set([
  'approved',
  'denied',
  'denied_stop',
  'answered',
  'resolved_done',
  'resolved_failed',
]);

const fork: Handler<'thread.fork'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  const source = await store.threads.get(op.threadId);
  const node = await store.threads.getNode(op.nodeId);
  if (!source || !node || node.threadId !== op.threadId)
    return done(reject('not_found', 'That message does not exist in this thread.'));
  const busy = await exclusivity(engine, op.threadId);
  if (busy) return done(reject('busy', busy));
  const threadId = ids.next('thr');
  const now = clock.now();
  const outcome = ack({ threadId });
  const created = await engine.ctx.commit('thread_fork', async () => {
    const nodes = await store.threads.allNodes(op.threadId);
    const path = pathFrom(nodes, op.nodeId);
    const t = store.threads.newThread({
      threadId,
      title: source.title ? `${source.title} (fork)` : 'Fork',
      now,
      parentThreadId: op.threadId,
      forkedFromNodeId: op.nodeId,
    });
    t.titleSource = 'user';
    const idMap = new Map<string, string>();
    let seq = 0;
    for (const n of path) {
      const id = ids.next('n');
      idMap.set(n.id, id);
      const copy: NodeRecord = {
        ...structuredClone(n),
        id,
        threadId,
        parentId: n.parentId ? (idMap.get(n.parentId) ?? null) : null,
        seq: ++seq,
        item: { ...structuredClone(n.item), id },
      };
      if (copy.item.kind === 'tool_call' && copy.item.assistantId)
        copy.item.assistantId = idMap.get(copy.item.assistantId) ?? copy.item.assistantId;
      await store.threads.putNode(copy);
    }
    t.leafId = idMap.get(op.nodeId) ?? null;
    await store.threads.put(t);
    await ctx.writeReceipt(outcome);
    return t;
  });
  return done(outcome, () =>
    engine.ctx.emit({ type: 'thread.updated', thread: threadMeta(created) }),
  );
};

const selectBranch: Handler<'thread.selectBranch'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const thread = await store.threads.get(op.threadId);
  const node = await store.threads.getNode(op.leafId);
  if (!thread || !node || node.threadId !== op.threadId)
    return done(reject('not_found', 'That branch does not exist in this thread.'));
  const current = await store.runs.current(op.threadId);
  if (current && isBusy(current.state))
    return done(
      reject(
        'busy',
        'The thread is working on a task: switch branches when it is done, or interrupt it.',
      ),
    );
  const outcome = ack();
  // What superseding writes is sent after the ack, with the rest of this op's events.
  const afterAck = new Outbox();
  const updated = await engine.ctx.commit('select_branch', async () => {
    // A non-leaf id selects the newest leaf beneath it.
    const nodes = await store.threads.allNodes(op.threadId);
    let leaf = node;
    for (;;) {
      const kids = nodes.filter((n) => n.parentId === leaf.id);
      if (!kids.length) break;
      leaf = kids.reduce((a, b) => (b.seq > a.seq ? b : a));
    }
    // The run being left behind ends, its acked steers materialized at its own leaf first.
    const fresh = await store.runs.current(op.threadId);
    if (fresh && isBusy(fresh.state)) return null;
    await supersedeCurrent(engine, fresh, afterAck);
    const t = await store.threads.update(op.threadId, (t) => {
      t.leafId = leaf.id;
      t.updatedAt = clock.now();
    });
    await ctx.writeReceipt(outcome);
    return { t };
  });
  if (!updated)
    return done(
      reject(
        'busy',
        'The thread is working on a task: switch branches when it is done, or interrupt it.',
      ),
    );
  return done(outcome, () => {
    sendOutbox(engine.ctx, afterAck);
    engine.ctx.emit({ type: 'thread.updated', thread: threadMeta(updated.t) });
    void threadSnapshot(store, op.threadId)
      .then((s) => s && engine.ctx.emit({ type: 'thread.snapshot', snapshot: s }))
      .catch((e) => engine.onBackgroundError(e));
  });
};

const setOptions: Handler<'thread.setOptions'> = async (engine, _client, op, ctx) => {
  const { store } = engine.ctx;
  if (!(await store.threads.get(op.threadId)))
    return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const outcome = ack();
  const t = await engine.ctx.commit('thread_options', async () => {
    const t = await store.threads.update(op.threadId, (t) => {
      if (op.options.planFirst !== undefined) t.planFirst = op.options.planFirst;
      if (op.options.enabledSkills !== undefined) t.enabledSkills = op.options.enabledSkills;
    });
    await ctx.writeReceipt(outcome);
    return t;
  });
  return done(outcome, () => engine.ctx.emit({ type: 'thread.updated', thread: threadMeta(t) }));
};

/** The audit trail of a thread (spec/004): every node and run, without secrets. */
const exportThread: Handler<'thread.export'> = async (engine, _client, op) => {
  const { store } = engine.ctx;
  const t = await store.threads.get(op.threadId);
  if (!t) return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const nodes = (await store.threads.allNodes(op.threadId)).sort((a, b) => a.seq - b.seq);
  const runs = await store.runs.byThread(op.threadId);
  const approvals = await store.approvals.byThread(op.threadId);
  const payload = {
    format: 'keel.thread/v1',
    thread: threadMeta(t),
    nodes: nodes.map((n) => ({
      id: n.id,
      parentId: n.parentId,
      runId: n.runId,
      turnId: n.turnId,
      item: n.item,
      visible: isVisible(n.item),
    })),
    runs: runs.map((r) => ({
      runId: r.runId,
      turnId: r.turnId,
      state: r.state,
      stopReason: r.stopReason,
      usage: r.usage,
      costUsd: r.costUsd,
      model: r.env?.model,
      providerId: r.env?.providerId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    })),
    approvals: auditApprovals(approvals),
    steps: auditSteps(nodes, approvals),
    exportedAt: engine.ctx.clock.now(),
  };
  // Scanned before it leaves: a key the user pasted into a chat (or a page echoed) is redacted.
  const { text, found } = await redactSecrets(store, JSON.stringify(payload));
  return done(ack({ ...(JSON.parse(text) as object), redactedSecrets: found }));
};

/**
 * A thread's task recording (issue 30): its frames oldest first, each image as base64. The
 * summaries were redacted when the frames were made; they are scanned again here like an export.
 */
const threadRecording: Handler<'thread.recording'> = async (engine, _client, op) => {
  const { store } = engine.ctx;
  if (!(await store.threads.get(op.threadId)))
    return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const source = engine.ctx.browser?.frames;
  const frames = source ? await source.list(op.threadId, op.runId) : [];
  // One scan for every summary (reading the secrets decrypts each of them).
  const { text } = await redactSecrets(store, JSON.stringify(frames.map((f) => f.summary)));
  const summaries = JSON.parse(text) as string[];
  const out = frames.map((f, i) => ({
    frameId: f.frameId,
    runId: f.runId,
    toolCallId: f.toolCallId,
    tool: f.tool,
    at: f.at,
    summary: summaries[i] ?? '',
    mimeType: f.mimeType,
    width: f.width,
    height: f.height,
    dataBase64: bytesToBase64(f.bytes),
    ...(f.highlight ? { highlight: f.highlight } : {}),
  }));
  return done(
    ack({ frames: out, threadBytes: source ? await source.threadBytes(op.threadId) : 0 }),
  );
};

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Title and message search over every thread, newest first (the panel's thread list). */
const searchThreads: Handler<'thread.search'> = async (engine, _client, op) => {
  const { store } = engine.ctx;
  const words = queryWords(op.query);
  const limit = op.limit ?? 100;
  const matches: ThreadMatch[] = [];
  for (const t of await store.threads.list()) {
    if (matches.length >= limit) break;
    const hit = matchThread(t, await store.threads.allNodes(t.threadId), words);
    if (hit) matches.push(hit);
  }
  return done(ack({ matches }));
};

export const threadOps = {
  initialize,
  'thread.subscribe': subscribe,
  'thread.unsubscribe': unsubscribe,
  'thread.create': create,
  'thread.delete': del,
  'thread.fork': fork,
  'thread.selectBranch': selectBranch,
  'thread.setOptions': setOptions,
  'thread.export': exportThread,
  'thread.recording': threadRecording,
  'thread.search': searchThreads,
};
