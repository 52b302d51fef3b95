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
  const early = takeEarlyCutoff(ctx, runId);
  if (early) {
    // Taken with the batch's last result (`cutoffWithResult`): nothing was committed to the run
    // since, so that commit is this request's cutoff.
    const run = await store.runs.get(runId);
    if (run?.revision === early.revision && run.state === 'streaming_model' && run.env) {
      stepMark('cutoff.committed');
      return { kind: 'call', run, leaf: early.leaf };
    }
  }
  const cut = await ctx.commit('cutoff', async (outbox) => {
    const run = await store.runs.get(runId);
    if (!run || run.state !== 'streaming_model' || !run.env) return null;
    if (!(await store.threads.get(run.threadId))) return null;
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, run, outbox);
    const decision = cutoffDecision({
      ...cutoffFacts(ctx, run),
      // The early cutoff's attempt was counted and no stream has used it (this worker took it and
      // has not called the model since): the run changed after it (a steer, a take-over), so the
      // cutoff is taken again here, without counting that attempt twice.
      attempts: early ? Math.max(0, run.counters.modelAttempts - 1) : run.counters.modelAttempts,
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

function cutoffFacts(ctx: EngineContext, run: RunRecord) {
  return {
    tokenBudget: run.env!.tokenBudget,
    modelCalls: run.stepCursor.modelCalls,
    usedSinceBaseline: totalTokens(run.usage) - run.counters.budgetBaseline,
    attempts: run.counters.modelAttempts,
    maxAttempts: ctx.options.maxModelAttempts,
  };
}

/**
 * Cutoffs taken early by this engine, by run: the run's revision that commit left and the leaf.
 * In memory only, so a restarted worker takes the cutoff again (and counts the attempt again, as
 * it would after dying between a cutoff and its request). Keyed by the engine's context: two
 * engines over one database (a test's restart) never share one.
 */
const earlyCutoffs = new WeakMap<
  EngineContext,
  Map<string, { revision: number; leaf: string | null }>
>();

function takeEarlyCutoff(ctx: EngineContext, runId: string) {
  const m = earlyCutoffs.get(ctx);
  const e = m?.get(runId);
  if (e) m!.delete(runId);
  return e;
}

/**
 * The next request's cutoff taken inside the transaction that records a batch's last result
 * (the run goes back to `streaming_model`), when it would let the call happen: the steers
 * admitted so far are materialized after the result (a safe leaf) and the attempt is counted, as
 * `takeCutoff` would do in its own transaction right after. A budget pause or exhausted attempts
 * are left to `takeCutoff`. Returns what the caller applies in its run update (`apply`) and, once
 * the transaction has committed, `remember` with the run it left; `takeCutoff` then needs no
 * transaction unless the run changed since.
 */
export async function cutoffWithResult(
  ctx: EngineContext,
  w: LeafWriter,
  run: RunRecord,
): Promise<{ apply(r: RunRecord): void; remember(r: RunRecord): void } | null> {
  if (!run.env || run.external || run.workflow?.mode === 'replay') return null;
  const decision = cutoffDecision(cutoffFacts(ctx, run));
  if (decision.kind !== 'call') return null;
  const steers = await materializeAdmittedSteers(ctx, w, run);
  return {
    apply: (r) => {
      dropMaterialized(r, steers);
      r.counters.modelAttempts = decision.attempt;
    },
    remember: (r) => {
      let m = earlyCutoffs.get(ctx);
      if (!m) earlyCutoffs.set(ctx, (m = new Map()));
      m.set(r.runId, { revision: r.revision, leaf: w.leaf });
    },
  };
}
