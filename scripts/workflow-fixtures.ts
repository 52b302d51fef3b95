/**
 * Regenerates test/fixtures/workflows/: the items of real turns in the built extension, so the
 * workflow tests derive and replay on what the real snapshot tool produced on real pages (no
 * snapshot text typed into a test).
 *
 *   npm run build && npx tsx scripts/workflow-fixtures.ts
 *
 * On the demo shop (scripts/demo/shop) with the scripted demo model, the task "… add 2 to the
 * cart" (the typed quantity `2` is an input and ends up in the last page's URL, `?qty=2`) is run
 * by the model, saved as a workflow, and replayed on the unchanged shop and on the redesigned one
 * (other ids and classes, products reversed). Each turn's items are written as the store keeps
 * them, minus screenshots (binary, and not what workflows read).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoModelSettings, startDemoModel } from './demo/model';
import { startShop } from './demo/shop/server';
import { EngineClient, launchExtension, runSettles } from '../test/e2e/harness';
import type { Item } from '../src/protocol';

export const FIXTURE_DIR = join(import.meta.dirname, '..', 'test', 'fixtures', 'workflows');
export const TASK_QTY2 = 'Find the cheapest USB-C cable under $10 and add 2 to the cart.';

/** Screenshots are bytes, not page structure; dropping them keeps the fixture readable. */
function withoutImages(items: readonly Item[]): Item[] {
  return items.map((i) => {
    if (i.kind !== 'tool_result' || !i.details || typeof i.details !== 'object') return i;
    const { thumbnail: _t, image: _i, ...details } = i.details as Record<string, unknown>;
    return { ...i, details };
  });
}

async function main(): Promise<void> {
  const shop = await startShop();
  const model = await startDemoModel();
  const ext = await launchExtension();
  try {
    const client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    await client.sendOk({
      type: 'settings.update',
      patch: demoModelSettings(model),
    });
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
    const tab = await ext.context.newPage();
    const freshShop = async () => {
      shop.resetCart();
      await tab.goto(`${shop.origin}/`);
      await tab.bringToFront();
    };

    await freshShop();
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const mark = client.mark();
    const { runId, turnId } = await client.sendOk<{ runId: string; turnId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: `${TASK_QTY2}\n\n(The shop is open in the current tab: ${shop.origin}/)` },
    });
    const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 60_000, mark);
    if (done.stopReason !== 'end') throw new Error(`the model run ended ${done.stopReason}`);
    const recorded = await runSettles(client, threadId, ['completed']);
    const { workflowId } = await client.sendOk<{ workflowId: string }>({
      type: 'workflow.save',
      threadId,
      turnId,
      name: TASK_QTY2,
    });

    const replay = async (remix: boolean): Promise<Item[]> => {
      shop.configure({ remix });
      await freshShop();
      const before = model.requests.length;
      const from = client.mark();
      const run = await client.sendOk<{ runId: string; threadId: string }>({
        type: 'workflow.run',
        workflowId,
      });
      const end = await client.waitForEvent(
        'turn.complete',
        (e) => e.runId === run.runId,
        60_000,
        from,
      );
      if (end.stopReason !== 'end' || model.requests.length !== before)
        throw new Error(`replay (remix ${remix}) ended ${end.stopReason}`);
      return (await runSettles(client, run.threadId, ['completed'])).path;
    };
    const plain = await replay(false);
    const remixed = await replay(true);

    mkdirSync(FIXTURE_DIR, { recursive: true });
    const write = (name: string, items: readonly Item[]) =>
      writeFileSync(
        join(FIXTURE_DIR, name),
        `${JSON.stringify({ origin: shop.origin, items: withoutImages(items) }, null, 1)}\n`,
      );
    write('shop-qty2-model-turn.json', recorded.path);
    write('shop-qty2-replay.json', plain);
    write('shop-qty2-replay-redesigned.json', remixed);
    console.log(
      `wrote ${FIXTURE_DIR}: model turn ${recorded.path.length} items, replays ${plain.length} and ${remixed.length}`,
    );
  } finally {
    await ext.close();
    await model.close();
    await shop.close();
  }
}

await main();
