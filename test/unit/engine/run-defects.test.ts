import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../src/protocol';
import { ScriptedProvider } from '../../../src/providers/scripted';
import { makeRig, testTool } from './harness';

/** Regression tests for the defects of issue 12 (each failed before its fix). */

const call = (name: string, args: unknown = {}) => ({ name, args });
const IMAGE = { mimeType: 'image/png' as const, dataBase64: 'iVBORw0KGgo=' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(5);
  }
}
function gatedTool(name: string) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const t = testTool(name);
  const orig = t.execute.bind(t);
  t.execute = async (...a) => {
    await gate;
    return orig(...a);
  };
  return { tool: t, release: () => release() };
}

describe('queued images on a model without vision', () => {
  it('turn.enqueue and queue.update refuse images like turn.submit', async () => {
    const { tool, release } = gatedTool('probe');
    const rig = await makeRig({
      model: { vision: false },
      script: [{ toolCalls: [call('probe')] }, { text: 'done' }, { text: 'queued done' }],
      tools: [tool],
    });
    const { threadId, runId } = await rig.submit('busy');
    const r = await rig.client.send({
      type: 'turn.enqueue',
      threadId,
      input: { text: 'look', images: [IMAGE] },
    });
    expect(r).toMatchObject({
      type: 'command.reject',
      code: 'invalid_command',
      message: expect.stringContaining('cannot see images'),
    });
    expect(await rig.store.runs.queued(threadId)).toHaveLength(0);
    const q = await rig.client.ack<{ queueItemId: string }>({
      type: 'turn.enqueue',
      threadId,
      input: { text: 'later' },
    });
    const u = await rig.client.send({
      type: 'queue.update',
      threadId,
      queueItemId: q.queueItemId,
      input: { text: 'later, look', images: [IMAGE] },
    });
    expect(u).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    expect((await rig.store.runs.get(q.queueItemId))!.input).toEqual({ text: 'later' });
    release();
    await rig.client.turnComplete(runId);
    await rig.client.turnComplete(q.queueItemId);
  });

  it('a queued start refuses images when the model changed meanwhile, with its real reason', async () => {
    const { tool, release } = gatedTool('probe');
    const rig = await makeRig({
      script: [{ toolCalls: [call('probe')] }, { text: 'first done' }, { text: 'never' }],
      tools: [tool],
      models: { 'vision-model': { vision: true } },
      settings: { defaultModel: { providerId: 'p1', model: 'vision-model' } },
    });
    const { threadId, runId } = await rig.submit('first');
    const q = await rig.client.ack<{ queueItemId: string }>({
      type: 'turn.enqueue',
      threadId,
      input: { text: 'what is this?', images: [IMAGE] },
    });
    await rig.client.ack({
      type: 'settings.update',
      patch: { defaultModel: { providerId: 'p1', model: 'test-model' } },
    });
    release();
    await rig.client.turnComplete(runId);
    const failed = await rig.client.turnComplete(q.queueItemId);
    expect(failed).toMatchObject({
      stopReason: 'error',
      error: { code: 'no_vision', message: expect.stringContaining('cannot see images') },
    });
    expect(rig.provider.requests).toHaveLength(2);
  });

  it('a queued run that fails to start reports its real reason (not always no_provider)', async () => {
    const { tool, release } = gatedTool('probe');
    const rig = await makeRig({
      script: [{ toolCalls: [call('probe')] }, { text: 'done' }],
      tools: [tool],
    });
    const { threadId, runId } = await rig.submit('first');
    const q = await rig.client.ack<{ queueItemId: string }>({
      type: 'turn.enqueue',
      threadId,
      input: { text: 'next' },
    });
    // A tool whose definition exceeds the snapshot bounds appears before the queued run starts.
    rig.registry.register({
      ...testTool('huge'),
      name: 'huge',
      description: 'x'.repeat(70 * 1024),
    });
    release();
    await rig.client.turnComplete(runId);
    const failed = await rig.client.turnComplete(q.queueItemId);
    expect(failed.error).toMatchObject({ code: 'too_large' });
  });
});

