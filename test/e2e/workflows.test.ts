import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModelSettings, startDemoModel } from '../../scripts/demo/model';
import type { ChatServer } from '../../scripts/demo/openai-server';
import { isUsbCCable, PRODUCTS, TARGET_PRODUCT_ID } from '../../scripts/demo/shop/catalog';
import { startShop, type ShopServer } from '../../scripts/demo/shop/server';
import type { AgentEvent } from '../../src/protocol';
import { EngineClient, launchExtension, restartWorker, runSettles } from './harness';
import type { LaunchedExtension } from './harness';

/**
 * Workflows in real Chromium (issue 18): the demo task is recorded with the scripted shopper
 * model, saved, and replayed against the demo shop — unchanged, redesigned, with the product gone,
 * and across a worker stop. The cart is read from the shop's server, never from the agent.
 */

const TASK = 'Find the cheapest USB-C cable under $10 and add two to the cart.';
type TurnComplete = Extract<AgentEvent, { type: 'turn.complete' }>;

/** The cheapest USB-C cable under $10 among the products still on sale. */
function cheapestCable(removed: readonly string[] = []): string {
  return PRODUCTS.filter(
    (p) => isUsbCCable(p) && p.priceCents < 1000 && !removed.includes(p.id),
  ).sort((a, b) => a.priceCents - b.priceCents)[0].id;
}

