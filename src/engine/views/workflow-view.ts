import { StopReason, type WorkflowLastRun, type WorkflowMeta } from '../../protocol';
import type { WorkflowRecord } from '../../store/records';
import { fillInputs } from '../../workflows/inputs';
import type { EngineContext } from '../host/engine-context';

/** Outcomes records written before the outcome was the stop reason hold (run states). */
const LEGACY_OUTCOMES: Record<string, WorkflowLastRun['outcome']> = {
  completed: 'end',
  completed_by_model: 'end',
  failed: 'error',
  waiting: 'running',
};

/** A stored last run on the wire: its outcome a `WorkflowOutcome` whatever version wrote it. */
export function lastRunMeta(r: NonNullable<WorkflowRecord['lastRun']>): WorkflowLastRun {
  const known = r.outcome === 'running' || StopReason.safeParse(r.outcome).success;
  const outcome = known
    ? (r.outcome as WorkflowLastRun['outcome'])
    : (LEGACY_OUTCOMES[r.outcome] ?? 'error');
  return { ...r, outcome };
}

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
      ...(i.secret ? { secret: true } : {}),
    })),
    schedule: w.schedule,
    ...(w.lastRun ? { lastRun: lastRunMeta(w.lastRun) } : {}),
    ...(w.recentRuns ? { recentRuns: w.recentRuns.map(lastRunMeta) } : {}),
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
