/**
 * Workflow schedules as chrome.alarms: one alarm per scheduled workflow, named for it. Pure:
 * the background reconciles the alarms it finds with what these functions say should exist.
 */
import type { WorkflowSchedule } from '../protocol';
import { nextWeeklyFire } from './weekly';

const PREFIX = 'keel.workflow:';

export function alarmName(workflowId: string): string {
  return `${PREFIX}${workflowId}`;
}

/** The workflow an alarm belongs to, or null for other alarms. */
export function workflowOfAlarm(name: string): string | null {
  return name.startsWith(PREFIX) && name.length > PREFIX.length ? name.slice(PREFIX.length) : null;
}

/**
 * The next time a schedule fires after `now` (daily times are local, as `Date` knows them;
 * weekly ones in their own time zone, weekly.ts).
 */
export function nextFireAt(schedule: NonNullable<WorkflowSchedule>, now: number): number {
  if ('everyMinutes' in schedule) return now + schedule.everyMinutes * 60_000;
  // Validated to name at least one day, so there always is a next fire within a week.
  if ('days' in schedule) return nextWeeklyFire(schedule, now) ?? now + 7 * 24 * 3_600_000;
  const [h, m] = schedule.dailyAt.split(':').map(Number);
  const d = new Date(now);
  d.setHours(h, m, 0, 0);
  if (d.getTime() <= now) d.setDate(d.getDate() + 1);
  return d.getTime();
}

/**
 * What `chrome.alarms.create` gets (a daily alarm is re-planned at each fire for DST). A weekly
 * alarm fires once (its days are not evenly spaced): the scheduler's reconcile, which runs on
 * every workflow list change (a fire starts a run, which changes it) and at every worker start,
 * finds it gone and plans the next.
 */
export interface AlarmPlan {
  when: number;
  periodInMinutes?: number;
}

export function alarmPlan(schedule: NonNullable<WorkflowSchedule>, now: number): AlarmPlan {
  const when = nextFireAt(schedule, now);
  if ('days' in schedule) return { when };
  return {
    when,
    periodInMinutes: 'everyMinutes' in schedule ? schedule.everyMinutes : 24 * 60,
  };
}

/** An existing alarm still matches the schedule (same period; a daily one at the same local time). */
export function alarmMatches(
  schedule: NonNullable<WorkflowSchedule>,
  alarm: { scheduledTime: number; periodInMinutes?: number },
  now: number,
): boolean {
  const plan = alarmPlan(schedule, now);
  if (alarm.periodInMinutes !== plan.periodInMinutes) return false;
  if ('everyMinutes' in schedule) return alarm.scheduledTime <= plan.when + 60_000;
  return Math.abs(alarm.scheduledTime - plan.when) < 60_000;
}