describe('workflows: record, save, replay', () => {
  let ext: LaunchedExtension;
  let model: ChatServer;
  let shop: ShopServer;
  let client: EngineClient;
  let tab: Page;
  let workflowId = '';
  let steps = 0;
  let scheduledThread = '';

  beforeAll(async () => {
    shop = await startShop();
    model = await startDemoModel();
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    await client.sendOk({
      type: 'settings.update',
      patch: demoModelSettings(model),
    });
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
    tab = await ext.context.newPage();
  });

  afterAll(async () => {
    await ext?.close();
    await model?.close();
    await shop?.close();
  });

  /** The shop's home page in front, an empty cart. */
  async function freshShop(): Promise<void> {
    shop.resetCart();
    await tab.goto(`${shop.origin}/`);
    await tab.bringToFront();
  }

  async function replay(
    extra: { onDivergence?: 'model' | 'stop' } = {},
  ): Promise<{ done: TurnComplete; requests: number; ms: number }> {
    const before = model.requests.length;
    const t0 = Date.now();
    const mark = client.mark();
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'workflow.run',
      workflowId,
      ...extra,
    });
    const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 40_000, mark);
    return { done, requests: model.requests.length - before, ms: Date.now() - t0 };
  }

  /** chrome.* in the extension's service worker, as the tests call it. */
  interface WorkerChrome {
    alarms: {
      get(name: string): Promise<{ scheduledTime: number; periodInMinutes?: number } | undefined>;
      create(name: string, info: { when: number; periodInMinutes: number }): Promise<void>;
    };
    notifications: { getAll(): Promise<Record<string, boolean>> };
  }

  /**
   * Waits for the scheduler's alarm of the workflow, then moves its next fire to now: the test's
   * short schedule (the period stays, so the scheduler keeps the alarm as it is).
   */
  async function fireScheduleSoon(): Promise<string> {
    const name = `keel.workflow:${workflowId}`;
    const from = client.mark();
    const end = Date.now() + 10_000;
    for (;;) {
      const alarm = await ext.worker.evaluate(
        (n) => (globalThis as unknown as { chrome: WorkerChrome }).chrome.alarms.get(n),
        name,
      );
      if (alarm) {
        expect(alarm.periodInMinutes).toBe(15);
        break;
      }
      if (Date.now() > end) throw new Error(`no alarm ${name}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await fireNow(name);
    const started = await client.waitForEvent(
      'workflows.updated',
      (e) =>
        e.workflows.some((w) => w.workflowId === workflowId && w.lastRun?.outcome === 'running'),
      10_000,
      from,
    );
    return started.workflows.find((w) => w.workflowId === workflowId)!.lastRun!.runId;
  }

  /** Moves the alarm's next fire to now (its period stays, so the scheduler keeps it). */
  async function fireNow(name = `keel.workflow:${workflowId}`): Promise<void> {
    await ext.worker.evaluate(
      (n) =>
        (globalThis as unknown as { chrome: WorkerChrome }).chrome.alarms.create(n, {
          when: Date.now() + 200,
          periodInMinutes: 15,
        }),
      name,
    );
  }

  const notifications = () =>
    ext.worker.evaluate(() =>
      (globalThis as unknown as { chrome: WorkerChrome }).chrome.notifications.getAll(),
    );

  /** Waits until Chrome shows the notification `id` (the scheduler shows it after the list). */
  async function notified(id: string): Promise<string[]> {
    for (const end = Date.now() + 10_000; ; ) {
      const ids = Object.keys(await notifications());
      if (ids.includes(id) || Date.now() > end) return ids;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Answers the run's approval requests (allow_once) until the `stopAt`-th one, which it returns
   * unanswered; resolves undefined when the run completes first.
   */
  async function approveUntil(
    runId: string,
    from: number,
    answered: Set<string>,
    stopAt: number,
  ): Promise<Extract<AgentEvent, { type: 'approval.request' }> | undefined> {
    for (const end = Date.now() + 30_000; Date.now() < end; ) {
      for (const e of client.events.slice(from)) {
        if (e.type === 'turn.complete' && e.runId === runId) return undefined;
        if (e.type !== 'approval.request' || e.runId !== runId || answered.has(e.approvalId))
          continue;
        if (answered.size + 1 >= stopAt) return e;
        answered.add(e.approvalId);
        await client.sendOk({
          type: 'approval.response',
          approvalId: e.approvalId,
          decision: 'allow_once',
        });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`run ${runId} neither asked nor completed`);
  }

  const cartOf = () => shop.cart().items.map((i) => [i.productId, i.quantity]);

  it('records the demo task, saves it, and replays it with 0 model requests', async () => {
    await freshShop();
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const mark = client.mark();
    const { runId, turnId } = await client.sendOk<{ runId: string; turnId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: `${TASK}\n\n(The shop is open in the current tab: ${shop.origin}/)` },
    });
    const recorded = await client.waitForEvent(
      'turn.complete',
      (e) => e.runId === runId,
      40_000,
      mark,
    );
    expect(recorded.stopReason).toBe('end');
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);

    const saved = client.mark();
    // Named after the task: after a divergence the scripted shopper reads its task from it.
    ({ workflowId } = await client.sendOk<{ workflowId: string }>({
      type: 'workflow.save',
      threadId,
      turnId,
      name: TASK,
    }));
    const listed = await client.waitForEvent(
      'workflows.updated',
      (e) => e.workflows.some((w) => w.workflowId === workflowId),
      5_000,
      saved,
    );
    steps = listed.workflows.find((w) => w.workflowId === workflowId)!.steps;
    expect(steps).toBeGreaterThanOrEqual(3);

    await freshShop();
    const { done, requests, ms } = await replay();
    console.log(`replay: ${steps} steps, ${requests} model requests, ${ms} ms`);
    expect(done.stopReason).toBe('end');
    expect(requests).toBe(0);
    expect(done.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    expect(done.workflow?.diverged).toBeUndefined();
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
  });

  it('replays after a redesign (other ids and classes, reordered products) with 0 model requests', async () => {
    shop.configure({ remix: true });
    await freshShop();
    const html = await tab.content();
    expect(html).toContain('class="rx-products"');
    expect(html).not.toContain('class="products"');
    const { done, requests, ms } = await replay();
    console.log(
      `replay after the markup change: ${steps} steps, ${requests} model requests, ${ms} ms`,
    );
    expect(done.stopReason).toBe('end');
    expect(requests).toBe(0);
    expect(done.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
    shop.configure({});
  });

  it('the product gone: a clear stop naming the step, or the scripted model takes over', async () => {
    const gone = PRODUCTS.find((p) => p.id === TARGET_PRODUCT_ID)!;
    shop.configure({ removed: [gone.id] });
    await freshShop();
    const stopped = await replay({ onDivergence: 'stop' });
    expect(stopped.requests).toBe(0);
    expect(stopped.done.stopReason).toBe('error');
    const at = stopped.done.workflow?.diverged?.step;
    expect(at).toBeGreaterThanOrEqual(1);
    expect(at).toBeLessThanOrEqual(steps);
    expect(stopped.done.workflow).toMatchObject({ steps, replayed: at! - 1, modelRequests: 0 });
    expect(stopped.done.error?.message).toContain(`The workflow stopped at step ${at}:`);
    expect(stopped.done.error?.message).toContain(gone.name);
    expect(cartOf()).toEqual([]);

    await freshShop();
    const handed = await replay();
    console.log(
      `product gone, handed to the model at step ${handed.done.workflow?.diverged?.step}: ${handed.requests} model requests, ${handed.ms} ms`,
    );
    expect(handed.done.stopReason).toBe('end');
    expect(handed.requests).toBeGreaterThan(0);
    expect(handed.done.workflow).toMatchObject({
      steps,
      replayed: at! - 1,
      modelRequests: handed.requests,
      diverged: { step: at },
    });
    expect(cartOf()).toEqual([[cheapestCable([gone.id]), 2]]);
    shop.configure({});
  });

  it('a worker stop before each step of a replay: it resumes and each action happens once', async () => {
    // A stop point between steps for every step k: the shop asks, steps before k are approved,
    // and the worker stops while step k's approval waits (step k - 1 has run, step k has not).
    // (A stop while an action itself runs pauses the run as uncertain instead, by design.)
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'ask' });
    for (let at = 1; at <= steps; at++) {
      const where = `worker stopped while step ${at} waited for approval`;
      await freshShop();
      const before = model.requests.length;
      const logFrom = shop.log.length;
      const mark = client.mark();
      const { runId, threadId } = await client.sendOk<{ runId: string; threadId: string }>({
        type: 'workflow.run',
        workflowId,
      });
      const answered = new Set<string>();
      const pending = await approveUntil(runId, mark, answered, at);
      expect(pending, where).toBeDefined();
      await restartWorker(ext, client);
      const waiting = await runSettles(client, threadId, [
        'waiting_approval',
        'completed',
        'failed',
      ]);
      expect(waiting.run?.pendingApproval, where).toMatchObject({
        approvalId: pending!.approvalId,
      });
      const resumed = client.mark();
      await client.sendOk({
        type: 'approval.response',
        approvalId: pending!.approvalId,
        decision: 'allow_once',
      });
      answered.add(pending!.approvalId);
      const done = await approveUntil(runId, resumed, answered, Infinity);
      expect(done, where).toBeUndefined();
      const settled = await runSettles(client, threadId, [
        'completed',
        'failed',
        'paused_uncertain',
      ]);
      expect(settled.run, where).toMatchObject({ runId, state: 'completed', stopReason: 'end' });
      const complete = client.events
        .slice(resumed)
        .find((e): e is TurnComplete => e.type === 'turn.complete' && e.runId === runId);
      expect(complete?.workflow, where).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
      expect(answered.size, where).toBe(steps);
      expect(model.requests.length - before, where).toBe(0);
      expect(cartOf(), where).toEqual([[TARGET_PRODUCT_ID, 2]]);
      // Each action reached the shop once: one search, one product page, one add to the cart.
      const hits = shop.log.slice(logFrom);
      expect(hits.filter((h) => h.startsWith('GET /search')).length, where).toBe(1);
      expect(hits.filter((h) => h === `GET /product/${TARGET_PRODUCT_ID}`).length, where).toBe(1);
      expect(hits.filter((h) => h === 'POST /cart/add').length, where).toBe(1);
      const acts = settled.path.filter(
        (i) => i.kind === 'tool_call' && i.name !== 'browser_snapshot',
      );
      expect(acts, where).toHaveLength(steps);
    }
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
  });

  it('a worker stop while the add to the cart runs: paused as uncertain; marked done, it is not run again', async () => {
    shop.configure({ addDelayMs: 2_500 });
    await freshShop();
    const before = model.requests.length;
    const logFrom = shop.log.length;
    const mark = client.mark();
    const { runId, threadId } = await client.sendOk<{ runId: string; threadId: string }>({
      type: 'workflow.run',
      workflowId,
    });
    let clicks = 0;
    await client.waitForEvent(
      'item.complete',
      (e) =>
        e.threadId === threadId &&
        e.item.kind === 'tool_call' &&
        e.item.name === 'browser_click' &&
        e.item.state === 'executing' &&
        ++clicks === 2,
      20_000,
      mark,
    );
    const posted = Date.now() + 5_000;
    while (!shop.log.slice(logFrom).includes('POST /cart/add') && Date.now() < posted)
      await new Promise((r) => setTimeout(r, 20));
    await restartWorker(ext, client);
    const paused = await runSettles(client, threadId, ['paused_uncertain', 'completed', 'failed']);
    expect(paused.run).toMatchObject({ runId, state: 'paused_uncertain' });
    // The user checks the page as the notice asks: the cart shows the two cables. Done, then.
    await tab.waitForURL(/\/cart\?added=/, { timeout: 10_000 });
    const resumed = client.mark();
    await client.sendOk({ type: 'run.resolveUncertain', runId, resolution: 'mark_done' });
    const settled = await runSettles(client, threadId, ['completed', 'failed']);
    expect(settled.run).toMatchObject({ runId, state: 'completed', stopReason: 'end' });
    const done = client.events
      .slice(resumed)
      .find((e): e is TurnComplete => e.type === 'turn.complete' && e.runId === runId);
    expect(done?.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    expect(model.requests.length - before).toBe(0);
    expect(shop.log.slice(logFrom).filter((h) => h === 'POST /cart/add')).toHaveLength(1);
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
    shop.configure({});
  });

  it("a scheduled run fires through chrome.alarms and lands in the workflow's thread", async () => {
    await freshShop();
    const before = model.requests.length;
    const mark = client.mark();
    await client.sendOk({
      type: 'workflow.update',
      workflowId,
      patch: { schedule: { everyMinutes: 15 } },
    });
    const runId = await fireScheduleSoon();
    const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 30_000, mark);
    expect(done.stopReason).toBe('end');
    expect(done.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    expect(model.requests.length - before).toBe(0);
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
    const listed = await client.waitForEvent(
      'workflows.updated',
      (e) =>
        e.workflows.some(
          (w) =>
            w.workflowId === workflowId &&
            w.lastRun?.runId === runId &&
            w.lastRun.outcome === 'end',
        ),
      5_000,
      mark,
    );
    const wf = listed.workflows.find((w) => w.workflowId === workflowId)!;
    expect(wf.lastRun).toMatchObject({
      threadId: done.threadId,
      report: { steps, replayed: steps, modelRequests: 0 },
    });
    scheduledThread = done.threadId;
    expect(await notified(`keel-run-${runId}`)).toContain(`keel-run-${runId}`);
  });

  it('a scheduled run that needs an approval waits for the user', async () => {
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'ask' });
    await freshShop();
    const logFrom = shop.log.length;
    const mark = client.mark();
    const runId = await fireScheduleSoon();
    const asked = await client.waitForEvent(
      'approval.request',
      (e) => e.runId === runId,
      20_000,
      mark,
    );
    expect(asked.target.origin).toBe(shop.origin);
    // Every scheduled run lands in the workflow's own thread.
    expect(asked.threadId).toBe(scheduledThread);
    // Nobody answers: the run is still waiting a while later, and nothing was written.
    await new Promise((r) => setTimeout(r, 1_500));
    const waiting = await runSettles(client, asked.threadId, [
      'waiting_approval',
      'completed',
      'failed',
    ]);
    expect(waiting.run).toMatchObject({ runId, state: 'waiting_approval' });
    expect(waiting.run?.pendingApproval).toMatchObject({ approvalId: asked.approvalId });
    expect(shop.log.slice(logFrom).filter((h) => h.startsWith('POST'))).toEqual([]);
    expect(cartOf()).toEqual([]);
    expect(await notified(`keel-approval-${asked.approvalId}`)).toContain(
      `keel-approval-${asked.approvalId}`,
    );
    // Chrome stops the worker while the run waits: the next worker still tells of the run's end.
    await restartWorker(ext, client);
    const rewaiting = await runSettles(client, asked.threadId, ['waiting_approval']);
    expect(rewaiting.run?.pendingApproval).toMatchObject({ approvalId: asked.approvalId });
    // The user approves each step: the run finishes as a replay.
    const answered = new Set<string>();
    const resumed = client.mark();
    await client.sendOk({
      type: 'approval.response',
      approvalId: asked.approvalId,
      decision: 'allow_once',
    });
    answered.add(asked.approvalId);
    expect(await approveUntil(runId, resumed, answered, Infinity)).toBeUndefined();
    const done = client.events
      .slice(mark)
      .find((e): e is TurnComplete => e.type === 'turn.complete' && e.runId === runId)!;
    expect(done.stopReason).toBe('end');
    expect(done.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    expect(answered.size).toBeGreaterThanOrEqual(1);
    console.log(`scheduled run with approvals: ${answered.size} approvals answered`);
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
    expect(await notified(`keel-run-${runId}`)).toContain(`keel-run-${runId}`);
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
  });

  it('a fire while the last scheduled run waits for approval is queued, once, and runs after it', async () => {
    await client.sendOk({
      type: 'workflow.update',
      workflowId,
      patch: { schedule: { everyMinutes: 15 } },
    });
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'ask' });
    await freshShop();
    const logFrom = shop.log.length;
    const mark = client.mark();
    const first = await fireScheduleSoon();
    const asked = await client.waitForEvent(
      'approval.request',
      (e) => e.runId === first,
      20_000,
      mark,
    );
    // Two more fires while it waits: one run queued in the workflow's thread, not two.
    await fireNow();
    const queuedEv = await client.waitForEvent(
      'queue.updated',
      (e) => e.threadId === asked.threadId && e.items.length > 0,
      10_000,
      mark,
    );
    expect(queuedEv.items).toHaveLength(1);
    const queuedRun = queuedEv.items[0].queueItemId;
    // The next fire finds that run waiting: nothing is added (a while later, still one).
    await fireNow();
    await new Promise((r) => setTimeout(r, 1_500));
    const still = await runSettles(client, asked.threadId, ['waiting_approval']);
    expect(still.queue.map((q) => q.queueItemId)).toEqual([queuedRun]);
    expect(shop.log.slice(logFrom).filter((h) => h.startsWith('POST'))).toEqual([]);
    // The user allows the site: the first run finishes, then the queued one runs by itself.
    await client.sendOk({
      type: 'approval.response',
      approvalId: asked.approvalId,
      decision: 'allow_site',
    });
    const second = await client.waitForEvent(
      'turn.complete',
      (e) => e.runId === queuedRun,
      40_000,
      mark,
    );
    expect(second.threadId).toBe(asked.threadId);
    expect(second.stopReason).toBe('end');
    expect(second.workflow).toMatchObject({ steps, replayed: steps, modelRequests: 0 });
    const firstDone = client.events
      .slice(mark)
      .find((e): e is TurnComplete => e.type === 'turn.complete' && e.runId === first);
    expect(firstDone?.stopReason).toBe('end');
    expect(shop.log.slice(logFrom).filter((h) => h === 'POST /cart/add')).toHaveLength(2);
    expect(await notified(`keel-run-${queuedRun}`)).toContain(`keel-run-${queuedRun}`);
  });
});
