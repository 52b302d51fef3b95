/**
 * Workflow schedules on chrome.alarms (injected, so it runs under vitest). The scheduler is an
 * ordinary client of the engine: it keeps one alarm per scheduled workflow in line with the
 * workflow list, starts a run with `workflow.run { trigger: 'schedule' }` when an alarm fires
 * (the alarm's scheduled time is the submission id, so a repeated fire is a receipt replay), and
 * notifies when a scheduled run needs an approval or ends. It never answers an approval: a
 * scheduled run that needs one waits for the user like any run.
 */
import type { AgentEvent, EngineConnection, EngineEndpoint, WorkflowMeta } from '../protocol';
import { alarmMatches, alarmName, alarmPlan, workflowOfAlarm } from '../workflows/schedule';

export interface AlarmsLike {
  getAll(): Promise<{ name: string; scheduledTime: number; periodInMinutes?: number }[]>;
  create(name: string, info: { when: number; periodInMinutes: number }): Promise<void> | void;
  clear(name: string): Promise<boolean> | Promise<void> | void;
}

export interface NotifierLike {
  /** Show a notification; `id` replaces an earlier one with the same id. */
  notify(id: string, title: string, message: string): void;
}

export interface SchedulerText {
  needsApproval(name: string): string;
  succeeded(name: string, replayed: number, steps: number): string;
  failed(name: string, why: string): string;
}

export const ENGLISH_TEXT: SchedulerText = {
  needsApproval: (n) => `The scheduled workflow "${n}" is waiting for your approval.`,
  succeeded: (n, r, s) => `The scheduled workflow "${n}" finished (${r} of ${s} steps replayed).`,
  failed: (n, why) => `The scheduled workflow "${n}" stopped: ${why}`,
};

export class WorkflowScheduler {
  private workflows: WorkflowMeta[] = [];
  private deliver: ((op: unknown) => void) | null = null;
  /** Scheduled runs in flight: runId → workflow name. */
  private readonly runs = new Map<string, string>();
  private readonly pending = new Map<string, string>();
  private reconciling: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      engine: EngineEndpoint;
      alarms: AlarmsLike;
      notifier: NotifierLike;
      now: () => number;
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

  /** Resolves when the alarms match the last workflow list (tests). */
  settled(): Promise<void> {
    return this.reconciling;
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
        // busy: the previous run is still going (or waits for the user); this fire is skipped.
        this.deps.log?.(`scheduled run of ${workflowId} refused: ${ev.code} ${ev.message}`);
        return;
      }
      case 'approval.request': {
        const name = this.runs.get(ev.runId);
        if (name !== undefined)
          this.deps.notifier.notify(
            `keel-approval-${ev.approvalId}`,
            'Keel',
            text.needsApproval(name),
          );
        return;
      }
      case 'turn.complete': {
        const name = this.runs.get(ev.runId);
        if (name === undefined) return;
        if (ev.stopReason === 'interrupted') return;
        this.runs.delete(ev.runId);
        const w = ev.workflow;
        if (ev.stopReason === 'end')
          this.deps.notifier.notify(
            `keel-run-${ev.runId}`,
            'Keel',
            text.succeeded(name, w?.replayed ?? 0, w?.steps ?? 0),
          );
        else
          this.deps.notifier.notify(
            `keel-run-${ev.runId}`,
            'Keel',
            text.failed(name, ev.error?.message ?? ev.stopReason),
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
