import { z } from 'zod';
import { StopReason } from './common';

/** Workflows on the wire (PROTOCOL.md §Workflows). */

/** `HH:MM`, 24-hour local time. */
const DailyAt = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'dailyAt is HH:MM (24-hour local time)');

/** An IANA time zone this runtime knows (`Europe/Berlin`, `Asia/Shanghai`). */
const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine((timeZone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
      return true;
    } catch {
      return false;
    }
  }, 'timeZone is not a known IANA time zone');

/**
 * Every N minutes (at least 15), daily at a local time, weekly on some days at a time in the
 * user's time zone (**added**: `{ days: [1,2,3,4,5], at: '09:00', timeZone: 'Europe/Berlin' }`
 * is "weekdays at 9:00"; days 0 = Sunday … 6 = Saturday), or no schedule.
 */
export const WorkflowSchedule = z
  .union([
    z
      .object({
        everyMinutes: z
          .number()
          .int()
          .min(15)
          .max(7 * 24 * 60),
      })
      .strict(),
    z.object({ dailyAt: DailyAt }).strict(),
    z
      .object({
        days: z.array(z.number().int().min(0).max(6)).min(1).max(7),
        at: DailyAt,
        timeZone: TimeZone,
      })
      .strict(),
  ])
  .nullable();
export type WorkflowSchedule = z.infer<typeof WorkflowSchedule>;

/** Input names are referenced from steps as `{{name}}`. */
export const WorkflowInputName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

export const WorkflowInputMeta = z.object({
  name: WorkflowInputName,
  default: z.string().max(10_000).optional(),
  /** A recorded secret field (a password): no default; the run form asks for it masked. */
  secret: z.boolean().optional(),
});

export const WorkflowDivergence = z.object({
  /** 1-based step that diverged; `steps + 1` is the final check. */
  step: z.number().int().min(1),
  reason: z.string(),
});

/** What `turn.complete` of a workflow run reports. */
export const WorkflowReport = z.object({
  workflowId: z.string().optional(),
  steps: z.number().int().min(0),
  replayed: z.number().int().min(0),
  modelRequests: z.number().int().min(0),
  diverged: WorkflowDivergence.optional(),
});
export type WorkflowReport = z.infer<typeof WorkflowReport>;

/**
 * How a workflow's last run ended: the turn's stop reason as its `turn.complete` names it
 * (`end`: the final check passed, by replay alone or with the model's help after a divergence —
 * `report.diverged` tells which; `error`: the run stopped, `error` says why; `interrupted`,
 * `paused_uncertain`, `budget_pause`, …), or `running` from its start until it stops.
 */
export const WorkflowOutcome = z.union([StopReason, z.literal('running')]);
export type WorkflowOutcome = z.infer<typeof WorkflowOutcome>;

export const WorkflowLastRun = z.object({
  threadId: z.string(),
  runId: z.string(),
  at: z.number(),
  outcome: WorkflowOutcome,
  /** Set when the run was started by the workflow's schedule. */
  trigger: z.literal('schedule').optional(),
  /** Why a run that stopped stopped (its turn.complete `error`). */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  report: WorkflowReport.optional(),
});
export type WorkflowLastRun = z.infer<typeof WorkflowLastRun>;

export const WorkflowMeta = z.object({
  workflowId: z.string(),
  name: z.string(),
  steps: z.number().int().min(0),
  inputs: z.array(WorkflowInputMeta),
  schedule: WorkflowSchedule,
  lastRun: WorkflowLastRun.optional(),
  /** The last few runs (at most 5), newest first; the first is `lastRun`. */
  recentRuns: z.array(WorkflowLastRun).max(20).optional(),
  /** The steps as a person reads them (for the Workflows view). */
  summary: z.array(z.string()).optional(),
});
export type WorkflowMeta = z.infer<typeof WorkflowMeta>;

/**
 * A recording of a demonstration (issue 27): one at a time. `steps` are the review's lines, in the
 * order `workflow.recordSave`'s `drop` counts them; `inputs` are what the typed values became.
 */
export const RecordingStatus = z.object({
  recordingId: z.string(),
  tabId: z.number().int(),
  phase: z.enum(['recording', 'stopped']),
  /** Why it stopped: Stop (`user`) or the tab was closed (`tab_closed`). */
  endedBy: z.enum(['user', 'tab_closed']).optional(),
  steps: z.array(z.string()),
  inputs: z.array(WorkflowInputMeta),
});
export type RecordingStatus = z.infer<typeof RecordingStatus>;
