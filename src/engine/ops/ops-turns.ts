import { EnvironmentError } from '../env/environment';
import { Outbox, sendOutbox } from '../host/outbox';
import { ack, reject } from './receipts';
import { done, type Handler } from './op-handler';
import { queueItems, queuedInputRefusal, startNextQueued } from '../turn/queue';
import { isBusy, isSteerable } from '../run/run-machine';
import { startState } from '../run/run-edges';
import { admitSteer } from '../run/steer-admission';
import { threadMeta, threadSnapshot } from '../views/thread-view';
import {
  announceTurnStart,
  commitTurnStart,
  imagesRefusal,
  newRun,
  prepareStart,
  supersedeCurrent,
} from '../turn/turn-lifecycle';

const submit: Handler<'turn.submit'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  const thread = await store.threads.get(op.threadId);
  if (!thread) return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  if (op.parentNodeId) {
    const parent = await store.threads.getNode(op.parentNodeId);
    if (!parent || parent.threadId !== op.threadId)
      return done(reject('not_found', 'The message to branch from does not exist in this thread.'));
  }
  const current0 = await store.runs.current(op.threadId);
  if (current0 && isBusy(current0.state))
    return done(
      reject('busy', 'A task is running in this thread: steer it or queue your message.'),
    );
  if (!op.input.text.trim() && !op.input.images?.length)
    return done(reject('invalid_command', 'The message is empty.'));
  let prepared: Awaited<ReturnType<typeof prepareStart>>;
  try {
    prepared = await prepareStart(engine, thread, op.overrides);
  } catch (e) {
    if (e instanceof EnvironmentError)
      return done(reject(e.code === 'no_provider' ? 'no_provider' : 'invalid_command', e.message));
    throw e;
  }
  const images = imagesRefusal(op.input, prepared.env.modelInfo.vision, prepared.env.model);
  if (images) return done(reject('invalid_command', images));
  const runId = ids.next('run');
  const turnId = ids.next('turn');
  const outcome = ack({ turnId, runId });
  // What superseding writes is sent after the ack, with the rest of this op's events.
  const afterAck = new Outbox();
  const res = await engine.ctx.commit('turn_start', async () => {
    const current = await store.runs.current(op.threadId);
    if (current && isBusy(current.state)) return null;
    const now = clock.now();
    // Before the new message: the paused run's acked steers land at its leaf, then it ends.
    await supersedeCurrent(engine, current, afterAck);
    const t = (await store.threads.get(op.threadId))!;
    const run = newRun({
      runId,
      turnId,
      threadId: op.threadId,
      now,
      state: startState('submit', 'streaming_model'),
      env: prepared.env,
      ...(prepared.tabId !== undefined ? { tabId: prepared.tabId } : {}),
      ...(op.overrides ? { overrides: op.overrides } : {}),
    });
    await store.runs.add(run);
    const started = await commitTurnStart(engine, {
      thread: t,
      run,
      input: op.input,
      parentId: op.parentNodeId ?? t.leafId,
      now,
    });
    await ctx.writeReceipt(outcome);
    return { ...started, run };
  });
  if (!res)
    return done(
      reject('busy', 'A task is running in this thread: steer it or queue your message.'),
    );
  return done(outcome, () => {
    sendOutbox(engine.ctx, afterAck);
    void announceTurnStart(engine, res, 'schedule');
    // A new branch replaces the visible path: send the whole path, not just the new items.
    if (op.parentNodeId)
      void threadSnapshot(store, op.threadId)
        .then((s) => s && engine.ctx.emit({ type: 'thread.snapshot', snapshot: s }))
        .catch((e) => engine.onBackgroundError(e));
  });
};

/**
 * A steer is acknowledged only once it is durable in the run's pending set with its admission
 * sequence (spec/001 §3). It never waits for the thread's actor: a running turn must not delay it.
 */
const steer: Handler<'turn.steer'> = async (engine, _client, op, ctx) => {
  const { ids } = engine.ctx;
  if (!op.input.text.trim() && !op.input.images?.length)
    return done(reject('invalid_command', 'The message is empty.'));
  const steerId = ids.next('str');
  const outcome = ack({ steerId });
  const res = await engine.ctx.commit('steer', () =>
    admitSteer(engine.ctx, {
      threadId: op.threadId,
      expectedTurnId: op.expectedTurnId,
      input: op.input,
      steerId,
      writeReceipt: (o) => ctx.writeReceipt(o),
      outcome,
    }),
  );
  return done(res);
};

