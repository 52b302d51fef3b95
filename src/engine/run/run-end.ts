import type { StopReason } from '../../protocol';
import type { RunRecord, ThreadRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import type { LeafWriter } from './leaf-writer';
import { dropMaterialized, materializeAdmittedSteers } from './steer-admission';
import { moveRun, type RunEdge } from './run-edges';

/** An edge that ends or pauses the turn. */
export type EndEdge = Extract<
  RunEdge,
  { to: 'completed' | 'failed' | 'budget_paused' | 'interrupted' | 'paused_uncertain' }
>;

export type EndWrite = EndEdge & {
  stopReason: StopReason;
  error?: { code: string; message: string };
  /** A notice for the user at the end of the turn (after the steers). */
  notice?: { code: string; text: string; forModel?: boolean };
};

/**
 * Write a turn's end (or pause) inside the caller's commit, in the order spec/001 §3 requires:
 * acknowledged pending steers are materialized at the safe leaf first, then the notice, then the
 * thread's leaf and the run's state. `more` adjusts the run and the thread in the same writes.
 */
export async function commitEnd(
  ctx: EngineContext,
  w: LeafWriter,
  run: RunRecord,
  end: EndWrite,
  more: { run?: (r: RunRecord) => void; thread?: (t: ThreadRecord) => void } = {},
): Promise<{ run: RunRecord; thread: ThreadRecord }> {
  const now = ctx.clock.now();
  const steers = await materializeAdmittedSteers(ctx, w, run);
  if (end.notice) await w.notice(end.notice.code, end.notice.text, end.notice.forModel ?? false);
  const thread = await w.finish(now, more.thread);
  const r = await ctx.store.runs.update(
    run.runId,
    (r) => {
      dropMaterialized(r, steers);
      moveRun(r, end.by, end.to);
      r.stopReason = end.stopReason;
      if (end.error) r.error = end.error;
      // A Take over not yet reached, or a hand-over in progress, ends with the turn.
      delete r.takeOver;
      delete r.pageAtHandOver;
      more.run?.(r);
    },
    now,
  );
  return { run: r, thread };
}
