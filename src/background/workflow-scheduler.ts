/**
 * Workflow schedules on chrome.alarms (injected, so it runs under vitest). The scheduler is an
 * ordinary client of the engine: it keeps one alarm per scheduled workflow in line with the
 * workflow list, starts a run with `workflow.run { trigger: 'schedule' }` when an alarm fires
 * (the alarm's scheduled time is the submission id, so a repeated fire is a receipt replay; a
 * fire while the thread is busy waits in its queue, src/engine/ops-workflows.ts), and notifies
 * when a scheduled run needs an approval or ends. The end is read from the workflows' last runs
 * as recorded (src/workflows/notices.ts), with the notices already shown kept in `marks`, so a
 * worker stopped during the run still notifies. It never answers an approval: a scheduled run
 * that needs one waits for the user like any run.
 */
import type { AgentEvent, EngineConnection, EngineEndpoint, WorkflowMeta } from '../protocol';
import { noticesDue, type RunNotice } from '../workflows/notices';
import { alarmMatches, alarmName, alarmPlan, workflowOfAlarm } from '../workflows/schedule';

export interface AlarmsLike {
  getAll(): Promise<{ name: string; scheduledTime: number; periodInMinutes?: number }[]>;
  create(name: string, info: { when: number; periodInMinutes?: number }): Promise<void> | void;
  clear(name: string): Promise<boolean> | Promise<void> | void;
}

export interface NotifierLike {
  /** Show a notification; `id` replaces an earlier one with the same id. */
  notify(id: string, title: string, message: string): void;
}

/** The keys of the end-of-run notifications already shown, kept across worker restarts. */
export interface NoticeMarksLike {
  load(): Promise<string[]>;
  save(keys: string[]): Promise<void>;
}

/** Marks that live as long as the object (tests; a worker without storage). */
export function memoryMarks(): NoticeMarksLike & { keys: string[] } {
  return {
    keys: [],
    async load() {
      return [...this.keys];
    },
    async save(keys) {
      this.keys = [...keys];
    },
  };
}

export interface SchedulerText {
  needsApproval(name: string): string;
  needsCheck(name: string): string;
  succeeded(name: string, replayed: number, steps: number): string;
  failed(name: string, why: string): string;
}

export const ENGLISH_TEXT: SchedulerText = {
  needsApproval: (n) => `The scheduled workflow "${n}" is waiting for your approval.`,
  needsCheck: (n) =>
    `The scheduled workflow "${n}" paused: check whether its last action happened, then continue it in the side panel.`,
  succeeded: (n, r, s) => `The scheduled workflow "${n}" finished (${r} of ${s} steps replayed).`,
  failed: (n, why) => `The scheduled workflow "${n}" stopped: ${why}`,
};

export class WorkflowScheduler {
  private workflows: WorkflowMeta[] = [];
  private deliver: ((op: unknown) => void) | null = null;
  /** Scheduled runs this worker started: runId → workflow name (approvals come before the list). */
  private readonly runs = new Map<string, string>();
  private readonly pending = new Map<string, string>();
  private reconciling: Promise<void> = Promise.resolve();
  private noticing: Promise<void> = Promise.resolve();
  private shown: Set<string> | null = null;

  constructor(
    private readonly deps: {
      engine: EngineEndpoint;
      alarms: AlarmsLike;
      notifier: NotifierLike;
      now: () => number;
      /** Default: in memory (a restarted worker would notify again). */
      marks?: NoticeMarksLike;
      text?: SchedulerText;
      log?: (msg: string) => void;
    },
  ) {}

  /** Connect to the engine and subscribe to every thread (approvals and completions). */
  start(): void {
    const conn: EngineConnection = {
      deliver: (ev) => this.onEvent(ev),
      onOp: (cb) => (this.deliver = cb),
      onClose: () => undefined,
    };
    this.deps.engine.connect(conn);
    this.send({ type: 'initialize', subscribe: ['*'] }, 'sched-init');
  }

  /** The alarm listener's entry (registered at top level by the worker). */
  onAlarm(alarm: { name: string; scheduledTime: number }): void {
    const workflowId = workflowOfAlarm(alarm.name);
    if (!workflowId) return;
    const submissionId = `sched:${workflowId}:${Math.round(alarm.scheduledTime)}`;
    this.pending.set(submissionId, workflowId);
    this.send(
      { type: 'workflow.run', workflowId, trigger: 'schedule', onDivergence: 'model' },
      submissionId,
    );
  }

