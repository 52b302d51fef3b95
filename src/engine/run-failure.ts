import type { ProviderError } from '../providers/types';
import type { EngineContext } from './context';
import type { StepOutcome } from './model-step';
import { appendNotice, emitCommitted } from './nodes';

/** A failed attempt: retry from the checkpoint while attempts remain and the error may pass. */
export async function attemptFailed(ctx: EngineContext, runId: string, err: ProviderError): Promise<StepOutcome> {
  const { store } = ctx;
  const out = await ctx.commit('attempt_failed', async () => {
    const run = (await store.runs.get(runId))!;
    const now = ctx.clock.now();
    const retry = err.retryable && run.counters.modelAttempts < ctx.options.maxModelAttempts && err.code !== 'aborted';
    const thread = (await store.threads.get(run.threadId))!;
    const text = retry
      ? `The model call failed (${err.message}). Retrying from the last checkpoint (attempt ${run.counters.modelAttempts + 1} of ${ctx.options.maxModelAttempts}).`
      : `The model call failed: ${err.message}`;
    const notice = await appendNotice(ctx, run, thread.leafId, 'model_error', text);
    await store.threads.update(run.threadId, (t) => {
      t.leafId = notice.id;
      t.updatedAt = now;
    });
    const r = retry
      ? run
      : await store.runs.update(runId, (r) => {
          r.state = 'failed';
          r.stopReason = 'error';
          r.error = { code: err.code, message: err.message };
        }, now);
    return { retry, notice, run: r };
  });
  emitCommitted(ctx, out.notice);
  return out.retry ? 'continue' : 'ended';
}

export async function failRun(ctx: EngineContext, runId: string, error: { code: string; message: string }): Promise<StepOutcome> {
  const { store } = ctx;
  const notice = await ctx.commit('fail_run', async () => {
    const run = (await store.runs.get(runId))!;
    const thread = (await store.threads.get(run.threadId))!;
    const now = ctx.clock.now();
    const n = await appendNotice(ctx, run, thread.leafId, error.code, error.message);
    await store.threads.update(run.threadId, (t) => {
      t.leafId = n.id;
      t.updatedAt = now;
    });
    await store.runs.update(runId, (r) => {
      r.state = 'failed';
      r.stopReason = 'error';
      r.error = error;
    }, now);
    return n;
  });
  emitCommitted(ctx, notice);
  return 'ended';
}

