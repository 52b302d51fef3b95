/**
 * Task recordings (issue 30): what a frame after each page action costs. The demo task (`npm run
 * demo`'s shop and scripted shopper) runs through the built extension in Chromium, alternately
 * with recording off (the shop marked private: the recorder still sees every step and stops at
 * its private-site check) and on. Per run, each acting step's time as the engine's audit trail
 * records it (call to result, `thread.export` steps); the figure is the median step with
 * recording over the median step without, in the same run (target ≤ 1.05: issue 30's "no more
 * than 5 %"). Storage: the bytes the recorded threads' frames take, per 100 frames.
 */
import type { EngineClient } from '../../test/e2e/harness';
import type { AgentEvent } from '../../src/protocol';
import { demoModelSettings, startDemoModel } from '../demo/model';
import { TARGET_PRODUCT_ID } from '../demo/shop/catalog';
import { startShop } from '../demo/shop/server';
import { launch, lightClient } from './chromium';
import { fmtMs, fmtRatio, median, round, sleep, type BenchResult } from './stats';

const TASK = 'Find the cheapest USB-C cable under $10 and add two to the cart.';
type Mode = 'off' | 'on';

interface Step {
  tool?: string;
  kind: string;
  durationMs?: number;
}

export async function benchRecording(opts: { trials?: number } = {}): Promise<BenchResult> {
  const trials = opts.trials ?? 6;
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
    const steps: Record<Mode, number[]> = { off: [], on: [] };
    const turns: Record<Mode, number[]> = { off: [], on: [] };
    let frames = 0;
    let bytes = 0;
    let expectedFrames = 0;
    // One untimed run first (warms the worker, the page and the caches), then alternate.
    const order: Mode[] = ['off'];
    for (let i = 0; i < trials; i++) order.push(i % 2 ? 'off' : 'on', i % 2 ? 'on' : 'off');
    for (const [i, mode] of order.entries()) {
      await client.sendOk({
        type: 'settings.update',
        patch: { privateSites: mode === 'off' ? [shop.origin] : [] },
      });
      shop.resetCart();
      await tab.goto(`${shop.origin}/`);
      await tab.bringToFront();
      const run = await oneRun(client, shop.origin);
      const cart = shop.cart().items.map((x) => [x.productId, x.quantity]);
      if (JSON.stringify(cart) !== JSON.stringify([[TARGET_PRODUCT_ID, 2]]))
        throw new Error(`recording bench: the cart holds ${JSON.stringify(cart)}`);
      if (i === 0) continue;
      steps[mode].push(...run.acting);
      turns[mode].push(run.ms);
      const rec = await settledRecording(
        client,
        run.threadId,
        mode === 'on' ? run.acting.length : 0,
      );
      if (mode === 'on') {
        expectedFrames += run.acting.length;
        frames += rec.frames;
        bytes += rec.threadBytes;
      } else if (rec.frames) throw new Error('recording bench: a private site was recorded');
    }
    const on = median(steps.on);
    const off = median(steps.off);
    const ratio = on / off;
    const per100 = frames ? (bytes / frames) * 100 : NaN;
    const data = {
      trials,
      stepsMs: { off: steps.off.map((x) => round(x)), on: steps.on.map((x) => round(x)) },
      turnsMs: { off: turns.off.map((x) => round(x)), on: turns.on.map((x) => round(x)) },
      medianStepMs: { off: round(off), on: round(on) },
      stepRatio: round(ratio, 3),
      frames,
      expectedFrames,
      frameBytes: bytes,
      bytesPer100Steps: round(per100, 0),
    };
    return {
      name: 'recording',
      file: 'recording.json',
      data,
      rows: [
        {
          metric: 'recording: median acting step',
          value: fmtMs(on),
          baseline: `${fmtMs(off)} (not recorded)`,
          ratio: fmtRatio(ratio),
          target: '≤ 1.05×',
          ok: ratio <= 1.05,
        },
        {
          metric: 'recording: storage per 100 steps',
          value: Number.isFinite(per100) ? `${(per100 / 2 ** 20).toFixed(2)} MiB` : 'n/a',
          baseline: `${frames} of ${expectedFrames} frames kept`,
          ratio: '',
          target: '20 MiB per thread',
          ...(frames < expectedFrames * 0.9
            ? { incomplete: `only ${frames} of ${expectedFrames} frames were recorded` }
            : {}),
        },
      ],
    };
  } finally {
    await ext.close().catch(() => undefined);
    await model.close().catch(() => undefined);
    await shop.close().catch(() => undefined);
  }
}

/** One model run of the task: wall time, and each acting step's duration from the audit trail. */
async function oneRun(client: EngineClient, origin: string) {
  const { threadId } = await client.sendOk<{ threadId: string }>({
    type: 'thread.create',
    title: 'recording bench',
  });
  const mark = client.mark();
  const t0 = performance.now();
  const { runId } = await client.sendOk<{ runId: string }>({
    type: 'turn.submit',
    threadId,
    input: { text: `${TASK}\n\n(The shop is open in the current tab: ${origin}/)` },
  });
  const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 60_000, mark);
  const ms = performance.now() - t0;
  if ((done as Extract<AgentEvent, { type: 'turn.complete' }>).stopReason !== 'end')
    throw new Error(`recording bench: stopped ${JSON.stringify(done)}`);
  const exported = await client.sendOk<{ steps: Step[] }>({ type: 'thread.export', threadId });
  const acting = exported.steps
    .filter((s) => s.kind === 'tool_call' && s.tool && ACTING.has(s.tool))
    .map((s) => s.durationMs ?? NaN);
  return { threadId, ms, acting };
}

/** The browser tools that act on the page (the ones a frame follows). */
const ACTING = new Set([
  'browser_click',
  'browser_type',
  'browser_select',
  'browser_press_key',
  'browser_navigate',
  'browser_scroll',
  'browser_hover',
]);

/** The thread's recording once its frames stop arriving (they are made after the results). */
async function settledRecording(client: EngineClient, threadId: string, expected: number) {
  let last = { frames: 0, threadBytes: 0 };
  for (let waited = 0; waited < 5000; waited += 250) {
    const r = await client.sendOk<{ frames: unknown[]; threadBytes: number }>({
      type: 'thread.recording',
      threadId,
    });
    last = { frames: r.frames.length, threadBytes: r.threadBytes };
    if (last.frames >= expected) break;
    await sleep(250);
  }
  return last;
}
