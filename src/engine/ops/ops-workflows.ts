import { WORKFLOW_VERSION } from '../../workflows/types';
import { deriveWorkflow } from '../../workflows/derive';
import { inputValues } from '../../workflows/inputs';
import type { ReplayState } from '../../workflows/replay';
import type { UserInput } from '../../protocol';
import { EnvironmentError } from '../env/environment';
import { Outbox, sendOutbox } from '../host/outbox';
import { done, type Handler } from './op-handler';
import { storeNewWorkflow } from './workflow-record';
import { ack, reject, type Outcome } from './receipts';
import { isBusy } from '../run/run-machine';
import { startState } from '../run/run-edges';
import { queueItems } from '../turn/queue';
import {
  announceTurnStart,
  commitTurnStart,
  newRun,
  supersedeCurrent,
} from '../turn/turn-lifecycle';
import { workflowRunStarted } from '../workflow/workflow-end';
import { prepareWorkflowStart } from '../turn/workflow-env';
import { publishWorkflows } from '../views/workflow-view';

/** workflow.save / run / update / delete (PROTOCOL.md §Workflows). */

const save: Handler<'workflow.save'> = async (engine, _client, op, ctx) => {
  const { store } = engine.ctx;
  if (!(await store.threads.get(op.threadId)))
    return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const run = (await store.runs.byThread(op.threadId)).find((r) => r.turnId === op.turnId);
  if (!run) return done(reject('not_found', `Turn ${op.turnId} does not exist in this thread.`));
  if (run.state !== 'completed' || run.stopReason !== 'end')
    return done(reject('not_replayable', 'Only a turn that completed can be saved as a workflow.'));
  const nodes = (await store.threads.allNodes(op.threadId))
    .filter((n) => n.turnId === op.turnId)
    .sort((a, b) => a.seq - b.seq);
  const last = nodes[nodes.length - 1];
  const path = last
    ? (await store.threads.path(op.threadId, last.id)).filter((n) => n.turnId === op.turnId)
    : [];
  const derived = deriveWorkflow(path.map((n) => n.item));
  if (derived.kind === 'not_replayable') return done(reject('not_replayable', derived.message));
  const outcome = await storeNewWorkflow(engine, ctx, {
    name: op.name,
    source: { threadId: op.threadId, turnId: op.turnId },
    definition: derived.workflow,
  });
  return done(
    outcome,
    () => void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e)),
  );
};

const runWorkflow: Handler<'workflow.run'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  const wf = await store.workflows.get(op.workflowId);
  if (!wf || wf.definition.v !== WORKFLOW_VERSION)
    return done(reject('not_found', `Workflow ${op.workflowId} does not exist.`));
  const known = new Set(wf.definition.inputs.map((i) => i.name));
  const unknown = Object.keys(op.inputs ?? {}).filter((k) => !known.has(k));
  if (unknown.length)
    return done(
      reject(
        'invalid_command',
        `This workflow has no input called ${unknown.map((k) => `"${k}"`).join(', ')}.`,
      ),
    );
  const values = inputValues(wf.definition.inputs, op.inputs);
  const missing = wf.definition.inputs.find(
    (i) => values[i.name] === undefined || values[i.name].trim() === '',
  );
  if (missing) return done(reject('invalid_command', `The input "${missing.name}" needs a value.`));
  // A scheduled run lands in the workflow's thread (created by its first scheduled run).
  const threadId0 = op.threadId ?? (op.trigger === 'schedule' ? wf.threadId : undefined);
  let thread = threadId0 ? await store.threads.get(threadId0) : undefined;
  if (op.threadId && !thread)
    return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  const fresh = !thread;
  thread ??= store.threads.newThread({
    threadId: ids.next('thr'),
    title: wf.name,
    now: clock.now(),
  });
  if (fresh) thread.titleSource = 'user';
  // A scheduled fire while the thread is busy waits in its queue (below); any other run is refused.
  const current0 = fresh ? undefined : await store.runs.current(thread.threadId);
  if (current0 && isBusy(current0.state) && op.trigger !== 'schedule')
    return done(reject('busy', 'A task is running in this thread: wait for it or interrupt it.'));
  let prepared: Awaited<ReturnType<typeof prepareWorkflowStart>>;
  try {
    prepared = await prepareWorkflowStart(engine, thread);
  } catch (e) {
    if (e instanceof EnvironmentError) return done(reject('invalid_command', e.message));
    throw e;
  }
  const threadId = thread.threadId;
  const runId = ids.next('run');
  const turnId = ids.next('turn');
  const outcome = ack({ threadId, turnId, runId });
  const t0 = thread;
  const state: ReplayState = {
    workflowId: wf.workflowId,
    definition: wf.definition,
    values,
    next: 0,
    phase: 'observe',
    replayed: 0,
    mode: 'replay',
    fallback: op.onDivergence ?? 'model',
    ...(op.trigger === 'schedule' ? { trigger: 'schedule' as const } : {}),
  };
  const shown = Object.entries(values)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const input = { text: `Run the workflow "${wf.name}"${shown ? ` (${shown})` : ''}.` };
  // What superseding writes is sent after the ack, with the rest of this op's events.
  const afterAck = new Outbox();
  const res = await engine.ctx.commit('workflow_run', async () => {
    if (fresh) await store.threads.put(t0);
    const current = await store.runs.current(threadId);
    if (current && isBusy(current.state)) {
      if (op.trigger !== 'schedule') return null;
      const queued = await queueFire(engine, { threadId, runId, turnId, input, state });
      if (queued) await ctx.writeReceipt(queued.queuedAs);
      return queued;
    }
    const now = clock.now();
    await supersedeCurrent(engine, current, afterAck);
    const t = (await store.threads.get(threadId))!;
    const r = newRun({
      runId,
      turnId,
      threadId,
      now,
      state: startState('runWorkflow', 'streaming_model'),
      env: prepared.env,
      ...(prepared.tabId !== undefined ? { tabId: prepared.tabId } : {}),
    });
    r.workflow = state;
    await store.runs.add(r);
    const started = await commitTurnStart(engine, {
      thread: t,
      run: r,
      input,
      parentId: t.leafId,
      now,
    });
    await workflowRunStarted(engine.ctx, r);
    await ctx.writeReceipt(outcome);
    return { ...started, run: r };
  });
  if (!res)
    return done(reject('busy', 'A task is running in this thread: wait for it or interrupt it.'));
  if ('queuedAs' in res)
    return done(res.queuedAs, () => {
      void queueItems(engine, threadId)
        .then((items) => engine.ctx.emit({ type: 'queue.updated', threadId, items }))
        .catch((e) => engine.onBackgroundError(e));
    });
  return done(outcome, () => {
    sendOutbox(engine.ctx, afterAck);
    void announceTurnStart(engine, res, 'schedule');
    void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e));
  });
};

