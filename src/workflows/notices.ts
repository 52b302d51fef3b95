/**
 * The notifications of scheduled runs, derived from the workflows' last runs as the engine
 * recorded them (not from events the scheduler happened to see): a worker stopped during a run,
 * or after it ended but before its notification, notifies when the next worker reads the list.
 * Pure: the scheduler keeps the keys already shown (durably) and shows what this returns.
 */
import type { WorkflowLastRun, WorkflowMeta } from '../protocol';

export type RunNotice =
  | { kind: 'succeeded'; key: string; runId: string; name: string; replayed: number; steps: number }
  /** Paused on an action whose outcome is unknown (a worker stop while it ran): check the page. */
  | { kind: 'needs_check'; key: string; runId: string; name: string }
  | { kind: 'failed'; key: string; runId: string; name: string; why: string };

/** Outcomes nobody is told about: still running, or stopped by the user. */
const QUIET: ReadonlySet<WorkflowLastRun['outcome']> = new Set(['running', 'interrupted']);

/** One key per run and outcome: a run paused, then continued to its end, is told both times. */
export function noticeKey(last: Pick<WorkflowLastRun, 'runId' | 'outcome'>): string {
  return `${last.runId}:${last.outcome}`;
}

/**
 * The notices due for `list` given the keys already `shown`, and the keys worth keeping (those
 * of the last runs still listed: the set stays as small as the workflow list).
 */
export function noticesDue(
  list: readonly WorkflowMeta[],
  shown: ReadonlySet<string>,
): { due: RunNotice[]; keep: string[] } {
  const due: RunNotice[] = [];
  const keep: string[] = [];
  for (const w of list) {
    const last = w.lastRun;
    if (!last || last.trigger !== 'schedule' || QUIET.has(last.outcome)) continue;
    const key = noticeKey(last);
    keep.push(key);
    if (shown.has(key)) continue;
    if (last.outcome === 'end')
      due.push({
        kind: 'succeeded',
        key,
        runId: last.runId,
        name: w.name,
        replayed: last.report?.replayed ?? 0,
        steps: last.report?.steps ?? w.steps,
      });
    else if (last.outcome === 'paused_uncertain')
      due.push({ kind: 'needs_check', key, runId: last.runId, name: w.name });
    else
      due.push({
        kind: 'failed',
        key,
        runId: last.runId,
        name: w.name,
        why: last.error?.message ?? last.report?.diverged?.reason ?? last.outcome,
      });
  }
  return { due, keep };
}
