import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig, testTool } from './harness';

type Reject = Extract<AgentEvent, { type: 'command.reject' }>;
const call = (name: string, args: unknown = {}) => ({ name, args });

describe('ops: ack and reject paths (PROTOCOL.md)', () => {
  it('initialize sends `initialized` first, then the ack', async () => {
    const rig = await makeRig();
    const n = rig.client.events.length;
    await rig.client.ack({ type: 'initialize' });
    const types = rig.client.events.slice(n).map((e) => e.type);
    expect(types).toEqual(['initialized', 'command.ack']);
    const init = rig.client.events[n] as Extract<AgentEvent, { type: 'initialized' }>;
    expect(init.settings.providers).toEqual([{ id: 'p1', kind: 'openai', hasApiKey: false }]);
  });

  it('a connection receives nothing before it initializes, and nothing older than its snapshot after', async () => {
    const { DirectTransport } = await import('../../../src/protocol');
    const { TestClient } = await import('./harness');
    const rig = await makeRig({ script: [{ text: 'hello' }] });
    const silent = new TestClient(new DirectTransport(rig.engine), 'ui-silent');
    const { runId } = await rig.submit('q');
    await rig.client.turnComplete(runId);
    expect(silent.events).toEqual([]);
    await silent.ack({ type: 'initialize' });
    expect(silent.events[0].type).toBe('initialized');
    const init = silent.events[0] as Extract<AgentEvent, { type: 'initialized' }>;
    expect(init.snapshots[0].path.map((i) => i.kind)).toEqual([
      'user_message',
      'assistant_message',
    ]);
  });

  it('thread.create / delete / subscribe with not_found paths', async () => {
    const rig = await makeRig({ script: [{ text: 'x' }] });
    const { threadId } = await rig.client.ack<{ threadId: string }>({
      type: 'thread.create',
      title: 'Groceries',
    });
    expect(rig.client.of('thread.updated').at(-1)!.thread).toMatchObject({
      threadId,
      title: 'Groceries',
    });
    expect(await rig.client.send({ type: 'thread.subscribe', threadId: 'missing' })).toMatchObject({
      code: 'not_found',
    });
    await rig.client.ack({ type: 'thread.subscribe', threadId });
    expect(rig.client.of('thread.snapshot').at(-1)!.snapshot.thread.title).toBe('Groceries');
    await rig.client.ack({ type: 'thread.delete', threadId });
    expect(rig.client.of('thread.deleted').at(-1)).toMatchObject({ threadId });
    expect(await rig.client.send({ type: 'thread.delete', threadId })).toMatchObject({
      code: 'not_found',
    });
    expect(await rig.store.threads.get(threadId)).toBeUndefined();
  });

  it('thread.delete is busy while a turn runs', async () => {
    const slow = testTool('slow', { delayMs: 300 });
    const rig = await makeRig({
      script: [{ toolCalls: [call('slow')] }, { text: 'x' }],
      tools: [slow],
    });
    const { threadId, runId } = await rig.submit('go');
    await rig.client.waitFor((e) => e.type === 'item.complete' && e.item.kind === 'tool_call');
    expect(await rig.client.send({ type: 'thread.delete', threadId })).toMatchObject({
      code: 'busy',
    });
    await rig.client.turnComplete(runId);
    await rig.client.ack({ type: 'thread.delete', threadId });
  });

  it('turn.submit: not_found, no_provider, busy, empty input, images without vision', async () => {
    const slow = testTool('slow', { delayMs: 200 });
    const rig = await makeRig({
      script: [{ toolCalls: [call('slow')] }, { text: 'x' }],
      tools: [slow],
    });
    expect(
      await rig.client.send({ type: 'turn.submit', threadId: 'nope', input: { text: 'a' } }),
    ).toMatchObject({ code: 'not_found' });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    expect(
      await rig.client.send({ type: 'turn.submit', threadId, input: { text: '  ' } }),
    ).toMatchObject({ code: 'invalid_command' });
    const img = { mimeType: 'image/png', dataBase64: 'iVBORw0KGgo=' };
    expect(
      await rig.client.send({
        type: 'turn.submit',
        threadId,
        input: { text: 'see', images: [img] },
      }),
    ).toMatchObject({
      code: 'invalid_command',
      message: expect.stringContaining('cannot see images'),
    });
    expect(
      await rig.client.send({
        type: 'turn.submit',
        threadId,
        input: { text: 'a' },
        overrides: { providerId: 'ghost', model: 'm' },
      }),
    ).toMatchObject({ code: 'no_provider' });
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'go' },
    });
    expect(
      await rig.client.send({ type: 'turn.submit', threadId, input: { text: 'again' } }),
    ).toMatchObject({ code: 'busy' });
    await rig.client.turnComplete(runId);
  });

  it('turn.submit without any configured model is no_provider', async () => {
    const rig = await makeRig({ settings: { defaultModel: null, providers: [] } });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    const r = (await rig.client.send({
      type: 'turn.submit',
      threadId,
      input: { text: 'a' },
    })) as Reject;
    expect(r.code).toBe('no_provider');
    expect(r.message).toContain('settings');
  });

  it('turn.steer: no_active_turn, turn_mismatch, and ack with a steerId', async () => {
    const slow = testTool('slow', { delayMs: 200 });
    const rig = await makeRig({
      script: [{ toolCalls: [call('slow')] }, { text: 'x' }],
      tools: [slow],
    });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    expect(
      await rig.client.send({
        type: 'turn.steer',
        threadId,
        expectedTurnId: 't',
        input: { text: 'a' },
      }),
    ).toMatchObject({ code: 'no_active_turn' });
    const { turnId, runId } = await rig.client.ack<{ turnId: string; runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'go' },
    });
    expect(
      await rig.client.send({
        type: 'turn.steer',
        threadId,
        expectedTurnId: 'other',
        input: { text: 'a' },
      }),
    ).toMatchObject({ code: 'turn_mismatch' });
    const r = await rig.client.ack<{ steerId: string }>({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'also check prices' },
    });
    expect(r.steerId).toBeTruthy();
    await rig.client.turnComplete(runId);
    const steered = rig.provider.requests[1].messages.at(-1)!;
    expect(JSON.stringify(steered)).toContain('also check prices');
  });

  it('turn.steer on a paused turn is not_steerable', async () => {
    const rig = await makeRig({
      script: [
        {
          text: 'a',
          usage: { inputTokens: 500, outputTokens: 500 },
          toolCalls: [call('todo', { todos: [] })],
        },
      ],
      settings: { tokenBudget: 10 },
    });
    const { threadId, runId, turnId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect((await rig.store.runs.get(runId))!.state).toBe('budget_paused');
    expect(
      await rig.client.send({
        type: 'turn.steer',
        threadId,
        expectedTurnId: turnId,
        input: { text: 'a' },
      }),
    ).toMatchObject({ code: 'not_steerable' });
  });

  it('turn.enqueue up to 8, queue.update, queue.remove, then queue_full and not_found', async () => {
    // The first turn's tool stays open until the queue checks are done, so no queued item can
    // start (and shrink the queue) however slowly this machine runs the enqueues.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = testTool('slow', { gate });
    const rig = await makeRig({
      script: [
        { toolCalls: [call('slow')] },
        ...Array.from({ length: 12 }, (_, i) => ({ text: `answer ${i}` })),
      ],
      tools: [slow],
    });
    const { threadId, runId } = await rig.submit('first');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push(
        (
          await rig.client.ack<{ queueItemId: string }>({
            type: 'turn.enqueue',
            threadId,
            input: { text: `q${i}` },
          })
        ).queueItemId,
      );
    expect(
      await rig.client.send({ type: 'turn.enqueue', threadId, input: { text: 'q9' } }),
    ).toMatchObject({ code: 'queue_full' });
    await rig.client.ack({
      type: 'queue.update',
      threadId,
      queueItemId: ids[0],
      input: { text: 'q0 edited' },
    });
    await rig.client.ack({ type: 'queue.remove', threadId, queueItemId: ids[1] });
    expect(
      await rig.client.send({ type: 'queue.remove', threadId, queueItemId: ids[1] }),
    ).toMatchObject({ code: 'not_found' });
    expect(
      await rig.client.send({
        type: 'queue.update',
        threadId,
        queueItemId: 'nope',
        input: { text: 'x' },
      }),
    ).toMatchObject({ code: 'not_found' });
    const q = rig.client.of('queue.updated').at(-1)!;
    expect(q.items.map((i) => i.input.text)).toEqual([
      'q0 edited',
      'q2',
      'q3',
      'q4',
      'q5',
      'q6',
      'q7',
    ]);
    release();
    await rig.client.turnComplete(runId);
    // The queue drains in order, one turn after another.
    await rig.client.waitFor((e) => e.type === 'queue.updated' && e.items.length === 0, 10_000);
    await rig.client.waitFor(() => rig.client.of('turn.complete').length === 8, 10_000);
    const users = (
      await rig.store.threads.path(threadId, (await rig.store.threads.get(threadId))!.leafId)
    )
      .filter((n) => n.item.kind === 'user_message')
      .map((n) => (n.item as { text: string }).text);
    expect(users).toEqual(['first', 'q0 edited', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7']);
  });

  it('turn.enqueue on an idle thread starts at once', async () => {
    const rig = await makeRig({ script: [{ text: 'hi' }] });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.ack({ type: 'turn.enqueue', threadId, input: { text: 'hello' } });
    const done = await rig.client.waitFor((e) => e.type === 'turn.complete');
    expect(done).toMatchObject({ stopReason: 'end' });
  });

  it('turn.interrupt is never rejected and says whether anything was active', async () => {
    const rig = await makeRig();
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    expect(await rig.client.ack({ type: 'turn.interrupt', threadId })).toEqual({
      wasActive: false,
    });
    expect(await rig.client.ack({ type: 'turn.interrupt', threadId: 'no-such-thread' })).toEqual({
      wasActive: false,
    });
  });

  it('run.resume and run.resolveUncertain reject what they cannot act on', async () => {
    const rig = await makeRig({ script: [{ text: 'x' }] });
    expect(await rig.client.send({ type: 'run.resume', runId: 'nope' })).toMatchObject({
      code: 'not_found',
    });
    expect(
      await rig.client.send({ type: 'run.resolveUncertain', runId: 'nope', resolution: 'retry' }),
    ).toMatchObject({ code: 'not_found' });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(await rig.client.send({ type: 'run.resume', runId })).toMatchObject({
      code: 'not_resumable',
    });
    expect(
      await rig.client.send({ type: 'run.resolveUncertain', runId, resolution: 'mark_done' }),
    ).toMatchObject({ code: 'not_uncertain' });
    expect(
      await rig.client.send({ type: 'interaction.response', interactionId: 'nope', response: {} }),
    ).toMatchObject({ code: 'not_found' });
  });

  it('settings.update merges by id, keeps an omitted key, never returns secrets, and validates references', async () => {
    const rig = await makeRig();
    const r1 = await rig.client.ack<{
      settings: { providers: { id: string; hasApiKey: boolean }[] };
    }>({
      type: 'settings.update',
      patch: {
        providers: [{ id: 'a', kind: 'anthropic', apiKey: 'sk-ant-SECRET-1' }],
        defaultModel: { providerId: 'a', model: 'claude-sonnet-4-5' },
      },
    });
    expect(r1.settings.providers.find((p) => p.id === 'a')).toEqual({
      id: 'a',
      kind: 'anthropic',
      hasApiKey: true,
    });
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'a', kind: 'anthropic', label: 'Work' }] },
    });
    expect(await rig.store.credentials.getSecret('provider:a')).toBe('sk-ant-SECRET-1');
    expect(JSON.stringify(rig.client.events)).not.toContain('SECRET');
    expect(JSON.stringify(await rig.store.settings.get())).not.toContain('SECRET');
    const bad = await rig.client.send({
      type: 'settings.update',
      patch: { defaultModel: { providerId: 'ghost', model: 'm' } },
    });
    expect(bad).toMatchObject({ code: 'invalid_command' });
    await rig.client.ack({
      type: 'settings.update',
      patch: {
        providers: [{ id: 'a', remove: true }],
        approvalMode: 'act',
        tokenBudget: 5000,
        locale: 'zh-CN',
      },
    });
    const s = rig.client.of('settings.updated').at(-1)!.settings;
    expect(s.providers.map((p) => p.id)).toEqual(['p1']);
    expect(s).toMatchObject({
      approvalMode: 'act',
      tokenBudget: 5000,
      locale: 'zh-CN',
      defaultModel: null,
    });
    expect(await rig.store.credentials.getSecret('provider:a')).toBeNull();
  });

  it('siteRules.set normalizes origins and rejects non-origins', async () => {
    const rig = await makeRig();
    await rig.client.ack({ type: 'siteRules.set', origin: 'Example.COM/path', rule: 'allow' });
    expect((await rig.store.siteRules.get('https://example.com'))?.rule).toBe('allow');
    expect(
      await rig.client.send({
        type: 'siteRules.set',
        origin: 'javascript:alert(1)',
        rule: 'allow',
      }),
    ).toMatchObject({ code: 'invalid_command' });
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://example.com', rule: 'ask' });
    await rig.client.waitFor(
      (e) => e.type === 'settings.updated' && e.settings.siteRules.length === 0,
    );
  });
});

