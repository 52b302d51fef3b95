/**
 * Workflows (issue 18): the demo task ("find the cheapest USB-C cable under $10 and add two to the
 * cart", `npm run demo`'s shop and scripted shopper model) done three ways in the same run,
 * through the built extension in Chromium:
 *
 *   model     the scripted model drives the task (the baseline);
 *   replay    the saved workflow replayed on the unchanged shop;
 *   redesign  the same workflow replayed on the shop with its markup changed
 *             (`ShopServer.configure({ remix: true })`: other ids and classes, the products in
 *             reverse order, so the snapshot gives the elements other refs).
 *
 * The task is recorded once (untimed), saved as a workflow, then the three ways alternate for
 * `trials` rounds. Per run: model requests (at the model server), input tokens (the turn's usage
 * as the engine recorded it from the provider), and the time from the op's send to its
 * `turn.complete` (client wall clock). Every run must leave two of the right cable in the shop's
 * cart (read from the shop's server) or the benchmark fails. Time is reported as each way's median
 * over the model run's median of the same run, and raw.
 */
import type { Page } from 'playwright-core';
import type { EngineClient, TestOp } from '../../test/e2e/harness';
import type { AgentEvent } from '../../src/protocol';
import { demoModelSettings, startDemoModel } from '../demo/model';
import type { ChatServer } from '../demo/openai-server';
import { TARGET_PRODUCT_ID } from '../demo/shop/catalog';
import { startShop, type ShopServer } from '../demo/shop/server';
import { launch, lightClient } from './chromium';
import { fmtMs, fmtRatio, median, round, type BenchResult, type SummaryRow } from './stats';

const TASK = 'Find the cheapest USB-C cable under $10 and add two to the cart.';
type Way = 'model' | 'replay' | 'redesign';
const WAYS: readonly Way[] = ['model', 'replay', 'redesign'];
const LABEL: Record<Way, string> = {
  model: 'scripted model',
  replay: 'replay, unchanged shop',
  redesign: 'replay, markup changed',
};

interface Sample {
  ms: number;
  modelRequests: number;
  titleRequests: number;
  inputTokens: number;
  /** The refs the run's acting calls used, in order. */
  refs: string[];
  replayed?: number;
  steps?: number;
}

type TurnComplete = Extract<AgentEvent, { type: 'turn.complete' }>;

export async function benchWorkflow(opts: { trials?: number } = {}): Promise<BenchResult> {
  const trials = opts.trials ?? 5;
  const shop = await startShop();
  const model = await startDemoModel();
  const ext = await launch();
  try {
    const { client } = await lightClient(ext);
    await client.sendOk({
      type: 'settings.update',
      patch: demoModelSettings(model),
    });
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
    const tab = await ext.context.newPage();
    const one = (way: Way, workflowId: string) =>
      measure(way, { client, model, shop, tab, workflowId });

    // Record the task once (untimed: warms the worker, the page and the caches), then save it.
    const recorded = await modelRun(client, model, shop, tab);
    const { workflowId } = await client.sendOk<{ workflowId: string }>({
      type: 'workflow.save',
      threadId: recorded.threadId,
      turnId: recorded.turnId,
      name: TASK,
    });
    const samples: Record<Way, Sample[]> = { model: [], replay: [], redesign: [] };
    for (let i = 0; i < trials; i++)
      for (const way of WAYS) samples[way].push(await one(way, workflowId));

    const med = (way: Way, k: 'ms' | 'modelRequests' | 'inputTokens') =>
      median(samples[way].map((s) => s[k]));
    const base = med('model', 'ms');
    const data: Record<string, unknown> = {
      task: TASK,
      trials,
      steps: samples.replay[0]?.steps,
      // Refs are handed out afresh by every snapshot: no replayed call can reuse a recorded one.
      recordedRefs: recorded.sample.refs,
      ways: Object.fromEntries(
        WAYS.map((way) => [
          way,
          {
            label: LABEL[way],
            medianMs: round(med(way, 'ms'), 1),
            timeRatioToModel: round(med(way, 'ms') / base, 3),
            medianModelRequests: med(way, 'modelRequests'),
            medianInputTokens: med(way, 'inputTokens'),
            minMs: round(Math.min(...samples[way].map((x) => x.ms)), 1),
            maxMs: round(Math.max(...samples[way].map((x) => x.ms)), 1),
            samples: samples[way].map((s) => ({ ...s, ms: round(s.ms, 1) })),
          },
        ]),
      ),
    };
    const rows: SummaryRow[] = WAYS.map((way) => {
      const ms = med(way, 'ms');
      return {
        metric: `workflow, demo task: ${LABEL[way]} (${trials} runs, median)`,
        value: `${med(way, 'modelRequests')} requests, ${med(way, 'inputTokens')} input tokens, ${fmtMs(ms)}`,
        baseline: `scripted model ${fmtMs(base)}`,
        ratio: fmtRatio(ms / base),
        target: way === 'model' ? '—' : '0 requests',
        ...(way === 'model' ? {} : { ok: samples[way].every((s) => s.modelRequests === 0) }),
      };
    });
    return { name: 'workflow', file: 'workflow.json', data, rows };
  } finally {
    await ext.close();
    await model.close();
    await shop.close();
  }
}

