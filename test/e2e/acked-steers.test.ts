import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EngineClient,
  isTitleRequest,
  launchExtension,
  runSettles,
  startModelServer,
} from './harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from './harness';

/**
 * Issue 12, against the built extension through PROTOCOL.md with a scripted model server: an
 * acknowledged steer is never lost when the turn ends early — a provider error, the tool-failure
 * breaker's final reply, a budget pause followed by a new message (spec/001 §3).
 */

const mainRequests = (s: ModelServer) => s.requests.filter((r) => !isTitleRequest(r));
const bodyText = (r: RecordedRequest) => JSON.stringify(r.body);
const SLOW = 'I am looking into this carefully and it will take a little while to finish';

describe('acked steers survive an early end (built extension)', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let client: EngineClient;
  let script: (n: number, r: RecordedRequest) => ScriptedReply = () => ({ text: 'ok' });
  let before = 0;

  beforeAll(async () => {
    server = await startModelServer({
      respond: (r) =>
        isTitleRequest(r) ? { text: 'A title' } : script(mainRequests(server).length - before, r),
    });
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const provider = server.provider('openai', 'scripted');
    await client.sendOk({
      type: 'settings.update',
      patch: {
        providers: [provider],
        defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
      },
    });
  });

  afterAll(async () => {
    await ext?.close();
    await server?.close();
  });

  /** Start a turn; steer it once the reply numbered `during` (1-based, this test's) streams. */
  async function turnWithSteer(text: string, steer: string, during: number) {
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId, turnId } = await client.sendOk<{ runId: string; turnId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text },
    });
    for (let n = 0; mainRequests(server).length - before < during; n++) {
      if (n > 400) throw new Error('the model call to steer never came');
      await new Promise((r) => setTimeout(r, 25));
    }
    // (Deltas are 120 ms apart: this mark precedes the first delta of the call to steer.)
    const from = client.mark();
    await client.waitForEvent(
      'item.delta',
      (e) => e.threadId === threadId && e.delta.text !== undefined,
      15_000,
      from,
    );
    await client.sendOk({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: steer },
    });
    return { threadId, runId };
  }

  const steered = (path: { kind: string; steered?: boolean; text?: string }[]) =>
    path.filter((i) => i.kind === 'user_message' && i.steered).map((i) => i.text);

  it('a provider error ends the turn: the acked steer is in the history', async () => {
    before = mainRequests(server).length;
    // Every attempt breaks mid-stream; the steer arrives during the last one, so no later cutoff
    // can pick it up: only the failure's own commit can keep it.
    script = () => ({
      text: SLOW,
      delayMs: 120,
      midStreamError: { afterDeltas: 6, message: 'upstream exploded' },
    });
    const { threadId, runId } = await turnWithSteer(
      'summarize the page',
      'also mention the price',
      3,
    );
    const snap = await runSettles(client, threadId, ['failed']);
    expect(snap.run).toMatchObject({ runId, state: 'failed', stopReason: 'error' });
    expect(steered(snap.path as never)).toEqual(['also mention the price']);
    expect(mainRequests(server).slice(before)).toHaveLength(3);
  });

  it("a steer during the breaker's final reply gets one more (tool-less) reply", async () => {
    before = mainRequests(server).length;
    // Five calls with invalid arguments: five tool failures in a row disable tools.
    script = (n) =>
      n <= 5
        ? { toolCalls: [{ name: 'browser_navigate', args: {} }] }
        : n === 6
          ? { text: SLOW, delayMs: 120 }
          : { text: 'Answering your steer.' };
    const { threadId, runId } = await turnWithSteer(
      'open the shop',
      'just tell me what went wrong',
      6,
    );
    const snap = await runSettles(client, threadId, ['completed', 'failed']);
    expect(snap.run).toMatchObject({ runId, state: 'completed', stopReason: 'tool_failures' });
    expect(steered(snap.path as never)).toEqual(['just tell me what went wrong']);
    const mine = mainRequests(server).slice(before);
    expect(mine).toHaveLength(7);
    expect(bodyText(mine[6])).toContain('just tell me what went wrong');
  });

  it('a budget-paused turn followed by a new message keeps the acked steer', async () => {
    before = mainRequests(server).length;
    await client.sendOk({ type: 'settings.update', patch: { tokenBudget: 50 } });
    try {
      script = (n) =>
        n === 1
          ? {
              text: SLOW,
              delayMs: 120,
              toolCalls: [
                { name: 'todo', args: { todos: [{ text: 'look', status: 'in_progress' }] } },
              ],
              usage: { inputTokens: 100, outputTokens: 20 },
            }
          : { text: 'Here is the new answer.' };
      const { threadId, runId } = await turnWithSteer('plan my trip', 'prefer trains', 1);
      const paused = await runSettles(client, threadId, ['budget_paused']);
      expect(paused.run).toMatchObject({ runId, stopReason: 'budget_pause' });
      const next = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: 'actually, just the hotels' },
      });
      const snap = await runSettles(client, threadId, ['completed', 'failed']);
      expect(snap.run).toMatchObject({ runId: next.runId, state: 'completed' });
      expect(steered(snap.path as never)).toEqual(['prefer trains']);
      const mine = mainRequests(server).slice(before);
      expect(mine).toHaveLength(2);
      expect(bodyText(mine[1])).toContain('prefer trains');
    } finally {
      await client.sendOk({ type: 'settings.update', patch: { tokenBudget: null } });
    }
  });
});
