import { useState } from 'preact/hooks';
import type {
  WorkflowLastRun,
  WorkflowMeta,
  WorkflowOutcome,
  WorkflowSchedule,
} from '../../src/protocol';
import { formatTime } from '../format';
import { t, type MessageKey } from '../i18n';
import { Icon } from './icons';
import { RecordingPanel } from './RecordingPanel';
import { useEngine, usePanel } from './panel-context';

type ScheduleKind = 'none' | 'every' | 'daily' | 'weekly';

function kindOf(s: WorkflowSchedule): ScheduleKind {
  return !s ? 'none' : 'everyMinutes' in s ? 'every' : 'days' in s ? 'weekly' : 'daily';
}

/** Monday first, as most calendars show a week; values are Date#getDay numbers. */
const WEEK = [1, 2, 3, 4, 5, 6, 0] as const;
const WEEKDAY_KEYS: Record<number, MessageKey> = {
  0: 'workflowWeekday_0',
  1: 'workflowWeekday_1',
  2: 'workflowWeekday_2',
  3: 'workflowWeekday_3',
  4: 'workflowWeekday_4',
  5: 'workflowWeekday_5',
  6: 'workflowWeekday_6',
};

/** The user's time zone, as the browser knows it: where "9:00" means their morning. */
function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** What each last-run outcome (the turn's stop reason, or running) reads as. */
const OUTCOME_KEYS: Record<WorkflowOutcome, MessageKey> = {
  running: 'workflowOutcome_running',
  end: 'workflowOutcome_completed',
  error: 'workflowOutcome_failed',
  interrupted: 'workflowOutcome_interrupted',
  paused_uncertain: 'workflowOutcome_waiting',
  budget_pause: 'workflowOutcome_budget_pause',
  tool_failures: 'workflowOutcome_tool_failures',
  max_tokens: 'workflowOutcome_failed',
  content_filter: 'workflowOutcome_failed',
  refusal: 'workflowOutcome_failed',
};

function outcomeText(last: WorkflowLastRun): string {
  // Done after a divergence: the model finished what the replay could not.
  if (last.outcome === 'end' && last.report?.diverged)
    return t('workflowOutcome_completed_by_model');
  return t(OUTCOME_KEYS[last.outcome]);
}

/** A run as one line: its outcome, when, and what the replay did. */
function runText(r: WorkflowLastRun): string {
  const did = r.report
    ? ` · ${t('workflowReplayed', r.report.replayed, r.report.steps, r.report.modelRequests)}`
    : '';
  return `${outcomeText(r)} · ${formatTime(r.at)}${did}`;
}

/** One workflow: its steps, inputs (edited before a run), run now, schedule, last run, delete. */
function WorkflowCard({ w }: { w: WorkflowMeta }) {
  const panel = usePanel();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(w.inputs.map((i) => [i.name, i.default ?? ''])),
  );
  const [kind, setKind] = useState<ScheduleKind>(kindOf(w.schedule));
  const [minutes, setMinutes] = useState(
    w.schedule && 'everyMinutes' in w.schedule ? String(w.schedule.everyMinutes) : '60',
  );
  const [dailyAt, setDailyAt] = useState(
    w.schedule && 'dailyAt' in w.schedule ? w.schedule.dailyAt : '08:00',
  );
  const weekly = w.schedule && 'days' in w.schedule ? w.schedule : null;
  const [days, setDays] = useState<number[]>(weekly ? [...weekly.days] : [1, 2, 3, 4, 5]);
  const [weeklyAt, setWeeklyAt] = useState(weekly ? weekly.at : '09:00');
  const timeZone = weekly ? weekly.timeZone : userTimeZone();
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const show = (out: { ok: boolean; message?: string }) =>
    setError(out.ok ? null : (out.message ?? null));
  const schedule = (): WorkflowSchedule =>
    kind === 'none'
      ? null
      : kind === 'every'
        ? { everyMinutes: Number(minutes) }
        : kind === 'weekly'
          ? { days: [...days].sort((a, b) => a - b), at: weeklyAt, timeZone: userTimeZone() }
          : { dailyAt };
  const saveSchedule = () => {
    if (kind === 'weekly' && days.length === 0) return setError(t('workflowScheduleNoDays'));
    void panel.updateWorkflow(w.workflowId, { schedule: schedule() }).then(show);
  };
  const last = w.lastRun;
  const earlier = (w.recentRuns ?? []).filter((r) => r.runId !== last?.runId);
  return (
    <li class="workflow-card" data-workflow-id={w.workflowId}>
      <h2>{w.name}</h2>
      <p class="workflow-meta">{t('workflowSteps', w.steps)}</p>
      {w.summary && w.summary.length > 0 && (
        <ol class="workflow-steps" aria-label={t('workflowStepsLabel')}>
          {w.summary.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
      )}
      {w.inputs.length > 0 && (
        <fieldset class="workflow-inputs">
          <legend>{t('workflowInputsLabel')}</legend>
          {w.inputs.map((i) => {
            const onInput = (e: Event) =>
              setValues({ ...values, [i.name]: (e.target as HTMLInputElement).value });
            // A recorded secret (a password) is asked for at each run, masked, never stored.
            return i.secret ? (
              <label key={i.name}>
                <span>{i.name}</span>
                <input
                  type="password"
                  autocomplete="off"
                  data-secret="true"
                  value={values[i.name] ?? ''}
                  onInput={onInput}
                />
              </label>
            ) : (
              <label key={i.name}>
                <span>{i.name}</span>
                <input type="text" value={values[i.name] ?? ''} onInput={onInput} />
              </label>
            );
          })}
        </fieldset>
      )}
      <div class="workflow-actions">
        <button
          type="button"
          class="btn primary"
          data-action="run-workflow"
          onClick={() => void panel.runWorkflow(w.workflowId, values).then(show)}
        >
          {t('workflowRunNow')}
        </button>
        {confirming ? (
          <button
            type="button"
            class="btn danger"
            data-action="confirm-delete-workflow"
            onClick={() => void panel.deleteWorkflow(w.workflowId).then(show)}
          >
            {t('workflowDeleteConfirm', w.name)}
          </button>
        ) : (
          <button
            type="button"
            class="icon-btn"
            aria-label={t('workflowDelete')}
            title={t('workflowDelete')}
            onClick={() => setConfirming(true)}
          >
            <Icon name="trash" />
          </button>
        )}
      </div>
      <fieldset class="workflow-schedule">
        <legend>{t('workflowScheduleLabel')}</legend>
        <select
          aria-label={t('workflowScheduleLabel')}
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value as ScheduleKind)}
        >
          <option value="none">{t('workflowScheduleNone')}</option>
          <option value="every">{t('workflowScheduleEvery')}</option>
          <option value="daily">{t('workflowScheduleDaily')}</option>
          <option value="weekly">{t('workflowScheduleWeekly')}</option>
        </select>
        {kind === 'every' && (
          <input
            type="number"
            min={15}
            aria-label={t('workflowScheduleMinutes')}
            value={minutes}
            onInput={(e) => setMinutes((e.target as HTMLInputElement).value)}
          />
        )}
        {kind === 'daily' && (
          <input
            type="time"
            aria-label={t('workflowScheduleDaily')}
            value={dailyAt}
            onInput={(e) => setDailyAt((e.target as HTMLInputElement).value)}
          />
        )}
        {kind === 'weekly' && (
          <div class="workflow-weekly">
            <fieldset class="workflow-days">
              <legend>{t('workflowScheduleDays')}</legend>
              {WEEK.map((d) => (
                <label key={d}>
                  <input
                    type="checkbox"
                    data-day={d}
                    checked={days.includes(d)}
                    onChange={(e) =>
                      setDays(
                        (e.target as HTMLInputElement).checked
                          ? [...days.filter((x) => x !== d), d]
                          : days.filter((x) => x !== d),
                      )
                    }
                  />
                  {t(WEEKDAY_KEYS[d])}
                </label>
              ))}
            </fieldset>
            <input
              type="time"
              aria-label={t('workflowScheduleAt')}
              value={weeklyAt}
              onInput={(e) => setWeeklyAt((e.target as HTMLInputElement).value)}
            />
            <span class="workflow-zone">{t('workflowScheduleTimeZone', timeZone)}</span>
          </div>
        )}
        <button type="button" class="btn small" data-action="save-schedule" onClick={saveSchedule}>
          {t('workflowScheduleSave')}
        </button>
      </fieldset>
      {last && <p class="workflow-last-run">{t('workflowLastRun', runText(last))}</p>}
      {earlier.length > 0 && (
        <ol class="workflow-runs" aria-label={t('workflowEarlierRuns')}>
          {earlier.map((r) => (
            <li key={r.runId}>{runText(r)}</li>
          ))}
        </ol>
      )}
      {(w.recentRuns ?? (last ? [last] : [])).some((r) => r.outcome !== 'running') && (
        <button
          type="button"
          class="btn small"
          data-action="clear-workflow-runs"
          onClick={() => void panel.clearWorkflowRuns(w.workflowId).then(show)}
        >
          {t('workflowClearRuns')}
        </button>
      )}
      {error && (
        <p class="workflow-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/** The Workflows view: recording a new one by showing it, then every saved workflow, newest change first. */
export function WorkflowsView() {
  const workflows = useEngine((s) => s.workflows);
  return (
    <main class="workflows-view">
      <RecordingPanel />
      {workflows.length === 0 ? (
        <p class="empty">{t('workflowsEmpty')}</p>
      ) : (
        <ul class="workflow-list">
          {workflows.map((w) => (
            <WorkflowCard key={w.workflowId} w={w} />
          ))}
        </ul>
      )}
    </main>
  );
}
