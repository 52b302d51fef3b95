import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModelSettings, startDemoModel } from '../../scripts/demo/model';
import type { ChatServer } from '../../scripts/demo/openai-server';
import { TARGET_PRODUCT_ID } from '../../scripts/demo/shop/catalog';
import { startShop, type ShopServer } from '../../scripts/demo/shop/server';
import type { AgentEvent } from '../../src/protocol';
import { EngineClient, launchExtension, runSettles } from './harness';
import type { LaunchedExtension } from './harness';

/**
 * A workflow whose typed input ends up in the last page's URL (issue 27): "add 2 to the cart"
 * makes the model type `2` into Quantity, and the shop ends on `/cart?added=…&qty=2`. Saved, it
 * replays with 0 model requests on the unchanged shop and after a redesign (other ids and
 * classes, products reversed), ending `done` (the final check passes), not diverged. The cart is
 * read from the shop's server; the model's requests from the model server.
 */

const TASK = 'Find the cheapest USB-C cable under $10 and add 2 to the cart.';
type TurnComplete = Extract<AgentEvent, { type: 'turn.complete' }>;

describe('workflows: a typed value that appears in the final URL', () => {
  let ext: LaunchedExtension;
  let model: ChatServer;
  let shop: ShopServer;
  let client: EngineClient;
  let tab: Page;

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

  async function freshShop(): Promise<void> {
    shop.resetCart();
    await tab.goto(`${shop.origin}/`);
    await tab.bringToFront();
  }

  const cartOf = () => shop.cart().items.map((i) => [i.productId, i.quantity]);

  it('saves the model turn and replays it with 0 model requests, before and after a redesign', async () => {
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
    expect(tab.url()).toMatch(/\/cart\?added=[^&]+&qty=2$/);

    const saved = client.mark();
    const { workflowId } = await client.sendOk<{ workflowId: string }>({
      type: 'workflow.save',
      threadId,
      turnId,
      name: TASK,
    });
    const listed = await client.waitForEvent(
      'workflows.updated',
      (e) => e.workflows.some((w) => w.workflowId === workflowId),
      5_000,
      saved,
    );
    const summary = listed.workflows.find((w) => w.workflowId === workflowId)!;
    expect(summary.inputs).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'quantity', default: '2' })]),
    );

    for (const remix of [false, true]) {
      shop.configure({ remix });
      await freshShop();
      if (remix) expect(await tab.content()).toContain('class="rx-products"');
      const before = model.requests.length;
      const from = client.mark();
      const run = await client.sendOk<{ runId: string; threadId: string }>({
        type: 'workflow.run',
        workflowId,
        onDivergence: 'stop',
      });
      const done: TurnComplete = await client.waitForEvent(
        'turn.complete',
        (e) => e.runId === run.runId,
        40_000,
        from,
      );
      const where = remix ? 'redesigned shop' : 'unchanged shop';
      expect(done.stopReason, `${where}: ${done.error?.message}`).toBe('end');
      expect(model.requests.length - before, where).toBe(0);
      expect(done.workflow, where).toMatchObject({
        steps: summary.steps,
        replayed: summary.steps,
        modelRequests: 0,
      });
      expect(done.workflow?.diverged, where).toBeUndefined();
      expect(cartOf(), where).toEqual([[TARGET_PRODUCT_ID, 2]]);
      expect(tab.url(), where).toMatch(/qty=2$/);
      const settled = await runSettles(client, run.threadId, ['completed']);
      expect(settled.run?.stopReason).toBe('end');
    }
    shop.configure({});
  }, 180_000);
});
