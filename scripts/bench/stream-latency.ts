/**
 * Stream latency: a provider text delta → the side panel's DOM showing it. The model server
 * streams words k<turn>w<i> at a steady pace and notes when each left its socket; panel-hook.js
 * notes, in the real panel page, when each word reached the panel's Port and when it first
 * appeared in the document. Both clocks are wall clocks (performance.timeOrigin + now) on this
 * machine; the page's offset from Node's is measured by round trip and subtracted.
 * Baseline, same run: the same deltas' arrival on the panel's Port (the transport, before any
 * rendering). Ratio = DOM p50 / Port p50.
 */
import type { Page } from 'playwright-core';
import { startChatServer, type ChatServer } from '../demo/openai-server';
import { clockOffset, launch, lightClient, openHookedPanel, useServer } from './chromium';
import { fmtMs, fmtRatio, median, percentile, round, type BenchResult } from './stats';

const TARGET_P50 = 16;

export async function benchStreamLatency(
  opts: { turns?: number; deltas?: number; intervalMs?: number } = {},
): Promise<BenchResult> {
  const turns = opts.turns ?? 4;
  const deltas = opts.deltas ?? 60;
  const intervalMs = opts.intervalMs ?? 25;
  const sent = new Map<string, number>();
  let turn = 0;
  const server: ChatServer = await startChatServer({
    respond(req) {
      if (req.isTitle) return { text: 'Stream latency' };
      const k = ++turn;
      const chunks = Array.from(
        { length: deltas },
        (_, i) => `k${k}w${String(i).padStart(3, '0')} `,
      );
      return {
        chunks,
        deltaDelayMs: intervalMs,
        onDeltaSent: (i, at) => sent.set(chunks[i].trim(), at),
      };
    },
  });
  const ext = await launch();
  try {
    const { client } = await lightClient(ext);
    await useServer(client, server);
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const panel: Page = await openHookedPanel(ext, threadId);
    const offsets: { offsetMs: number; uncertaintyMs: number }[] = [];
    const portMs: number[] = [];
    const domMs: number[] = [];
    const frameMs: number[] = [];
    const renderMs: number[] = [];
    let missing = 0;
    for (let t = 0; t < turns + 1; t++) {
      await panel.bringToFront();
      const mark = client.mark();
      const { runId } = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: `stream ${t}` },
      });
      await client.waitForEvent('turn.complete', (e) => e.runId === runId, 60_000, mark);
      await panel.waitForTimeout(100);
      const got = (await panel.evaluate(() => (globalThis as any).__keelBench.take())) as Record<
        'port' | 'dom' | 'frame',
        Record<string, number>
      >;
      const off = await clockOffset(panel);
      offsets.push(off);
      if (t === 0) continue; // warm-up turn
      for (const [tok, s] of sent) {
        if (!tok.startsWith(`k${t + 1}w`)) continue;
        const p = got.port[tok];
        const d = got.dom[tok];
        const f = got.frame[tok];
        if (p === undefined || d === undefined) {
          missing++;
          continue;
        }
        portMs.push(p - off.offsetMs - s);
        domMs.push(d - off.offsetMs - s);
        if (f !== undefined) frameMs.push(f - off.offsetMs - s);
        renderMs.push(d - p);
      }
    }
    const stat = (xs: number[]) => ({
      p50: round(median(xs), 2),
      p90: round(percentile(xs, 90), 2),
      p99: round(percentile(xs, 99), 2),
      max: round(Math.max(...xs), 2),
    });
    const dom = stat(domMs);
    const port = stat(portMs);
    const ratio = dom.p50 / port.p50;
    const data = {
      turns,
      deltasPerTurn: deltas,
      deltaIntervalMs: intervalMs,
      samples: domMs.length,
      missing,
      clockOffsetMs: offsets.map((o) => round(o.offsetMs, 2)),
      clockUncertaintyMs: round(Math.max(...offsets.map((o) => o.uncertaintyMs)), 2),
      deltaToDomMs: dom,
      deltaToNextFrameMs: stat(frameMs),
      deltaToPanelPortMs: port,
      portToDomMs: stat(renderMs),
      ratioDomToPortP50: round(ratio, 2),
      target: `p50 ≤ ${TARGET_P50} ms`,
    };
    return {
      name: 'stream latency',
      file: 'stream-latency.json',
      data,
      rows: [
        {
          metric: `stream latency, provider delta → panel DOM (${domMs.length} deltas)`,
          value: `p50 ${fmtMs(dom.p50)}, p99 ${fmtMs(dom.p99)}`,
          baseline: `delta → panel Port p50 ${fmtMs(port.p50)}, p99 ${fmtMs(port.p99)}`,
          ratio: fmtRatio(ratio),
          target: `p50 ≤ ${TARGET_P50} ms`,
          ok: dom.p50 <= TARGET_P50,
        },
      ],
    };
  } finally {
    await ext.close();
    await server.close();
  }
}
