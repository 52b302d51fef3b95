/** Scheduled-run notices from recorded last runs, and last runs written by older versions. */
import { describe, expect, it } from 'vitest';
import { lastRunMeta } from '../../../src/engine/views/workflow-view';
import { StopReason, WorkflowLastRun, type WorkflowMeta } from '../../../src/protocol';
import { NOTICE_WINDOW_MS, noticeKey, noticesDue } from '../../../src/workflows/notices';
import { RECENT_RUNS, withRun } from '../../../src/workflows/run-history';

const wf = (lastRun?: WorkflowMeta['lastRun']): WorkflowMeta => ({
  workflowId: 'wf_1',
  name: 'Reorder',
  steps: 3,
  inputs: [],
  schedule: { everyMinutes: 15 },
  ...(lastRun ? { lastRun } : {}),
});
const NOW = 1_000;
const run = (outcome: WorkflowLastRun['outcome'], more: Partial<WorkflowLastRun> = {}) =>
  ({ threadId: 't', runId: 'r1', at: 1, outcome, trigger: 'schedule', ...more }) as const;

describe('noticesDue', () => {
  it('tells each scheduled run end once per outcome; running, interrupted and manual runs are quiet', () => {
    for (const outcome of [...StopReason.options, 'running'] as const) {
      const list = [wf(run(outcome, { report: { steps: 3, replayed: 3, modelRequests: 0 } }))];
      const first = noticesDue(list, new Set(), NOW);
      const quiet = outcome === 'running' || outcome === 'interrupted';
      expect([outcome, first.due.length]).toEqual([outcome, quiet ? 0 : 1]);
      expect(noticesDue(list, new Set(first.keep), NOW).due).toEqual([]);
      const kind =
        outcome === 'end' ? 'succeeded' : outcome === 'paused_uncertain' ? 'needs_check' : 'failed';
      if (!quiet) expect(first.due[0]).toMatchObject({ kind, runId: 'r1', name: 'Reorder' });
    }
    const manual = { ...run('end'), trigger: undefined };
    expect(noticesDue([wf(manual)], new Set(), NOW).due).toEqual([]);
    expect(noticesDue([wf()], new Set(), NOW).due).toEqual([]);
  });

  it('a failure says why; the kept keys are only those of listed last runs', () => {
    const failed = run('error', { error: { code: 'workflow_diverged', message: 'Step 2: gone' } });
    expect(noticesDue([wf(failed)], new Set(['old:end']), NOW).due[0]).toMatchObject({
      kind: 'failed',
      why: 'Step 2: gone',
    });
    expect(noticesDue([wf(failed)], new Set(['old:end']), NOW).keep).toEqual([noticeKey(failed)]);
  });
});

describe('noticesDue over the recent runs', () => {
  it('a scheduled end behind a later run is still told; a run older than a day is not', () => {
    const ended = run('end', { runId: 'r1', at: NOW - 10 });
    const manual = { ...run('running', { runId: 'r2', at: NOW }), trigger: undefined };
    const w = { ...wf(manual), recentRuns: [manual, ended] };
    expect(noticesDue([w], new Set(), NOW).due.map((n) => n.runId)).toEqual(['r1']);
    const old = { ...w, recentRuns: [manual, { ...ended, at: NOW - NOTICE_WINDOW_MS - 1 }] };
    expect(noticesDue([old], new Set(), NOW)).toEqual({ due: [], keep: [] });
  });
});

describe('lastRunMeta', () => {
  it('reads outcomes older versions stored (run states) as stop reasons', () => {
    const base = { threadId: 't', runId: 'r', at: 1 };
    for (const [stored, wire] of [
      ['completed', 'end'],
      ['completed_by_model', 'end'],
      ['failed', 'error'],
      ['interrupted', 'interrupted'],
      ['waiting', 'running'],
      ['running', 'running'],
      ['end', 'end'],
      ['paused_uncertain', 'paused_uncertain'],
      ['something else', 'error'],
    ]) {
      const meta = lastRunMeta({ ...base, outcome: stored });
      expect([stored, meta.outcome]).toEqual([stored, wire]);
      expect(WorkflowLastRun.safeParse(meta).success).toBe(true);
    }
  });
});

describe('withRun', () => {
  it('replaces a listed run in place, puts a new one first, keeps at most RECENT_RUNS', () => {
    const e = (runId: string, outcome = 'running') => ({ runId, outcome });
    expect(withRun({}, e('a'))).toEqual([e('a')]);
    // An older record had only its last run: it seeds the history.
    expect(withRun({ lastRun: e('a', 'end') }, e('b'))).toEqual([e('b'), e('a', 'end')]);
    let runs: { runId: string; outcome: string }[] = [];
    for (let i = 0; i < RECENT_RUNS + 3; i++) {
      runs = withRun({ recentRuns: runs }, e(`r${i}`));
      runs = withRun({ recentRuns: runs }, e(`r${i}`, 'end'));
    }
    expect(runs).toHaveLength(RECENT_RUNS);
    expect(runs.map((r) => r.runId)).toEqual(
      Array.from({ length: RECENT_RUNS }, (_, k) => `r${RECENT_RUNS + 2 - k}`),
    );
    expect(runs.every((r) => r.outcome === 'end')).toBe(true);
  });
});
