import type { RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import { closeRemainingCalls } from '../run/close-calls';
import { LeafWriter } from '../run/leaf-writer';
import { lookAtTab, releasePage } from '../run/page-hand-over';
import { moveRun } from '../run/run-edges';
import { takeOverPoint } from '../run/take-over';
import { runSummary } from '../views/thread-view';

/** The take-over facts of a run, as `takeOverPoint` reads them. */
export function takeOverFacts(run: RunRecord) {
  return {
    state: run.state,
    takeOver: !!run.takeOver,
    toolCalls: run.stepCursor.toolCalls,
    nextToolIndex: run.stepCursor.nextToolIndex,
    ...(run.pendingTool ? { pendingTool: run.pendingTool } : {}),
  };
}

/**
 * The driver reached a safe point of a run the user asked to take over (take-over.ts): close the
 * calls of the batch that did not start, record how the tab looks as the agent leaves it, and
 * rest in `user_control`, in one commit; then let go of the page. Returns false when the run is no
 * longer at such a point (re-decided inside the commit).
 *
 * Pending steers are deliberately not materialized: the run is driven again after the hand back
 * (or an interrupt materializes them), so they reach the model with the user's note.
 */
export async function pauseForUser(ctx: EngineContext, run0: RunRecord): Promise<boolean> {
  // The tab is looked at before the commit (an effect outside the transaction).
  const look = await lookAtTab(ctx, run0.tabId);
  const paused = await ctx.commit('take_over', async (outbox) => {
    const run = await ctx.store.runs.get(run0.runId);
    if (!run) return false;
    const t = takeOverPoint(takeOverFacts(run));
    if (t.kind !== 'pause') return false;
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, run, outbox);
    await closeRemainingCalls(
      ctx,
      w,
      run,
      t.close.map((c) => ({ call: run.stepCursor.toolCalls[c.index], why: c.why })),
    );
    await w.notice('user_control', 'You have the page. The task waits until you hand it back.');
    await w.finish(now);
    const r = await ctx.store.runs.update(
      run.runId,
      (r) => {
        moveRun(r, 'takeOverPoint', t.to);
        r.pendingTool = undefined;
        r.stepCursor = { ...r.stepCursor, nextToolIndex: r.stepCursor.toolCalls.length };
        delete r.takeOver;
        if (look) r.pageAtHandOver = look;
        else delete r.pageAtHandOver;
      },
      now,
    );
    outbox.emit({
      type: 'run.updated',
      threadId: r.threadId,
      runId: r.runId,
      state: r.state,
      run: runSummary(r),
    });
    return true;
  });
  if (paused) await releasePage(ctx, run0);
  return paused;
}