  /** Resolves when the alarms and notifications match the last workflow list (tests). */
  async settled(): Promise<void> {
    await this.reconciling;
    await this.noticing;
  }

  private send(op: Record<string, unknown>, submissionId: string): void {
    this.deliver?.({ clientId: 'keel-scheduler', submissionId, ...op });
  }

  private onEvent(ev: AgentEvent): void {
    const text = this.deps.text ?? ENGLISH_TEXT;
    switch (ev.type) {
      case 'initialized':
        return this.setWorkflows(ev.workflows ?? []);
      case 'workflows.updated':
        return this.setWorkflows(ev.workflows);
      case 'command.ack': {
        const workflowId = this.pending.get(ev.submissionId);
        if (!workflowId) return;
        this.pending.delete(ev.submissionId);
        const runId = (ev.result as { runId?: string } | undefined)?.runId;
        if (runId) this.runs.set(runId, this.nameOf(workflowId));
        return;
      }
      case 'command.reject': {
        const workflowId = this.pending.get(ev.submissionId);
        if (!workflowId) return;
        this.pending.delete(ev.submissionId);
        // A fire waits behind a busy run, one per workflow; refused (a full queue): skipped.
        this.deps.log?.(`scheduled run of ${workflowId} refused: ${ev.code} ${ev.message}`);
        return;
      }
      case 'approval.request': {
        const name =
          this.runs.get(ev.runId) ??
          this.workflows.find(
            (w) => w.lastRun?.runId === ev.runId && w.lastRun.trigger === 'schedule',
          )?.name;
        if (name !== undefined)
          this.deps.notifier.notify(
            `keel-approval-${ev.approvalId}`,
            'Keel',
            text.needsApproval(name),
          );
        return;
      }
      default:
        return;
    }
  }

  private nameOf(workflowId: string): string {
    return this.workflows.find((w) => w.workflowId === workflowId)?.name ?? workflowId;
  }

  private setWorkflows(list: WorkflowMeta[]): void {
    this.workflows = list;
    this.reconciling = this.reconciling
      .then(() => this.reconcile(list))
      .catch((e) => this.deps.log?.(`alarm reconcile failed: ${String(e)}`));
    this.noticing = this.noticing
      .then(() => this.notifyEnds(list))
      .catch((e) => this.deps.log?.(`run notification failed: ${String(e)}`));
  }

  /** Notify each scheduled run's end once: shown first, then marked (a stop between: shown again). */
  private async notifyEnds(list: WorkflowMeta[]): Promise<void> {
    const marks = this.deps.marks;
    // Unreadable marks: notify anyway (a notification shown twice beats one never shown).
    this.shown ??= new Set(marks ? await marks.load().catch(() => []) : []);
    const { due, keep } = noticesDue(list, this.shown, this.deps.now());
    for (const n of due) {
      this.deps.notifier.notify(`keel-run-${n.runId}`, 'Keel', this.noticeText(n));
      this.runs.delete(n.runId);
    }
    const next = new Set(keep);
    const changed = next.size !== this.shown.size || [...next].some((k) => !this.shown!.has(k));
    this.shown = next;
    if (changed) await marks?.save([...next]);
  }

  private noticeText(n: RunNotice): string {
    const text = this.deps.text ?? ENGLISH_TEXT;
    switch (n.kind) {
      case 'succeeded':
        return text.succeeded(n.name, n.replayed, n.steps);
      case 'needs_check':
        return text.needsCheck(n.name);
      case 'failed':
        return text.failed(n.name, n.why);
    }
  }

  /** One alarm per scheduled workflow; stale, changed and orphaned alarms are replaced or cleared. */
  private async reconcile(list: WorkflowMeta[]): Promise<void> {
    const { alarms } = this.deps;
    const now = this.deps.now();
    const existing = new Map(
      (await alarms.getAll()).filter((a) => workflowOfAlarm(a.name)).map((a) => [a.name, a]),
    );
    for (const w of list) {
      const name = alarmName(w.workflowId);
      const have = existing.get(name);
      existing.delete(name);
      if (!w.schedule) {
        if (have) await alarms.clear(name);
        continue;
      }
      if (have && alarmMatches(w.schedule, have, now)) continue;
      await alarms.create(name, alarmPlan(w.schedule, now));
    }
    for (const name of existing.keys()) await alarms.clear(name);
  }
}
