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

/** Runs that ended longer ago than this are not told about any more (lost marks: no flood). */
export const NOTICE_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The notices due for `list` at `now` given the keys already `shown`, and the keys worth keeping
 * (those of the runs still listed: the set stays as small as the workflows' recent runs). Every
 * recent run counts, not only the last: a run started by hand right after a scheduled one ended
 * does not hide that end from a worker that stopped before telling it.
 */
export function noticesDue(
  list: readonly WorkflowMeta[],
  shown: ReadonlySet<string>,
  now: number,
): { due: RunNotice[]; keep: string[] } {
  const due: RunNotice[] = [];
  const keep: string[] = [];
  for (const w of list)
    for (const r of w.recentRuns ?? (w.lastRun ? [w.lastRun] : [])) {
      if (r.trigger !== 'schedule' || QUIET.has(r.outcome)) continue;
      if (now - r.at > NOTICE_WINDOW_MS) continue;
      const notice = noticeOf(w, r);
      keep.push(notice.key);
      if (!shown.has(notice.key)) due.push(notice);
    }
  return { due, keep };
}

function noticeOf(w: WorkflowMeta, last: WorkflowLastRun): RunNotice {
  const key = noticeKey(last);
  if (last.outcome === 'end')
    return {
      kind: 'succeeded',
      key,
      runId: last.runId,
      name: w.name,
      replayed: last.report?.replayed ?? 0,
      steps: last.report?.steps ?? w.steps,
    };
  if (last.outcome === 'paused_uncertain')
    return { kind: 'needs_check', key, runId: last.runId, name: w.name };
  return {
    kind: 'failed',
    key,
    runId: last.runId,
    name: w.name,
    why: last.error?.message ?? last.report?.diverged?.reason ?? last.outcome,
  };
}