describe('internal tools never reach the UI', () => {
  it('no item.delta{toolArgs} (nor a card) for a todo call', async () => {
    const rig = await makeRig({
      script: [
        { toolCalls: [call('todo', { todos: [{ text: 'step one', status: 'pending' }] })] },
        { text: 'ok' },
      ],
    });
    const { runId } = await rig.submit('plan it');
    await rig.client.turnComplete(runId);
    expect(rig.client.of('todo.updated')).toHaveLength(1);
    expect(rig.client.of('item.delta').filter((e) => e.delta.toolArgs !== undefined)).toEqual([]);
    expect(
      rig.client.events.filter(
        (e) =>
          (e.type === 'item.start' || e.type === 'item.complete') &&
          'item' in e &&
          (e.item.kind === 'tool_call' || e.item.kind === 'tool_result'),
      ),
    ).toEqual([]);
  });

  it('results written by "close the remaining calls" keep the internal visibility (breaker mid-batch)', async () => {
    const flaky = testTool('flaky', { fail: true });
    const script = [
      ...Array.from({ length: 4 }, () => ({ toolCalls: [call('flaky')] })),
      { toolCalls: [call('flaky'), call('todo', { todos: [] })] },
      { text: 'sorry' },
    ];
    const rig = await makeRig({ script, tools: [flaky] });
    const { runId, threadId } = await rig.submit('go');
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('tool_failures');
    const todoResult = (await rig.store.threads.allNodes(threadId)).find(
      (n) => n.item.kind === 'tool_result' && n.item.name === 'todo',
    )!;
    expect(todoResult.item).toMatchObject({ outcome: 'invalid', visibility: 'internal' });
    expect(
      rig.client.of('item.complete').filter((e) => 'name' in e.item && e.item.name === 'todo'),
    ).toEqual([]);
  });

  it('calls closed with their message (under max_tokens) keep the internal visibility', async () => {
    const rig = await makeRig({
      script: [{ toolCalls: [call('todo', { todos: [] })], stop: 'max_tokens' }],
    });
    const { runId, threadId } = await rig.submit('go');
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('max_tokens');
    const result = (await rig.store.threads.allNodes(threadId)).find(
      (n) => n.item.kind === 'tool_result',
    )!;
    expect(result.item).toMatchObject({ visibility: 'internal' });
    expect(
      rig.client.of('item.complete').filter((e) => 'name' in e.item && e.item.name === 'todo'),
    ).toEqual([]);
  });
});

describe('drift and exclusivity after a restart (spec/001 §5)', () => {
  const changedWriter = () => ({
    ...testTool('writer', { effects: 'write' }),
    description: 'It changed',
    parameters: z.object({ value: z.string().optional(), more: z.number().optional() }),
  });

  it('a recovered waiting_approval run is verified: drift fails it and withdraws the request', async () => {
    const w = testTool('writer', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('writer')] }, { text: 'done' }],
      tools: [w],
    });
    const { runId, threadId, turnId } = await rig.submit('write it');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    await rig.client.ack({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'use the other account' },
    });
    const b = await rig.reopen({ tools: [changedWriter()] });
    expect((await b.store.runs.get(runId))!).toMatchObject({
      state: 'failed',
      error: { code: 'environment_drift' },
      pendingSteers: [],
    });
    // The parked call gets its one result, then the acked steer lands at that safe leaf.
    const path = await b.store.threads.path(
      threadId,
      (await b.store.threads.get(threadId))!.leafId,
    );
    const kinds = path.map((n) =>
      n.item.kind === 'user_message' && n.item.steered ? 'steer' : n.item.kind,
    );
    expect(kinds).toEqual([
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'steer',
      'notice',
    ]);
    expect((await b.store.approvals.get(req.approvalId))!.status).toBe('cancelled');
    expect(b.client.of('approval.request')).toEqual([]);
    const late = await b.client.send({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    expect(late).toMatchObject({ type: 'command.reject', code: 'already_resolved' });
    expect(path.at(-1)!.item).toMatchObject({ code: 'environment_drift' });
  });

  it('a recovered waiting_interaction run is verified too', async () => {
    const w = testTool('writer', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('ask_user', { question: 'Which one?' })] }, { text: 'done' }],
      tools: [w],
    });
    const { runId } = await rig.submit('ask me');
    await rig.client.waitFor((e) => e.type === 'interaction.request');
    const b = await rig.reopen({ tools: [changedWriter()] });
    expect((await b.store.runs.get(runId))!).toMatchObject({
      state: 'failed',
      error: { code: 'environment_drift' },
    });
    expect(b.client.of('interaction.request')).toEqual([]);
  });

  it('run.resume verifies the snapshot: a changed tool refuses the resume', async () => {
    const w = testTool('writer', { effects: 'write' });
    const provider = new ScriptedProvider(
      [{ text: 'a long answer that streams slowly' }, { text: 'never' }],
      { tokenDelayMs: 30 },
    );
    const rig = await makeRig({ provider, tools: [w] });
    const { runId, threadId } = await rig.submit('q');
    await rig.client.waitFor((e) => e.type === 'item.delta');
    await rig.client.ack({ type: 'turn.interrupt', threadId });
    await rig.client.turnComplete(runId);
    const b = await rig.reopen({ tools: [changedWriter()] });
    const r = await b.client.send({ type: 'run.resume', runId });
    expect(r).toMatchObject({
      type: 'command.reject',
      code: 'not_resumable',
      message: expect.stringContaining('tool writer changed'),
    });
    expect(provider.requests).toHaveLength(1);
  });

  it('a fork is refused after a recovered approval was claimed, until its continuation is done', async () => {
    const w = testTool('writer', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('writer')] }, { text: 'done' }],
      tools: [w],
    });
    const { threadId } = await rig.submit('write it');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    // The continuation parks before the tool starts (the worker is slow to get there).
    const b = await rig.reopen({
      faults: {
        at: (name) =>
          name === 'tx:tool_start:before' ? new Promise<void>(() => undefined) : undefined,
      },
    });
    await b.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    const first = (await b.store.threads.allNodes(threadId)).sort((x, y) => x.seq - y.seq)[0];
    const fork = await b.client.send({ type: 'thread.fork', threadId, nodeId: first.id });
    expect(fork).toMatchObject({ type: 'command.reject', code: 'busy' });
  });
});

