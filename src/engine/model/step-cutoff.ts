import { stepMark } from '../../util/step-marks';
import type { RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import { LeafWriter } from '../run/leaf-writer';
import { cutoffDecision } from '../run/run-machine';
import { commitEnd } from '../run/run-end';
import { dropMaterialized, materializeAdmittedSteers } from '../run/steer-admission';
import { totalTokens } from './usage';

export type Cutoff =
  | { kind: 'call'; run: RunRecord; leaf: string | null }
  | { kind: 'budget' | 'failed'; run: RunRecord };

/**
 * The steer cutoff of one model request (spec/001 §3), in one transaction: materialize every
 * admitted steer after the leaf in admission order, then apply `cutoffDecision` — the token budget
 * (a pause keeps the steers in the path, so neither a resume nor a new turn can lose them) and the
 * attempt count (persisted before the call, so a crash loop cannot reset it). One cutoff per
 * request: a steer admitted after this commits waits for the next request.
 */
export async function takeCutoff(ctx: EngineContext, runId: string): Promise<Cutoff | null> {
  const { store } = ctx;
  stepMark('cutoff.commit');
  const cut = await ctx.commit('cutoff', async (outbox) => {
    const run = await store.runs.get(runId);
    if (!run || run.state !== 'streaming_model' || !run.env) return null;
    if (!(await store.threads.get(run.threadId))) return null;
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, run, outbox);
    const decision = cutoffDecision({
      tokenBudget: run.env.tokenBudget,
      modelCalls: run.stepCursor.modelCalls,
      usedSinceBaseline: totalTokens(run.usage) - run.counters.budgetBaseline,
      attempts: run.counters.modelAttempts,
      maxAttempts: ctx.options.maxModelAttempts,
    });
    if (decision.kind === 'budget_pause') {
      const text = `Paused: this turn used its token budget (${decision.budget.toLocaleString('en-US')} tokens). Continue to give it another budget.`;
      const { run: r } = await commitEnd(ctx, w, run, {
        by: 'cutoffDecision',
        to: decision.to,
        stopReason: 'budget_pause',
        notice: { code: 'budget_pause', text },
      });
      return { kind: 'budget' as const, run: r };
    }
    if (decision.kind === 'attempts_exhausted') {
      const { run: r } = await commitEnd(ctx, w, run, {
        by: 'cutoffDecision',
        to: decision.to,
        stopReason: 'error',
        error: decision.error,
      });
      return { kind: 'failed' as const, run: r };
    }
    const steers = await materializeAdmittedSteers(ctx, w, run);
    if (steers.size) await w.finish(now);
    const r = await store.runs.update(
      runId,
      (r) => {
        dropMaterialized(r, steers);
        r.counters.modelAttempts = decision.attempt;
      },
      now,
    );
    return { kind: 'call' as const, run: r, leaf: w.leaf };
  });
  stepMark('cutoff.committed');
  return cut;
}
