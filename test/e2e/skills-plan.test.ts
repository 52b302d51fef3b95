import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, launchExtension, startModelServer } from './harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from './harness';

/** Issue 7 in real Chromium: skills (import, enable per thread, get_skill) and the planning round. */
const isTitle = (r: RecordedRequest) => JSON.stringify(r.body).includes('You write titles');
const SKILL = `---
name: gift-wrap
description: How to choose gift wrapping options at checkout.
---
Always pick the recycled paper option and add a handwritten note field.`;

describe('skills and plan-first through the extension', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let client: EngineClient;
  let script: (n: number, r: RecordedRequest) => ScriptedReply = () => ({ text: 'ok' });
  const main = () => server.requests.filter((r) => !isTitle(r));

  beforeAll(async () => {
    server = await startModelServer({
      respond: (r) => (isTitle(r) ? { text: 'Title' } : script(main().length, r)),
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

  it('a skill imported and enabled for a thread: described in the prompt, loaded on demand, listed in settings', async () => {
    const bad = await client.send({ type: 'skills.import', content: 'not a skill file' });
    expect(bad).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    await client.sendOk({ type: 'skills.import', content: SKILL });
    const settings = await client.waitForEvent(
      'settings.updated',
      (e) => (e.settings.skills ?? []).some((s) => s.name === 'gift-wrap'),
      5_000,
    );
    expect(settings.settings.skills).toEqual([
      expect.objectContaining({
        name: 'gift-wrap',
        description: 'How to choose gift wrapping options at checkout.',
      }),
    ]);
    const before = main().length;
    script = (n) =>
      n - before === 1
        ? { toolCalls: [{ name: 'get_skill', args: { name: 'gift-wrap' } }] }
        : { text: 'Recycled paper it is.' };
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    await client.sendOk({
      type: 'thread.setOptions',
      threadId,
      options: { enabledSkills: ['gift-wrap'] },
    });
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'wrap it as a gift' },
    });
    const done = await client.waitForEvent('turn.complete', (e) => e.runId === runId, 20_000);
    expect(done.stopReason).toBe('end');
    const [first, second] = main().slice(before);
    expect(JSON.stringify(first.body)).toContain(
      'gift-wrap: How to choose gift wrapping options at checkout.',
    );
    expect(
      (first.body.tools as { function: { name: string } }[]).map((t) => t.function.name),
    ).toContain('get_skill');
    expect(JSON.stringify(second.body)).toContain('Always pick the recycled paper option');
  });

  it('plan first: a round without tools, the intent tag hidden from the user and from later context', async () => {
    const before = main().length;
    script = (n) =>
      n - before === 1
        ? { text: 'I will list the open tabs first. <need_tool>' }
        : n - before === 2
          ? { toolCalls: [{ name: 'browser_tabs', args: {} }] }
          : { text: 'You have a few tabs open.' };
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    await client.sendOk({ type: 'thread.setOptions', threadId, options: { planFirst: true } });
    const from = client.mark();
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'what tabs do I have?' },
    });
    await client.waitForEvent('turn.complete', (e) => e.runId === runId, 20_000, from);
    const [plan, loop] = main().slice(before);
    expect(plan.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(plan.body)).toContain('<need_tool>');
    expect((loop.body.tools as unknown[]).length).toBeGreaterThan(5);
    expect(JSON.stringify(loop.body)).not.toContain('I will list the open tabs first. <need_tool>');
    const shown = client
      .eventsOf('item.delta', from)
      .filter((e) => e.threadId === threadId)
      .map((e) => e.delta.text ?? '')
      .join('');
    expect(shown).toContain('I will list the open tabs first.');
    expect(shown).not.toContain('<need_tool>');
  });
});
