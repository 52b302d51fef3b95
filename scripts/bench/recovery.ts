/**
 * Recovery: Chrome stops the service worker in the middle of a model stream; how long until the
 * resumed run's next model request reaches the provider? Per trial: a turn whose model reply
 * hangs after its first delta, CDP stops the worker (ServiceWorker.stopAllWorkers, as the e2e
 * harness does), the client's Port reconnects at once (which is what wakes a stopped worker:
 * the panel reconnecting, or an alarm), and the clock runs from "worker reported stopped" to the
 * redone request arriving at the model server. The recovered reply ends the turn.
 * Baseline, same run: the same stop → reconnect with no run to recover, timed to the fresh
 * worker's first answer (the `initialized` event after `initialize`): a bare worker restart.
 */
import { startChatServer, wallClock } from '../demo/openai-server';
import { launch, lightClient, useServer } from './chromium';
import { fmtMs, fmtRatio, median, percentile, round, type BenchResult } from './stats';

const TARGET_P50 = 300;

export async function benchRecovery(opts: { trials?: number } = {}): Promise<BenchResult> {
  const trials = opts.trials ?? 20;
  let hangNext = false;
  const server = await startChatServer({
    respond(req) {
      if (req.isTitle) return { text: 'Recovery' };
      if (hangNext) {
        hangNext = false;
        return { text: 'this answer is cut off by the worker stop', hangAfterDeltas: 1 };
      }
      return { text: 'Recovered.' };
    },
  });
  const ext = await launch();
  try {
    const { client } = await lightClient(ext);
    await useServer(client, server);
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    // First turn: title generation and warm caches happen here, untimed.
    {
      const mark = client.mark();
      const { runId } = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: 'warm up' },
      });
      await client.waitForEvent('turn.complete', (e) => e.runId === runId, 30_000, mark);
    }
    const recoveredMs: number[] = [];
    const fromStopCommandMs: number[] = [];
    const baselineMs: number[] = [];
    const restart = async () => {
      await client.waitForDisconnect(10_000);
      await client.reconnect();
    };
    for (let i = 0; i < trials; i++) {
      // Baseline: stop and wake with nothing to recover.
      {
        await ext.stopServiceWorker();
        const stopped = wallClock();
        await restart();
        const mark = client.mark();
        await client.sendOk({ type: 'initialize', subscribe: ['*'] }, 30_000);
        await client.waitForEvent('initialized', () => true, 30_000, mark);
        baselineMs.push(wallClock() - stopped);
      }
      // Recovery of a run stopped mid-stream.
      hangNext = true;
      const before = server.requests.filter((r) => !r.isTitle).length;
      const mark = client.mark();
      const { runId } = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: `trial ${i + 1}` },
      });
      await client.waitForEvent('item.delta', (e) => e.threadId === threadId, 30_000, mark);
      const stopCommand = wallClock();
      await ext.stopServiceWorker();
      const stopped = wallClock();
      await restart();
      const target = before + 2; // the hung request, then the redone one
      const redone = await waitForMainRequest(server, target, 30_000);
      recoveredMs.push(redone.receivedAt - stopped);
      fromStopCommandMs.push(redone.receivedAt - stopCommand);
      await client.sendOk({ type: 'initialize', subscribe: ['*'] }, 30_000);
      await waitRunEnded(client, threadId, runId);
    }
    const stat = (xs: number[]) => ({
      p50: round(median(xs), 1),
      p90: round(percentile(xs, 90), 1),
      min: round(Math.min(...xs), 1),
      max: round(Math.max(...xs), 1),
    });
    const rec = stat(recoveredMs);
    const base = stat(baselineMs);
    const ratio = rec.p50 / base.p50;
    return {
      name: 'recovery',
      file: 'recovery.json',
      data: {
        trials,
        stopToResumedRequestMs: rec,
        stopCommandToResumedRequestMs: stat(fromStopCommandMs),
        baselineStopToFreshWorkerAnswerMs: base,
        samplesMs: recoveredMs.map((x) => round(x, 1)),
        baselineSamplesMs: baselineMs.map((x) => round(x, 1)),
        ratioP50: round(ratio, 2),
        target: `p50 ≤ ${TARGET_P50} ms`,
      },
      rows: [
        {
          metric: `recovery, worker stopped → resumed run's next model request (${trials} trials)`,
          value: `p50 ${fmtMs(rec.p50)}, p90 ${fmtMs(rec.p90)}`,
          baseline: `bare worker restart → first answer p50 ${fmtMs(base.p50)}, p90 ${fmtMs(base.p90)}`,
          ratio: fmtRatio(ratio),
          target: `p50 ≤ ${TARGET_P50} ms`,
          ok: rec.p50 <= TARGET_P50,
        },
      ],
    };
  } finally {
    await ext.close();
    await server.close();
  }
}

async function waitForMainRequest(
  server: Awaited<ReturnType<typeof startChatServer>>,
  n: number,
  timeoutMs: number,
) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const main = server.requests.filter((r) => !r.isTitle);
    if (main.length >= n) return main[n - 1];
    if (Date.now() > end)
      throw new Error(
        `recovery: request ${n} did not arrive within ${timeoutMs} ms (got ${main.length})`,
      );
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The recovered turn ends on its own; wait for the run to settle before the next trial. */
async function waitRunEnded(
  client: Awaited<ReturnType<typeof lightClient>>['client'],
  threadId: string,
  runId: string,
): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const from = client.mark();
    await client.sendOk({ type: 'thread.subscribe', threadId });
    const ev = await client.waitForEvent(
      'thread.snapshot',
      (e) => e.snapshot.thread.threadId === threadId,
      10_000,
      from,
    );
    const run = ev.snapshot.run;
    if (!run || run.runId !== runId || ['completed', 'failed', 'interrupted'].includes(run.state))
      return;
    if (Date.now() > end) throw new Error(`recovery: run ${runId} still ${run.state}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