describe('approval by declaration', () => {
  it('a builtin write tool that does not declare skipApproval asks', async () => {
    const b = testTool('builtin_writer', { level: 'builtin', effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('builtin_writer')] }, { text: 'done' }],
      tools: [b],
    });
    await rig.submit('go');
    await rig.client.waitFor((e) => e.type === 'approval.request');
    expect(b.runs).toBe(0);
  });
});

describe('receipts stay bounded', () => {
  it('beyond maxReceipts the oldest go; a fresh repeat still replays', async () => {
    const rig = await makeRig({ options: { maxReceipts: 5 } });
    // (2 ms apart: receipts are ordered by creation time.)
    for (let i = 0; i < 20; i++) {
      await rig.client.ack({ type: 'thread.create' });
      await sleep(2);
    }
    await until(async () => (await rig.store.receipts.count()) <= 5);
    // The newest receipt is kept: repeating that submission replays it (no second thread).
    const threads = (await rig.store.threads.list()).length;
    const again = await rig.client.send({ type: 'thread.create' }, 's21');
    expect(again.type).toBe('command.ack');
    expect((await rig.store.threads.list()).length).toBe(threads);
  });

  it('receipts older than the retention go when the engine starts', async () => {
    const rig = await makeRig();
    await rig.store.receipts.put({
      key: 'old',
      type: 'thread.create',
      fingerprint: 'f',
      outcome: { kind: 'ack' },
      now: Date.now() - 8 * 24 * 3600_000,
    });
    await rig.store.receipts.put({
      key: 'new',
      type: 'thread.create',
      fingerprint: 'f',
      outcome: { kind: 'ack' },
      now: Date.now(),
    });
    const b = await rig.reopen();
    await until(async () => !(await b.store.receipts.get('old')));
    expect(await b.store.receipts.get('new')).toBeDefined();
  });
});

describe('run.resume of a stale run', () => {
  it('is refused when a queued run created earlier ran after it (the leaf is not its checkpoint)', async () => {
    const slow = testTool('slow', { delayMs: 5_000 });
    const rig = await makeRig({
      script: [
        { toolCalls: [call('slow')] },
        { error: { code: 'bad_request', message: 'nope', retryable: false } },
        { text: 'queued one done' },
      ],
      tools: [slow],
    });
    const { threadId, runId: x } = await rig.submit('first');
    await rig.client.waitFor(
      (e) =>
        e.type === 'item.complete' && e.item.kind === 'tool_call' && e.item.state === 'executing',
    );
    const q = await rig.client.ack<{ queueItemId: string }>({
      type: 'turn.enqueue',
      threadId,
      input: { text: 'queued' },
    });
    await rig.client.ack({ type: 'turn.interrupt', threadId });
    await rig.client.turnComplete(x);
    const a = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'second' },
    });
    expect((await rig.client.turnComplete(a.runId)).stopReason).toBe('error');
    expect((await rig.client.turnComplete(q.queueItemId)).stopReason).toBe('end');
    const r = await rig.client.send({ type: 'run.resume', runId: a.runId });
    expect(r).toMatchObject({ type: 'command.reject', code: 'not_resumable' });
  });
});
