/** A workflow's recent runs, newest first: what the Workflows view lists under "Recent runs". */

/** How many runs a workflow keeps. */
export const RECENT_RUNS = 5;

/**
 * The history after `entry`: a run already listed (its start, now its end) is replaced in place,
 * a new one goes first; at most `RECENT_RUNS`. Older records had only `lastRun`: it seeds the list.
 */
export function withRun<E extends { runId: string }>(
  rec: { lastRun?: E; recentRuns?: E[] },
  entry: E,
): E[] {
  const runs = rec.recentRuns ?? (rec.lastRun ? [rec.lastRun] : []);
  const at = runs.findIndex((r) => r.runId === entry.runId);
  const next = at >= 0 ? runs.map((r, i) => (i === at ? entry : r)) : [entry, ...runs];
  return next.slice(0, RECENT_RUNS);
}

/**
 * What clearing a workflow's past runs keeps: the runs still going. Their end will be recorded
 * on their entry (and notified for a scheduled one), so dropping them would lose that.
 */
export function keptRuns<E extends { runId: string; outcome: string }>(rec: {
  lastRun?: E;
  recentRuns?: E[];
}): E[] {
  const runs = rec.recentRuns ?? (rec.lastRun ? [rec.lastRun] : []);
  return runs.filter((r) => r.outcome === 'running');
}
