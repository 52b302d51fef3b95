/**
 * The workflow scheduler against the real engine (harness rig) with fake chrome.alarms and
 * notifications: alarms follow the workflow list (and come back after a restart that lost
 * them), a fire starts a run in the workflow's thread, a repeated fire is one run, and a run
 * that needs approval waits with a notification — never approving itself.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { WorkflowScheduler, type AlarmsLike } from '../../../src/background/workflow-scheduler';
import {
  alarmMatches,
  alarmName,
  alarmPlan,
  nextFireAt,
  workflowOfAlarm,
} from '../../../src/workflows/schedule';
import { makeRig } from '../engine/harness';
import { FakeShop, SHOP } from './fake-shop';

class FakeAlarms implements AlarmsLike {
  readonly alarms = new Map<
    string,
    { name: string; scheduledTime: number; periodInMinutes?: number }
  >();
  async getAll() {
    return [...this.alarms.values()];
  }
  create(name: string, info: { when: number; periodInMinutes: number }) {
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
  const notes: { id: string; message: string }[] = [];
  const events: AgentEvent[] = [];
  const engine = {
    connect: (conn: Parameters<typeof rig.engine.connect>[0]) =>
      rig.engine.connect({ ...conn, deliver: (ev) => (events.push(ev), conn.deliver(ev)) }),
  };
  const scheduler = new WorkflowScheduler({
    engine,
    alarms,
    notifier: { notify: (id, _t, message) => notes.push({ id, message }) },
    now: () => Date.now(),
  });
  scheduler.start();
  return { shop, rig, workflowId, alarms, notes, scheduler, events };
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
});
