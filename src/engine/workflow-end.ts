import type { RunRecord } from '../store/records';
import { replayReport } from '../workflows/replay';
import type { EngineContext } from './context';
import { publishWorkflows } from './workflow-view';

/** A workflow run stopped: record its outcome as the workflow's last run and tell the UI. */
export async function workflowRunEnded(ctx: EngineContext, run: RunRecord): Promise<void> {
  if (!run.workflow) return;
  const wf = run.workflow;
  const outcome =
    run.state === 'completed' || run.state === 'failed' || run.state === 'interrupted'
      ? run.workflow.diverged && run.state === 'completed'
        ? 'completed_by_model'
        : run.state
      : 'waiting';
  const updated = await ctx.commit('workflow_last_run', () =>
    ctx.store.workflows.update(wf.workflowId, (w) => ({
      ...w,
      lastRun: {
        threadId: run.threadId,
        runId: run.runId,
        at: ctx.clock.now(),
        outcome,
        report: replayReport(wf, run.stepCursor.modelCalls),
      },
    })),
  );
  if (updated) await publishWorkflows(ctx);
}
