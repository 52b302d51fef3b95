import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DIST, EngineClient, launchExtension, startModelServer } from './harness';
import type { LaunchedExtension, ModelServer, ReceivedEvent, ScriptedReply } from './harness';

// The whole path once, through PROTOCOL.md only: panel page → engine Port → service worker →
// OpenAI-compatible provider → the scripted model server, and back as events.

const SCRIPTED_TEXT = 'Hello from the scripted model. How can I help?';
// Spread over time, so an engine that batches deltas still streams more than one.
const REPLY: ScriptedReply = {
  text: SCRIPTED_TEXT,
  usage: { inputTokens: 12, outputTokens: 9 },
  delayMs: 30,
};

describe('smoke: one turn against a scripted OpenAI-compatible endpoint', () => {
  let ext: LaunchedExtension | undefined;
  let server: ModelServer | undefined;
  let client: EngineClient;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_DIST, 'manifest.json'))) {
      throw new Error(
        `${DEFAULT_DIST} has no build: run \`npm run build\` first (\`npm test\` does).`,
      );
    }
    // Every request gets the same reply, so a title request racing the turn cannot take its step.
    server = await startModelServer({ respond: () => REPLY });
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
  });

  afterAll(async () => {
    await ext?.close();
    await server?.close();
  });

  it('initializes, configures a provider, creates a thread and streams a reply', async () => {
    const s = server!;
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const initialized = client.events.findIndex((ev) => ev.type === 'initialized');
    expect(initialized).toBeGreaterThanOrEqual(0);
    expect(initialized).toBeLessThan(client.events.findIndex((ev) => ev.type === 'command.ack'));

    const provider = s.provider('openai', 'scripted');
    const { settings } = await client.sendOk<{
      settings: { providers: { id: string; hasApiKey: boolean }[] };
    }>({
      type: 'settings.update',
      patch: {
        providers: [provider],
        defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
      },
    });
    expect(settings.providers).toContainEqual(
      expect.objectContaining({ id: 'scripted', hasApiKey: true }),
    );

    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { turnId } = await client.sendOk<{ turnId: string; runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'hello' },
    });

    const complete = await client.waitForEvent(
      'turn.complete',
      (ev) => ev.threadId === threadId,
      30_000,
    );
    expect(complete).toMatchObject({ turnId, stopReason: 'end' });

    const ofThread = (ev: ReceivedEvent) => 'threadId' in ev && ev.threadId === threadId;
    const at = (type: string) => client.events.findIndex((ev) => ev.type === type && ofThread(ev));
    expect(at('turn.start')).toBeGreaterThanOrEqual(0);

    const deltas = client.eventsOf('item.delta').filter(ofThread);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta.text ?? '').join('')).toBe(SCRIPTED_TEXT);

    const assistant = client
      .eventsOf('item.complete')
      .filter(ofThread)
      .map((ev) => ev.item)
      .find((item) => item.kind === 'assistant_message');
    expect(assistant).toMatchObject({ kind: 'assistant_message', text: SCRIPTED_TEXT });

    const usage = client.eventsOf('token.usage').filter(ofThread);
    expect(usage.at(-1)?.usage).toMatchObject({ inputTokens: 12, outputTokens: 9 });

    const completeAt = client.events.indexOf(complete);
    expect(at('turn.start')).toBeLessThan(client.events.indexOf(deltas[0]));
    expect(at('item.complete')).toBeLessThan(completeAt);
    expect(at('token.usage')).toBeLessThan(completeAt);

    const turnRequest = s.requests.find((r) => r.stream && r.raw.includes('hello'));
    expect(turnRequest).toMatchObject({
      api: 'openai-chat',
      path: '/v1/chat/completions',
      auth: 'bearer',
      status: 200,
    });
    expect(s.failures).toEqual([]);
    expect(client.invalidEvents).toEqual([]);
    expect(JSON.stringify(client.events)).not.toContain(provider.apiKey);
  });
});
