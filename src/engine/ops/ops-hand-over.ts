import { ack, reject } from './receipts';
import { done, type Handler } from './op-handler';
import type { EngineHost } from '../turn/engine-host';
import type { RunRecord } from '../../store/records';
import { runDrift } from '../turn/recovery';
import { freshLookText } from '../run/fresh-look';
import { LeafWriter } from '../run/leaf-writer';
import { lookAtTab } from '../run/page-hand-over';
import { moveRun } from '../run/run-edges';
import { admitTakeOver, onHandBack } from '../run/take-over';
import { runSummary } from '../views/thread-view';

/**
 * Take over and hand back (issue 28): the user takes the page from a working run and gives it
 * back. Both ops are idempotent per submission (the receipt replays the first outcome); a second
 * Take over while the request stands or the page is held changes nothing and is acknowledged.
 */

/**
 * Tell the clients the run's new shape; `drive` only after a hand back. A Take over or a withdrawn
 * one never schedules a drive: the run is being driven (or recovery scheduled it), and a second
 * drive queued behind one that ends the turn would report its end twice.
 */
function runChanged(engine: EngineHost, r: RunRecord, drive: boolean): void {
  engine.ctx.emit({
    type: 'run.updated',
    threadId: r.threadId,
    runId: r.runId,
    state: r.state,
    run: runSummary(r),
  });
  if (drive) engine.schedule(r.threadId, r.runId);
}

/** `run.takeOver`: record the request durably; the driver pauses at the next safe point. */
const takeOver: Handler<'run.takeOver'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  const res = await engine.ctx.commit('take_over_request', async () => {
    const run = await store.runs.current(op.threadId);
    const a = admitTakeOver(run);
    if (a.kind === 'reject') return { outcome: reject(a.code, a.message) };
    const r =
      a.kind === 'request'
        ? await store.runs.update(
            run!.runId,
            (x) => void (x.takeOver = { requestedAt: clock.now() }),
            clock.now(),
          )
        : run!;
    const outcome = ack({ runId: r.runId, held: r.state === 'user_control' });
    await ctx.writeReceipt(outcome);
    return { outcome, run: a.kind === 'request' ? r : undefined };
  });
  const r = res.run;
  return done(res.outcome, r ? () => runChanged(engine, r, false) : undefined);
};

/**
 * `run.handBack`: the run goes on with the model, which is told how the tab looks now and
 * whether it changed since it left (fresh-look.ts), then reads the note as a steer after any
 * steers acknowledged meanwhile. Before the run paused, a hand back withdraws the request.
 */
const handBack: Handler<'run.handBack'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  // Effects outside the transaction: the snapshot must still describe the world (as for
  // run.resume), and the tab is looked at; the decision is re-made inside the commit.
  const before = await store.runs.current(op.threadId);
  const first = onHandBack(before);
  if (first.kind === 'hand_back') {
    const drift = await runDrift(engine, before!);
    if (drift)
      return done(
        reject(
          'not_resumable',
          `This task cannot continue: ${drift}. Stop it and send a new message instead.`,
        ),
      );
  }
  const tabId = before?.pageAtHandOver?.tabId ?? before?.tabId;
  const look = first.kind === 'hand_back' ? await lookAtTab(engine.ctx, tabId) : undefined;
  const note = op.note?.trim();
  const res = await engine.ctx.commit('hand_back', async (outbox) => {
    const run = await store.runs.current(op.threadId);
    const t = onHandBack(run);
    if (t.kind === 'reject') return { outcome: reject(t.code, t.message) };
    if (run!.runId !== before?.runId || t.kind !== first.kind)
      return { outcome: reject('not_held', 'The task changed meanwhile; look at it again.') };
    const now = clock.now();
    if (t.kind === 'hand_back') {
      const w = await LeafWriter.open(engine.ctx, run!, outbox);
      await w.notice(
        'hand_back',
        `The user handed the page back. ${freshLookText(run!.pageAtHandOver, look, tabId)}`,
        true,
      );
      await w.finish(now);
    }
    const r = await store.runs.update(
      run!.runId,
      (x) => {
        if (t.kind === 'hand_back') {
          moveRun(x, 'onHandBack', t.to);
          x.counters.modelAttempts = 0;
          delete x.pageAtHandOver;
        }
        delete x.takeOver;
        // The note is a steer: after those acknowledged before it, in admission order.
        if (note) {
          x.pendingSteers.push({
            steerId: engine.ctx.ids.next('steer'),
            seq: x.nextSteerSeq,
            input: { text: note },
            admittedAt: now,
          });
          x.nextSteerSeq += 1;
        }
      },
      now,
    );
    const outcome = ack({ runId: r.runId });
    await ctx.writeReceipt(outcome);
    return { outcome, run: r, drive: t.kind === 'hand_back' };
  });
  const r = res.run;
  return done(res.outcome, r ? () => runChanged(engine, r, !!res.drive) : undefined);
};

export const handOverOps = {
  'run.takeOver': takeOver,
  'run.handBack': handBack,
};