interface Deps {
  client: EngineClient;
  model: ChatServer;
  shop: ShopServer;
  tab: Page;
  workflowId: string;
}

async function measure(way: Way, d: Deps): Promise<Sample> {
  if (way === 'model') return (await modelRun(d.client, d.model, d.shop, d.tab)).sample;
  d.shop.configure(way === 'redesign' ? { remix: true } : {});
  try {
    await freshShop(d.shop, d.tab);
    if (way === 'redesign' && !(await d.tab.content()).includes('class="rx-products"'))
      throw new Error('the shop did not serve the changed markup');
    const s = await timed(d.client, d.model, d.shop, {
      type: 'workflow.run',
      workflowId: d.workflowId,
    });
    if (!s.done.workflow || s.done.workflow.replayed !== s.done.workflow.steps)
      throw new Error(`${way}: the replay did not replay every step: ${JSON.stringify(s.done)}`);
    return { ...s.sample, replayed: s.done.workflow.replayed, steps: s.done.workflow.steps };
  } finally {
    d.shop.configure({});
  }
}

async function freshShop(shop: ShopServer, tab: Page): Promise<void> {
  shop.resetCart();
  await tab.goto(`${shop.origin}/`);
  await tab.bringToFront();
}

async function modelRun(client: EngineClient, model: ChatServer, shop: ShopServer, tab: Page) {
  await freshShop(shop, tab);
  // A titled thread: no title request, so every request counted is a step of the task.
  const { threadId } = await client.sendOk<{ threadId: string }>({
    type: 'thread.create',
    title: 'workflow bench',
  });
  const s = await timed(client, model, shop, {
    type: 'turn.submit',
    threadId,
    input: { text: `${TASK}\n\n(The shop is open in the current tab: ${shop.origin}/)` },
  });
  return { ...s, threadId };
}

/** One run from the op's send to its turn.complete; the cart must hold two of the right cable. */
async function timed(
  client: EngineClient,
  model: ChatServer,
  shop: ShopServer,
  op: TestOp,
): Promise<{ sample: Sample; done: TurnComplete; turnId: string }> {
  const before = model.requests.length;
  const mark = client.mark();
  const t0 = performance.now();
  const { runId, turnId } = await client.sendOk<{ runId: string; turnId: string }>(op);
  const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 60_000, mark);
  const ms = performance.now() - t0;
  if (done.stopReason !== 'end') throw new Error(`${op.type}: stopped ${JSON.stringify(done)}`);
  const cart = shop.cart().items.map((i) => [i.productId, i.quantity]);
  if (JSON.stringify(cart) !== JSON.stringify([[TARGET_PRODUCT_ID, 2]]))
    throw new Error(`${op.type}: the cart holds ${JSON.stringify(cart)}`);
  const reqs = model.requests.slice(before);
  const events = client.events.slice(mark) as AgentEvent[];
  const usage = events.filter(
    (e): e is Extract<AgentEvent, { type: 'token.usage' }> =>
      e.type === 'token.usage' && e.runId === runId,
  );
  // A call's item completes once per state change: keep each call's ref once, in call order.
  const refOf = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'item.complete' || e.threadId !== done.threadId) continue;
    if (e.item.kind !== 'tool_call' || e.item.name === 'browser_snapshot') continue;
    const ref = (e.item.params as { ref?: unknown } | undefined)?.ref;
    if (typeof ref === 'string' && !refOf.has(e.item.toolCallId)) refOf.set(e.item.toolCallId, ref);
  }
  const refs = [...refOf.values()];
  return {
    done,
    turnId,
    sample: {
      ms,
      modelRequests: reqs.filter((r) => !r.isTitle).length,
      titleRequests: reqs.filter((r) => r.isTitle).length,
      inputTokens: usage.reduce((n, e) => n + e.usage.inputTokens, 0),
      refs,
    },
  };
}
