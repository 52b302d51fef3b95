import type { ProviderError } from '../../providers/types';
import type { EngineContext } from '../host/engine-context';
import { LeafWriter } from './leaf-writer';
import { FAILED_BATCH_TEXTS, onProviderFailure } from './run-machine';
import { batchClosed, closeOpenBatch } from './close-calls';
import { commitEnd } from './run-end';
import type { StepOutcome } from './step-outcome';

/**
 * A failed attempt (`onProviderFailure`): retry from the checkpoint while attempts remain and the
 * error may pass; otherwise the run fails — after its acked steers are materialized (spec/001 §3).
 */
export async function attemptFailed(
  ctx: EngineContext,
  runId: string,
  err: ProviderError,
): Promise<StepOutcome> {
  const { store } = ctx;
  const out = await ctx.commit('attempt_failed', async (outbox) => {
    const run = (await store.runs.get(runId))!;
    const now = ctx.clock.now();
    const t = onProviderFailure({
      code: err.code,
      message: err.message,
      retryable: err.retryable,
      attempts: run.counters.modelAttempts,
      maxAttempts: ctx.options.maxModelAttempts,
    });
    const w = await LeafWriter.open(ctx, run, outbox);
    if (t.kind === 'retry') {
      await w.notice(
        'model_error',
        `The model call failed (${err.message}). Retrying from the last checkpoint (attempt ${t.attempt} of ${t.of}).`,
      );
      await w.finish(now);
      return { retry: true };
    }
    await commitEnd(ctx, w, run, {
      by: 'onProviderFailure',
      to: t.to,
      stopReason: 'error',
      error: t.error,
      notice: { code: 'model_error', text: `The model call failed: ${err.message}` },
    });
    return { retry: false };
  });
  return out.retry ? 'continue' : 'ended';
}

/** Fail the run now (no provider, an internal error), acked steers materialized first. */
export async function failRun(
  ctx: EngineContext,
  runId: string,
  error: { code: string; message: string },
): Promise<StepOutcome> {
  const { store } = ctx;
  await ctx.commit('fail_run', async (outbox) => {
    const run = await store.runs.get(runId);
    if (!run) return;
    const w = await LeafWriter.open(ctx, run, outbox);
    await closeOpenBatch(ctx, w, run, FAILED_BATCH_TEXTS);
    await commitEnd(
      ctx,
      w,
      run,
      {
        by: 'failRun',
        to: 'failed',
        stopReason: 'error',
        error,
        notice: { code: error.code, text: error.message },
      },
      { run: batchClosed },
    );
  });
  return 'ended';
}
