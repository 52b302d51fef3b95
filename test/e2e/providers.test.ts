import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, launchExtension, startModelServer } from './harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from './harness';
import type { ProviderKind } from '../../src/protocol';

/**
 * Issue 4 in real Chromium: the extension's service worker runs a full tool turn against each
 * provider kind (official SDKs) through a scripted endpoint on 127.0.0.1 — with a 429 that the
 * provider retries (honouring retry-after) and a mid-stream error the run recovers from.
 */
const API: Record<ProviderKind, RecordedRequest['api']> = {
  openai: 'openai-chat',
  anthropic: 'anthropic',
  'openai-responses': 'openai-responses',
};
const MODEL: Record<ProviderKind, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  'openai-responses': 'gpt-4o',
};
const isTitle = (r: RecordedRequest) => JSON.stringify(r.body).includes('You write titles');

describe('providers through the built extension', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let client: EngineClient;

  /** The n-th (1-based) non-title request of one API gets the n-th step of the plan. */
  const plan: ScriptedReply[] = [
    { httpStatus: 429, retryAfter: 1, errorMessage: 'Rate limit reached, slow down' },
    {
      text: 'Let me note the plan. ',
      toolCalls: [
        { name: 'todo', args: { todos: [{ text: 'Compare cables', status: 'in_progress' }] } },
      ],
      usage: { inputTokens: 100, outputTokens: 20 },
    },
    {
      text: 'Almost there, the connection will drop',
      midStreamError: { afterDeltas: 2, message: 'upstream connection reset' },
    },
    { text: 'All done: the plan is recorded.', usage: { inputTokens: 150, outputTokens: 12 } },
  ];

  beforeAll(async () => {
    server = await startModelServer({
      respond: (r) => {
        if (isTitle(r)) return { text: 'Cable plan' };
        const n = server.requests.filter((x) => x.api === r.api && !isTitle(x)).length;
        return plan[n - 1] ?? { text: 'extra' };
      },
    });
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  });

  afterAll(async () => {
    await ext?.close();
    await server?.close();
  });

  for (const kind of ['openai', 'anthropic', 'openai-responses'] as const) {
    it(`${kind}: tool turn with a retried 429 and a recovered mid-stream error`, async () => {
      const provider = server.provider(kind, `p-${kind}`);
      await client.sendOk({
        type: 'settings.update',
        patch: {
          providers: [provider],
          defaultModel: { providerId: provider.id, model: MODEL[kind] },
        },
      });
      const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
      const { runId } = await client.sendOk<{ runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: 'plan my cable purchase' },
      });
      const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 40_000);
      expect(done.stopReason).toBe('end');

      const mine = server.requests.filter((r) => r.api === API[kind] && !isTitle(r));
      expect(mine).toHaveLength(4);
      // The key reached the endpoint the way the real API wants it.
      expect(mine[0].auth).toBe(kind === 'anthropic' ? 'x-api-key' : 'bearer');
      expect(
        client
          .eventsOf('todo.updated')
          .filter((e) => e.threadId === threadId)
          .at(-1)?.todos,
      ).toEqual([{ id: 't1', text: 'Compare cables', status: 'in_progress' }]);
      // The recovered attempt was discarded, and a notice says what happened.
      expect(client.eventsOf('item.discarded').some((e) => e.threadId === threadId)).toBe(true);
      const from = client.mark();
      await client.sendOk({ type: 'thread.subscribe', threadId });
      const snap = (
        await client.waitForEvent(
          'thread.snapshot',
          (e) => e.snapshot.thread.threadId === threadId,
          5_000,
          from,
        )
      ).snapshot;
      expect(snap.path.map((i) => i.kind)).toEqual([
        'user_message',
        'assistant_message',
        'notice',
        'assistant_message',
      ]);
      expect(snap.path[3]).toMatchObject({
        text: 'All done: the plan is recorded.',
        providerStopReason: 'end',
      });
      const usage = client
        .eventsOf('token.usage')
        .filter((e) => e.runId === runId)
        .at(-1)!;
      expect(usage.turnUsage.outputTokens).toBe(32);
      // The tool result went back to the model in the API's own shape.
      const last = JSON.stringify(mine[3].body);
      expect(last).toContain('Plan updated (1 open)');
      expect(JSON.stringify(client.events)).not.toContain(provider.apiKey);
    });
  }
});
