import type { WorkflowRecord } from '../../store/records';
import type { WorkflowDefinition } from '../../workflows/types';
import type { EngineHost } from '../turn/engine-host';
import type { OpContext } from './op-handler';
import { ack, type Outcome } from './receipts';

/**
 * Store a new workflow, unscheduled, with the op's receipt in the same commit: the one way a
 * saved turn (`workflow.save`) and a saved recording (`workflow.recordSave`) become a workflow.
 * The caller publishes the list after its ack.
 */
export async function storeNewWorkflow(
  engine: EngineHost,
  ctx: OpContext,
  w: { name: string; source: WorkflowRecord['source']; definition: WorkflowDefinition },
): Promise<Outcome> {
  const { store, ids, clock } = engine.ctx;
  const workflowId = ids.next('wf');
  const now = clock.now();
  const rec: WorkflowRecord = {
    v: 1,
    workflowId,
    name: w.name,
    createdAt: now,
    updatedAt: now,
    source: w.source,
    definition: w.definition,
    schedule: null,
  };
  const outcome = ack({ workflowId });
  await engine.ctx.commit('workflow_save', async () => {
    await store.workflows.put(rec);
    await ctx.writeReceipt(outcome);
  });
  return outcome;
}