/**
 * A scheduled fire while the workflow's thread is busy (the previous run still going, or waiting
 * for the user): queued behind it, durable like any queued message, and started when that run
 * ends (src/engine/queue.ts). At most one fire per workflow waits: a later fire while one does
 * is acknowledged with the waiting run. Null when the thread's queue is full (the fire is skipped).
 */
async function queueFire(
  engine: Parameters<Handler<'workflow.run'>>[0],
  f: { threadId: string; runId: string; turnId: string; input: UserInput; state: ReplayState },
): Promise<{ queuedAs: Outcome } | null> {
  const { store, clock, options } = engine.ctx;
  const queued = await store.runs.queued(f.threadId);
  const waiting = queued.find((r) => r.workflow?.workflowId === f.state.workflowId);
  const ids = { threadId: f.threadId, queued: true };
  if (waiting) return { queuedAs: ack({ ...ids, turnId: waiting.turnId, runId: waiting.runId }) };
  if (queued.length >= options.maxQueue) return null;
  const r = newRun({
    runId: f.runId,
    turnId: f.turnId,
    threadId: f.threadId,
    now: clock.now(),
    state: startState('queueFire', 'queued'),
    input: f.input,
    queueSeq: (queued[queued.length - 1]?.queueSeq ?? 0) + 1,
  });
  r.workflow = f.state;
  await store.runs.add(r);
  return { queuedAs: ack({ ...ids, turnId: f.turnId, runId: f.runId }) };
}

const update: Handler<'workflow.update'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const wf = await store.workflows.get(op.workflowId);
  if (!wf) return done(reject('not_found', `Workflow ${op.workflowId} does not exist.`));
  const known = new Set(wf.definition.inputs.map((i) => i.name));
  const unknown = (op.patch.inputs ?? []).filter((i) => !known.has(i.name));
  if (unknown.length)
    return done(
      reject(
        'invalid_command',
        `This workflow has no input called "${unknown[0].name}" (inputs come from the saved task).`,
      ),
    );
  // A recorded password is never stored: it has no default and cannot be given one.
  const secret = (op.patch.inputs ?? []).find(
    (i) =>
      i.default !== undefined && wf.definition.inputs.some((x) => x.name === i.name && x.secret),
  );
  if (secret)
    return done(
      reject(
        'invalid_command',
        `The input "${secret.name}" is a secret: it is asked for at each run and never stored.`,
      ),
    );
  const outcome = ack();
  await engine.ctx.commit('workflow_update', async () => {
    await store.workflows.update(op.workflowId, (w) => {
      const defaults = new Map((op.patch.inputs ?? []).map((i) => [i.name, i.default]));
      const inputs = w.definition.inputs.map((i) => {
        if (!defaults.has(i.name) || i.secret) return i;
        const d = defaults.get(i.name);
        return d === undefined ? { name: i.name } : { name: i.name, default: d };
      });
      return {
        ...w,
        updatedAt: clock.now(),
        ...(op.patch.name !== undefined ? { name: op.patch.name } : {}),
        ...(op.patch.schedule !== undefined ? { schedule: op.patch.schedule } : {}),
        definition: { ...w.definition, inputs },
      };
    });
    await ctx.writeReceipt(outcome);
  });
  return done(
    outcome,
    () => void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e)),
  );
};

const del: Handler<'workflow.delete'> = async (engine, _client, op, ctx) => {
  const { store } = engine.ctx;
  if (!(await store.workflows.get(op.workflowId)))
    return done(reject('not_found', `Workflow ${op.workflowId} does not exist.`));
  const outcome = ack();
  await engine.ctx.commit('workflow_delete', async () => {
    await store.workflows.remove(op.workflowId);
    await ctx.writeReceipt(outcome);
  });
  return done(
    outcome,
    () => void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e)),
  );
};

export const workflowOps = {
  'workflow.save': save,
  'workflow.run': runWorkflow,
  'workflow.update': update,
  'workflow.delete': del,
};
