/**
 * The workflow scheduler against the real engine (harness rig) with fake chrome.alarms and
 * notifications: alarms follow the workflow list (and come back after a restart that lost
 * them), a fire starts a run in the workflow's thread, a repeated fire is one run, and a run
 * that needs approval waits with a notification — never approving itself.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { WorkflowSchedule } from '../../../src/protocol/workflows';
import {
  memoryMarks,
  WorkflowScheduler,
  type AlarmsLike,
} from '../../../src/background/workflow-scheduler';
import {
  alarmMatches,
  alarmName,
  alarmPlan,
  nextFireAt,
  workflowOfAlarm,
} from '../../../src/workflows/schedule';
import { makeRig, type Rig } from '../engine/harness';
import { FakeShop, SHOP } from './fake-shop';

class FakeAlarms implements AlarmsLike {
  readonly alarms = new Map<
    string,
    { name: string; scheduledTime: number; periodInMinutes?: number }
  >();
  async getAll() {
    return [...this.alarms.values()];
  }
  create(name: string, info: { when: number; periodInMinutes?: number }) {
    this.alarms.set(name, {
      name,
      scheduledTime: info.when,
      periodInMinutes: info.periodInMinutes,
    });
  }
  async clear(name: string) {
    return this.alarms.delete(name);
  }
}

async function setup() {
  const shop = new FakeShop();
  const s = shop;
  const rig = await makeRig({
    script: [
      { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
      () => ({ toolCalls: [{ name: 'browser_click', args: { ref: s.refOf('link', 'Cart') } }] }),
      { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
      { text: 'The cart is empty.' },
    ],
    tools: shop.tools(),
  });
  await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
  const { threadId, turnId, runId } = await rig.submit('Open the cart');
  await rig.client.turnComplete(runId);
  const { workflowId } = await rig.client.ack<{ workflowId: string }>({
    type: 'workflow.save',
    threadId,
    turnId,
    name: 'Check cart',
  });
  shop.reset();
  const alarms = new FakeAlarms();
  const { notes, scheduler, events } = schedulerOn(rig, alarms);
  return { shop, rig, workflowId, alarms, notes, scheduler, events };
}

/** A worker's scheduler on `rig`'s engine, with the marks a worker keeps in chrome.storage. */
function schedulerOn(rig: Rig, alarms: AlarmsLike = new FakeAlarms(), marks = memoryMarks()) {
  const notes: { id: string; message: string }[] = [];
  const events: AgentEvent[] = [];
  const engine = {
    connect: (conn: Parameters<typeof rig.engine.connect>[0]) =>
      rig.engine.connect({ ...conn, deliver: (ev) => (events.push(ev), conn.deliver(ev)) }),
  };
  const scheduler = new WorkflowScheduler({
    engine,
    alarms,
    marks,
    notifier: { notify: (id, _t, message) => notes.push({ id, message }) },
    now: () => Date.now(),
  });
  scheduler.start();
  return { notes, scheduler, events };
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('condition not reached');
}

describe('schedules (pure)', () => {
  it('names alarms per workflow and plans every-N and daily alarms', () => {
    expect(workflowOfAlarm(alarmName('wf_1'))).toBe('wf_1');
    expect(workflowOfAlarm('keel-wake')).toBeNull();
    const now = new Date(2026, 11, 1, 10, 0, 0).getTime();
    expect(nextFireAt({ everyMinutes: 15 }, now)).toBe(now + 15 * 60_000);
    expect(new Date(nextFireAt({ dailyAt: '09:30' }, now)).getDate()).toBe(2);
    expect(new Date(nextFireAt({ dailyAt: '10:30' }, now)).getHours()).toBe(10);
    expect(alarmPlan({ dailyAt: '10:30' }, now)).toEqual({
      when: now + 30 * 60_000,
      periodInMinutes: 1440,
    });
    expect(
      alarmMatches(
        { everyMinutes: 15 },
        { scheduledTime: now + 5 * 60_000, periodInMinutes: 15 },
        now,
      ),
    ).toBe(true);
    expect(
      alarmMatches(
        { everyMinutes: 30 },
        { scheduledTime: now + 5 * 60_000, periodInMinutes: 15 },
        now,
      ),
    ).toBe(false);
  });
});