const enqueue: Handler<'turn.enqueue'> = async (engine, _client, op, ctx) => {
  const { store, ids, clock } = engine.ctx;
  if (!(await store.threads.get(op.threadId)))
    return done(reject('not_found', `Thread ${op.threadId} does not exist.`));
  if (!op.input.text.trim() && !op.input.images?.length)
    return done(reject('invalid_command', 'The message is empty.'));
  const images = await queuedInputRefusal(engine, op.input);
  if (images) return done(reject('invalid_command', images));
  const runId = ids.next('run');
  const outcome = ack({ queueItemId: runId });
  const res = await engine.ctx.commit('enqueue', async () => {
    const queued = await store.runs.queued(op.threadId);
    if (queued.length >= engine.ctx.options.maxQueue)
      return reject(
        'queue_full',
        `The queue holds at most ${engine.ctx.options.maxQueue} messages.`,
      );
    const seq = (queued[queued.length - 1]?.queueSeq ?? 0) + 1;
    await store.runs.add(
      newRun({
        runId,
        turnId: ids.next('turn'),
        threadId: op.threadId,
        now: clock.now(),
        state: startState('enqueue', 'queued'),
        input: op.input,
        queueSeq: seq,
      }),
    );
    await ctx.writeReceipt(outcome);
    return outcome;
  });
  if (res.kind === 'reject') return done(res);
  return done(outcome, () => {
    void queueItems(engine, op.threadId)
      .then((items) => engine.ctx.emit({ type: 'queue.updated', threadId: op.threadId, items }))
      .catch((e) => engine.onBackgroundError(e));
    // An idle thread starts its queue at once.
    void startNextQueued(engine, op.threadId).catch((e) => engine.onBackgroundError(e));
  });
};

const queueUpdate: Handler<'queue.update'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const images = await queuedInputRefusal(engine, op.input);
  if (images) return done(reject('invalid_command', images));
  const outcome = ack();
  const res = await engine.ctx.commit('queue_update', async () => {
    const r = await store.runs.get(op.queueItemId);
    if (!r || r.threadId !== op.threadId || r.state !== 'queued')
      return reject('not_found', 'That queued message was already started or removed.');
    await store.runs.update(r.runId, (x) => void (x.input = op.input), clock.now());
    await ctx.writeReceipt(outcome);
    return outcome;
  });
  if (res.kind === 'reject') return done(res);
  return done(
    outcome,
    () =>
      void queueItems(engine, op.threadId)
        .then((items) => engine.ctx.emit({ type: 'queue.updated', threadId: op.threadId, items }))
        .catch((e) => engine.onBackgroundError(e)),
  );
};

const queueRemove: Handler<'queue.remove'> = async (engine, _client, op, ctx) => {
  const { store } = engine.ctx;
  const outcome = ack();
  const res = await engine.ctx.commit('queue_remove', async () => {
    const r = await store.runs.get(op.queueItemId);
    if (!r || r.threadId !== op.threadId || r.state !== 'queued')
      return reject('not_found', 'That queued message was already started or removed.');
    await store.runs.delete(r.runId);
    await ctx.writeReceipt(outcome);
    return outcome;
  });
  if (res.kind === 'reject') return done(res);
  return done(
    outcome,
    () =>
      void queueItems(engine, op.threadId)
        .then((items) => engine.ctx.emit({ type: 'queue.updated', threadId: op.threadId, items }))
        .catch((e) => engine.onBackgroundError(e)),
  );
};

/** Interrupt is always accepted (PROTOCOL.md): `wasActive` says whether anything stopped. */
const interrupt: Handler<'turn.interrupt'> = async (engine, _client, op) => {
  const { store } = engine.ctx;
  const current = await store.runs.current(op.threadId);
  let wasActive = false;
  if (current) {
    if (engine.driver.isLive(current.runId)) {
      wasActive = await engine.driver.abort(current.runId);
    } else if (isSteerable(current.state)) {
      // Parked on an approval or interaction (or recovered and not yet driven): commit the
      // interrupt on the thread's actor so it cannot race a drive.
      await engine.actors.for(op.threadId).run(async () => {
        if (engine.driver.isLive(current.runId))
          return void (await engine.driver.abort(current.runId));
        await engine.driver.finalizeInterrupt(current.runId);
        await engine.driver.ended(current.runId);
      });
      wasActive = true;
    }
  }
  return done(ack({ wasActive }), () => {
    if (!wasActive) return;
    void store.threads
      .get(op.threadId)
      .then((t) => t && engine.ctx.emit({ type: 'thread.updated', thread: threadMeta(t) }))
      .catch((e) => engine.onBackgroundError(e));
  });
};

export const turnOps = {
  'turn.submit': submit,
  'turn.steer': steer,
  'turn.enqueue': enqueue,
  'queue.update': queueUpdate,
  'queue.remove': queueRemove,
  'turn.interrupt': interrupt,
};
