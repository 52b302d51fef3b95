import type { RunRecord } from '../../store/records';
import type { EngineHost } from './engine-host';
import { verifyEnvironment } from '../env/environment';
import { LeafWriter } from '../run/leaf-writer';
import { startNextQueued } from './queue';
import { batchClosed, closeOpenBatch } from '../run/close-calls';
import { isCurrent } from '../run/run-machine';

const DRIFT_BATCH_TEXTS = {
  running:
    'Keel restarted while this was running and the task could not resume: the action may have been partly done; check before repeating it.',
  pending: 'Not executed: the task could not resume after Keel restarted.',
};
import { commitEnd } from '../run/run-end';
import { approvalEvent, interactionEvent, runSummary } from '../views/thread-view';

/**
 * Recovery when the service worker starts (spec/001 §5, the crash table):
 *
 * | state at death                    | on restart                                                     |
 * |-----------------------------------|----------------------------------------------------------------|
 * | queued                            | resolve the environment now and start (if the thread is free)  |
 * | streaming_model                   | verify the snapshot, redo the model call from the checkpoint   |
 * | executing_tool                    | verify; the tool step applies the recovery policy of the call  |
 * | waiting_approval / _interaction   | verify; stay parked; the request is re-shown from its table    |
 * | budget_paused / interrupted /     | wait for the user (run.resume verifies the snapshot again)     |
 * |   paused_uncertain                |                                                                |
 *
 * A snapshot that no longer describes the world (transport, credential shape, a tool's digest)
 * fails the run with `environment_drift` — acked steers materialized first, a parked request
 * withdrawn — and nothing more runs.
 */
export type RecoveryAction =
  | 'start_queue'
  | 'verify_then_drive'
  | 'verify_then_reshow'
  | 'wait'
  | 'none';

/** The crash table as a pure decision. */
export function recoveryAction(state: RunRecord['state']): RecoveryAction {
  if (state === 'queued') return 'start_queue';
  if (!isCurrent(state)) return 'none';
  if (state === 'streaming_model' || state === 'executing_tool') return 'verify_then_drive';
  if (state === 'waiting_approval' || state === 'waiting_interaction') return 'verify_then_reshow';
  return 'wait';
}

/** The drift of a run's snapshot against the world now, or null. */
export function runDrift(engine: EngineHost, run: RunRecord): Promise<string | null> {
  const { providers, registry } = engine.ctx;
  return run.env
    ? verifyEnvironment(run.env, providers, registry.snapshot())
    : Promise.resolve('the run has no environment snapshot');
}

export async function recoverRuns(engine: EngineHost): Promise<void> {
  const { store } = engine.ctx;
  const runs = (await store.runs.unfinished()).sort((a, b) => a.createdAt - b.createdAt);
  const threadsWithQueue = new Set<string>();
  for (const run of runs) {
    const action = recoveryAction(run.state);
    if (action === 'start_queue') threadsWithQueue.add(run.threadId);
    if (action !== 'verify_then_drive' && action !== 'verify_then_reshow') continue;
    const drift = await runDrift(engine, run);
    if (drift) {
      await refuseResume(engine, run, drift);
      continue;
    }
    if (action === 'verify_then_drive') {
      engine.schedule(run.threadId, run.runId);
    } else if (run.state === 'waiting_approval') {
      for (const a of await store.approvals.pendingForRun(run.runId))
        engine.ctx.emit(approvalEvent(a));
    } else {
      for (const i of await store.interactions.pendingForRun(run.runId))
        engine.ctx.emit(interactionEvent(i));
    }
  }
  for (const threadId of threadsWithQueue)
    void startNextQueued(engine, threadId).catch((e) => engine.onBackgroundError(e));
}

async function refuseResume(engine: EngineHost, run0: RunRecord, drift: string): Promise<void> {
  const { store } = engine.ctx;
  await engine.ctx.commit('refuse_resume', async (outbox) => {
    const run = (await store.runs.get(run0.runId))!;
    const now = engine.ctx.clock.now();
    // A parked request is withdrawn with the run (as on interrupt): a late answer is `already_resolved`.
    for (const a of await store.approvals.pendingForRun(run.runId))
      await store.approvals.put({ ...a, status: 'cancelled', resolvedAt: now });
    for (const i of await store.interactions.pendingForRun(run.runId))
      await store.interactions.put({ ...i, status: 'cancelled', resolvedAt: now });
    const w = await LeafWriter.open(engine.ctx, run, outbox);
    const text = `This task could not resume after Keel restarted: ${drift}. Nothing more was run; send a new message to continue.`;
    await closeOpenBatch(engine.ctx, w, run, DRIFT_BATCH_TEXTS);
    const ended = await commitEnd(
      engine.ctx,
      w,
      run,
      {
        by: 'recoverRuns',
        to: 'failed',
        stopReason: 'error',
        error: { code: 'environment_drift', message: drift },
        notice: { code: 'environment_drift', text },
      },
      { run: batchClosed },
    );
    const r = ended.run;
    outbox.emit({
      type: 'run.updated',
      threadId: r.threadId,
      runId: r.runId,
      state: r.state,
      run: runSummary(r),
    });
    outbox.emit({
      type: 'turn.complete',
      threadId: r.threadId,
      turnId: r.turnId,
      runId: r.runId,
      stopReason: 'error',
      error: r.error!,
    });
  });
}
