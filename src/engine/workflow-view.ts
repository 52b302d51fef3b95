import type { WorkflowMeta } from '../protocol';
import type { WorkflowRecord } from '../store/records';
import { fillInputs } from '../workflows/inputs';
import type { EngineContext } from './context';

/** A workflow as the Workflows view lists it (PROTOCOL.md `WorkflowMeta`). */
export function workflowMeta(w: WorkflowRecord): WorkflowMeta {
  const values = Object.fromEntries(
    w.definition.inputs.filter((i) => i.default !== undefined).map((i) => [i.name, i.default!]),
  );
  return {
    workflowId: w.workflowId,
    name: w.name,
    steps: w.definition.steps.length,
    inputs: w.definition.inputs.map((i) => ({
      name: i.name,
      ...(i.default !== undefined ? { default: i.default } : {}),
    })),
    schedule: w.schedule,
    ...(w.lastRun ? { lastRun: w.lastRun } : {}),
    summary: w.definition.steps.map((s) => {
      const f = fillInputs(s.summary, values);
      return f.kind === 'ok' ? String(f.value) : s.summary;
    }),
  };
}

export async function listWorkflowMetas(ctx: EngineContext): Promise<WorkflowMeta[]> {
  return (await ctx.store.workflows.list()).map(workflowMeta);
}

/** Tell every client the current list (after any change). */
export async function publishWorkflows(ctx: EngineContext): Promise<void> {
  ctx.emit({ type: 'workflows.updated', workflows: await listWorkflowMetas(ctx) });
}
