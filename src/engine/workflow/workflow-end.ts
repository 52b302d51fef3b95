import type { WorkflowOutcome } from '../../protocol';
import type { RunRecord, WorkflowRunEntry } from '../../store/records';
import { replayReport } from '../../workflows/replay';
import { withRun } from '../../workflows/run-history';
import type { EngineContext } from '../host/engine-context';
import { publishWorkflows } from '../views/workflow-view';

/**
 * A workflow run's last-run outcome: its stop reason as turn.complete names it once it stopped,
 * 'running' until then.
 */
export function workflowOutcome(run: Pick<RunRecord, 'state' | 'stopReason'>): WorkflowOutcome {
  return run.stopReason && run.state !== 'queued' ? run.stopReason : 'running';
}

/**
 * A workflow run started (in the caller's commit): it becomes the workflow's last run, running.
 * A scheduled run's first run also makes its thread the workflow's own.
 */
export async function workflowRunStarted(ctx: EngineContext, run: RunRecord): Promise<void> {
  const wf = run.workflow;
  if (!wf) return;
  const entry: WorkflowRunEntry = {
    threadId: run.threadId,
    runId: run.runId,
    at: ctx.clock.now(),
    outcome: 'running',
    ...(wf.trigger ? { trigger: wf.trigger } : {}),
  };
  await ctx.store.workflows.update(wf.workflowId, (w) => ({
    ...w,
    ...(wf.trigger === 'schedule' ? { threadId: run.threadId } : {}),
    lastRun: entry,
    recentRuns: withRun(w, entry),
  }));
}

/**
 * A workflow run stopped: record its outcome as the workflow's last run (what the scheduler's
 * notification is derived from, so it survives a worker restart) and tell the UI.
 */
export async function workflowRunEnded(ctx: EngineContext, run: RunRecord): Promise<void> {
  if (!run.workflow) return;
  const wf = run.workflow;
  const entry: WorkflowRunEntry = {
    threadId: run.threadId,
    runId: run.runId,
    at: ctx.clock.now(),
    outcome: workflowOutcome(run),
    ...(wf.trigger ? { trigger: wf.trigger } : {}),
    ...(run.error ? { error: { code: run.error.code, message: run.error.message } } : {}),
    report: replayReport(wf, run.stepCursor.modelCalls),
  };
  const updated = await ctx.commit('workflow_last_run', () =>
    ctx.store.workflows.update(wf.workflowId, (w) => ({
      ...w,
      lastRun: entry,
      recentRuns: withRun(w, entry),
    })),
  );
  if (updated) await publishWorkflows(ctx);
}