describe('weekly schedules', () => {
  const weekdays = { days: [1, 2, 3, 4, 5], at: '09:00', timeZone: 'Europe/Berlin' };

  it('plan a one-shot alarm at the next chosen day (re-planned after each fire)', () => {
    // Friday 2026-03-06 10:00 in Berlin (09:00Z): the next fire is Monday 09:00 CET (08:00Z).
    const now = Date.parse('2026-03-06T09:00:00Z');
    const plan = alarmPlan(weekdays, now);
    expect(plan).toEqual({ when: Date.parse('2026-03-09T08:00:00Z') });
    expect(alarmMatches(weekdays, { scheduledTime: plan.when }, now)).toBe(true);
    // A repeating alarm (the old daily one) does not match, nor one at another time.
    expect(alarmMatches(weekdays, { scheduledTime: plan.when, periodInMinutes: 1440 }, now)).toBe(
      false,
    );
    expect(alarmMatches(weekdays, { scheduledTime: plan.when + 3_600_000 }, now)).toBe(false);
  });

  it('the wire accepts days, a time and a known zone, and refuses the rest', () => {
    expect(WorkflowSchedule.safeParse(weekdays).success).toBe(true);
    for (const bad of [
      { ...weekdays, days: [] },
      { ...weekdays, days: [7] },
      { ...weekdays, at: '9:00' },
      { ...weekdays, timeZone: 'Mars/Olympus' },
      { days: [1], at: '09:00' },
    ])
      expect(WorkflowSchedule.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});

describe('WorkflowScheduler', () => {
  it('keeps one alarm per scheduled workflow, restores a lost one at start, clears removed ones', async () => {
    const { rig, workflowId, alarms, scheduler } = await setup();
    await rig.client.ack({
      type: 'workflow.update',
      workflowId,
      patch: { schedule: { everyMinutes: 15 } },
    });
    await until(() => alarms.alarms.has(alarmName(workflowId)));
    expect(alarms.alarms.get(alarmName(workflowId))!.periodInMinutes).toBe(15);
    // A browser restart that dropped the alarm: a new worker's scheduler puts it back.
    alarms.alarms.clear();
    alarms.create(alarmName('wf_gone'), { when: 1, periodInMinutes: 15 });
    const again = new WorkflowScheduler({
      engine: rig.engine,
      alarms,
      notifier: { notify: () => undefined },
      now: () => Date.now(),
    });
    again.start();
    await until(() => alarms.alarms.has(alarmName(workflowId)));
    await again.settled();
    expect(alarms.alarms.has(alarmName('wf_gone'))).toBe(false);
    await rig.client.ack({ type: 'workflow.update', workflowId, patch: { schedule: null } });
    await until(() => !alarms.alarms.has(alarmName(workflowId)));
    await scheduler.settled();
  });

  it('a fire runs the workflow in its own thread; the same fire twice is one run; success notifies', async () => {
    const { rig, workflowId, notes, scheduler, shop, events } = await setup();
    const requests = rig.provider.requests.length;
    const fire = { name: alarmName(workflowId), scheduledTime: 1_000 };
    scheduler.onAlarm(fire);
    scheduler.onAlarm(fire);
    await until(() => notes.some((n) => n.message.includes('finished')));
    const completes = events.filter(
      (e): e is Extract<AgentEvent, { type: 'turn.complete' }> =>
        e.type === 'turn.complete' && e.workflow !== undefined,
    );
    expect(completes).toHaveLength(1);
    expect(completes[0].workflow).toMatchObject({ replayed: 1, modelRequests: 0 });
    expect(rig.provider.requests.length).toBe(requests);
    expect(shop.actions).toEqual(['click Cart']);
    const rec = await rig.store.workflows.get(workflowId);
    expect(rec?.threadId).toBe(completes[0].threadId);
    // The next fire lands in the same thread.
    shop.reset();
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 2_000 });
    await until(() => notes.filter((n) => n.message.includes('finished')).length === 2);
    const second = events
      .filter((e) => e.type === 'turn.complete' && 'workflow' in e && e.workflow)
      .at(-1) as Extract<AgentEvent, { type: 'turn.complete' }>;
    expect(second.threadId).toBe(rec?.threadId);
  });

  it('a scheduled run that needs approval waits with a notification and never approves itself', async () => {
    const { rig, workflowId, notes, scheduler, shop } = await setup();
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'ask' });
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 3_000 });
    const req = (await rig.client.waitFor(
      (e) => e.type === 'approval.request',
      10_000,
      false,
    )) as Extract<AgentEvent, { type: 'approval.request' }>;
    await until(() => notes.some((n) => n.message.includes('waiting for your approval')));
    await new Promise((r) => setTimeout(r, 100));
    expect(shop.actions).toEqual([]);
    expect((await rig.store.runs.get(req.runId))?.state).toBe('waiting_approval');
    expect(rig.client.of('approval.resolved')).toHaveLength(0);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    await until(() => notes.some((n) => n.message.includes('finished')));
    expect(shop.actions).toEqual(['click Cart']);
  });

  it("records the run's stop reason as its outcome, and a stop notifies with the reason", async () => {
    const { rig, workflowId, notes, scheduler, shop } = await setup();
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 4_000 });
    await until(() => notes.some((n) => n.message.includes('finished')));
    expect((await rig.store.workflows.get(workflowId))?.lastRun).toMatchObject({
      outcome: 'end',
      trigger: 'schedule',
      report: { steps: 1, replayed: 1, modelRequests: 0 },
    });
    // No model to take over, and the click fails: the run stops, and says why.
    await rig.store.settings.put({ ...(await rig.store.settings.get()), defaultModel: null });
    shop.reset();
    shop.beforeAction = () => {
      throw new Error('the shop is closed');
    };
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 5_000 });
    await until(() => notes.some((n) => n.message.includes('stopped')));
    const rec = await rig.store.workflows.get(workflowId);
    const last = rec?.lastRun;
    expect(last).toMatchObject({ outcome: 'error', error: { code: 'workflow_diverged' } });
    // Both runs stay listed, newest first.
    expect(rec?.recentRuns?.map((r) => r.outcome)).toEqual(['error', 'end']);
    const stopped = notes.find((n) => n.message.includes('stopped'))!;
    expect(stopped.id).toBe(`keel-run-${last!.runId}`);
    expect(stopped.message).toContain('The workflow stopped at step 1');
    expect(stopped.message).toContain('the shop is closed');
  });

  it('a worker stop during a scheduled run: the next worker notifies its end, once', async () => {
    const { rig, workflowId, notes } = await setup();
    const marks = memoryMarks();
    let commits = 0;
    // The worker dies before the replay's second commit (the page was read, nothing clicked).
    const b0 = await rig.reopen({
      faults: {
        at: (name) =>
          name === 'tx:replay_step:before' && ++commits === 2
            ? new Promise<void>(() => undefined)
            : undefined,
      },
    });
    const w0 = schedulerOn(b0, new FakeAlarms(), marks);
    w0.scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 6_000 });
    await until(() => commits >= 2);
    const b1 = await b0.reopen({ faults: { at: () => undefined } });
    const w1 = schedulerOn(b1, new FakeAlarms(), marks);
    await until(() => w1.notes.some((n) => n.message.includes('finished')));
    const runId = (await b1.store.workflows.get(workflowId))!.lastRun!.runId;
    expect(w1.notes).toEqual([
      { id: `keel-run-${runId}`, message: expect.stringContaining('finished (1 of 1 steps') },
    ]);
    expect([...notes, ...w0.notes]).toEqual([]);
    // The worker after that has nothing left to tell.
    const b2 = await b1.reopen({});
    const w2 = schedulerOn(b2, new FakeAlarms(), marks);
    await until(() => w2.events.some((e) => e.type === 'initialized'));
    await w2.scheduler.settled();
    expect(w2.notes).toEqual([]);
  });

  it('a fire while the thread is busy waits in its queue, one at most, and runs after', async () => {
    const { rig, workflowId, notes, scheduler, shop, events } = await setup();
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'ask' });
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 7_000 });
    const req = (await rig.client.waitFor(
      (e) => e.type === 'approval.request',
      10_000,
      false,
    )) as Extract<AgentEvent, { type: 'approval.request' }>;
    // Two more fires while the first run waits for the user: one queued run, not two.
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 8_000 });
    scheduler.onAlarm({ name: alarmName(workflowId), scheduledTime: 9_000 });
    const acked = (at: number) =>
      events.find((e) => e.type === 'command.ack' && e.submissionId.endsWith(`:${at}`));
    // The two fires are two ops in flight at once: their acks may come in either order.
    await until(() => acked(8_000) !== undefined && acked(9_000) !== undefined);
    // The later fire is told about the run already waiting.
    expect(acked(9_000)).toMatchObject({ result: (acked(8_000) as { result: unknown }).result });
    expect(acked(8_000)).toMatchObject({ result: { queued: true } });
    const queued = await rig.store.runs.queued(req.threadId);
    expect(queued.map((r) => r.workflow?.workflowId)).toEqual([workflowId]);
    expect(shop.actions).toEqual([]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_site',
    });
    await until(() => notes.filter((n) => n.message.includes('finished')).length === 2);
    // The queued run starts on the page the first one left (the cart): it opens its start page.
    expect(shop.actions).toEqual(['click Cart', `open ${SHOP}/`, 'click Cart']);
    const completes = events.filter(
      (e): e is Extract<AgentEvent, { type: 'turn.complete' }> =>
        e.type === 'turn.complete' && e.workflow !== undefined,
    );
    expect(completes.map((c) => [c.runId, c.stopReason, c.workflow?.replayed])).toEqual([
      [req.runId, 'end', 1],
      [queued[0].runId, 'end', 1],
    ]);
    expect(completes[1].threadId).toBe(req.threadId);
  });
});