describe('receipts (spec/001 §5.1)', () => {
  it('a repeated submission with the same payload replays the first outcome', async () => {
    const rig = await makeRig();
    const a = await rig.client.send({ type: 'thread.create', title: 'x' }, 'same');
    const b = await rig.client.send({ type: 'thread.create', title: 'x' }, 'same');
    expect(b).toEqual(a);
    expect(await rig.store.threads.list()).toHaveLength(1);
  });

  it('a repeated submission with a different payload is rejected and changes nothing', async () => {
    const rig = await makeRig();
    await rig.client.send({ type: 'thread.create', title: 'x' }, 'same');
    const b = await rig.client.send({ type: 'thread.create', title: 'y' }, 'same');
    expect(b).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    expect((await rig.store.threads.list()).map((t) => t.title)).toEqual(['x']);
  });

  it('replays a reject too, and concurrent duplicates execute once', async () => {
    const rig = await makeRig();
    const r1 = await rig.client.send({ type: 'thread.delete', threadId: 'nope' }, 'd1');
    const r2 = await rig.client.send({ type: 'thread.delete', threadId: 'nope' }, 'd1');
    expect(r2).toEqual(r1);
    const [x, y] = await Promise.all([
      rig.client.send({ type: 'thread.create' }, 'c1'),
      rig.client.send({ type: 'thread.create' }, 'c1'),
    ]);
    expect(x).toEqual(y);
    expect(await rig.store.threads.list()).toHaveLength(1);
  });

  it('receipts store a fingerprint, never the input text', async () => {
    const rig = await makeRig({ script: [{ text: 'x' }] });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.send(
      { type: 'turn.submit', threadId, input: { text: 'my private message' } },
      'priv',
    );
    const receipts = await rig.store.db.receipts.toArray();
    expect(JSON.stringify(receipts)).not.toContain('my private message');
    expect(receipts.find((r) => r.key.endsWith('priv'))!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('malformed ops', () => {
  it.each([
    ['unknown type', { type: 'thread.explode', clientId: 'c', submissionId: 'x1' }],
    ['wrong field type', { type: 'thread.create', clientId: 'c', submissionId: 'x2', title: 42 }],
    ['missing field', { type: 'turn.submit', clientId: 'c', submissionId: 'x3', threadId: 't' }],
    [
      'bad decision',
      {
        type: 'approval.response',
        clientId: 'c',
        submissionId: 'x4',
        approvalId: 'a',
        decision: 'maybe',
      },
    ],
    ['not an object', 'hello'],
    ['null', null],
    ['array', [1, 2]],
    ['no envelope', { type: 'thread.create' }],
  ])('%s → invalid_command, and the engine keeps serving', async (_name, raw) => {
    const rig = await makeRig();
    rig.client.transport.send(raw as Record<string, unknown>);
    const rej = (await rig.client.waitFor((e) => e.type === 'command.reject')) as Reject;
    expect(rej.code).toBe('invalid_command');
    await rig.client.ack({ type: 'thread.create' });
  });

  it('an oversized op is rejected without being parsed', async () => {
    const rig = await makeRig({ options: { maxOpBytes: 10_000 } });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    const r = (await rig.client.send({
      type: 'turn.submit',
      threadId,
      input: { text: 'x'.repeat(20_000) },
    })) as Reject;
    expect(r.code).toBe('invalid_command');
    expect(r.message).toContain('too large');
    await rig.client.ack({ type: 'thread.create' });
  });

  it('text over the protocol limit is rejected', async () => {
    const rig = await makeRig();
    const r = (await rig.client.send({ type: 'thread.create', title: 'x'.repeat(1000) })) as Reject;
    expect(r.code).toBe('invalid_command');
  });
});
