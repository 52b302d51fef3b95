/** workflow.clearRuns (docs/protocol.md §Workflows): forget a workflow's finished runs. */
import { keptRuns } from '../../workflows/run-history';
import { publishWorkflows } from '../views/workflow-view';
import { done, type Handler } from './op-handler';
import { ack, reject } from './receipts';

const clearRuns: Handler<'workflow.clearRuns'> = async (engine, _client, op, ctx) => {
  const { store, clock } = engine.ctx;
  if (!(await store.workflows.get(op.workflowId)))
    return done(reject('not_found', `Workflow ${op.workflowId} does not exist.`));
  const outcome = ack();
  await engine.ctx.commit('workflow_clear_runs', async () => {
    await store.workflows.update(op.workflowId, (w) => {
      const { lastRun: _l, recentRuns: _r, ...rest } = w;
      const running = keptRuns(w);
      return {
        ...rest,
        updatedAt: clock.now(),
        recentRuns: running,
        ...(running[0] ? { lastRun: running[0] } : {}),
      };
    });
    await ctx.writeReceipt(outcome);
  });
  return done(
    outcome,
    () => void publishWorkflows(engine.ctx).catch((e) => engine.onBackgroundError(e)),
  );
};

export const workflowRunOps = { 'workflow.clearRuns': clearRuns };
