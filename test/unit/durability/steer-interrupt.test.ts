import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import type { RecordedRequest } from '../../../src/providers/scripted';
import { ScriptedProvider } from '../../../src/providers/scripted';
import { makeRig, testTool } from '../engine/harness';

const call = (name: string, args: unknown = {}) => ({ name, args });
const userTexts = (req: RecordedRequest) =>
  req.messages
    .filter((m) => m.role === 'user')
    .flatMap((m) =>
      m.role === 'user' ? m.content.map((c) => (c.type === 'text' ? c.text : '')) : [],
    );

describe('steer (spec/001 §3)', () => {
  it('is materialized at the next model call, after the tool result, never between call and result', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = testTool('probe');
    t.execute = (
      (orig) =>
      async (...a: Parameters<typeof orig>) => {
        await gate;
        return orig(...a);
      }
    )(t.execute.bind(t));
    const rig = await makeRig({
      script: [{ toolCalls: [call('probe')] }, { text: 'done' }],
      tools: [t],
    });
    const { threadId, turnId, runId } = await rig.submit('go');
    await rig.client.waitFor(
      (e) =>
        e.type === 'item.complete' && e.item.kind === 'tool_call' && e.item.state === 'executing',
    );
    await rig.client.ack({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'steer A' },
    });
    await rig.client.ack({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'steer B' },
    });
    // Acked means durable: it is in the run's pending set before anything else happens.
    const run = (await rig.store.runs.get(runId))!;
    expect(run.pendingSteers.map((s) => [s.seq, s.input.text])).toEqual([
      [1, 'steer A'],
      [2, 'steer B'],
    ]);
    release();
    await rig.client.turnComplete(runId);
    const msgs = rig.provider.requests[1].messages;
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(userTexts(rig.provider.requests[1]).slice(1)).toEqual([
      '[The user added while you were working] steer A',
      '[The user added while you were working] steer B',
    ]);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    expect(path.map((n) => n.item.kind)).toEqual([
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'user_message',
      'user_message',
      'assistant_message',
    ]);
    expect(path.filter((n) => n.item.kind === 'user_message' && n.item.steered)).toHaveLength(2);
  });

  it('steers sent back to back are admitted in the order they were sent', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = testTool('probe');
    const orig = t.execute.bind(t);
    t.execute = async (...a) => {
      await gate;
      return orig(...a);
    };
    // The first steer's handling is slowed down at its op boundary: without per-thread ordering
    // the second would overtake it.
    let steers = 0;
    const faults = {
      at: (name: string) =>
        name === 'op:turn.steer' && ++steers === 1
          ? new Promise<void>((r) => setTimeout(r, 50))
          : undefined,
    };
    const rig = await makeRig({
      script: [{ toolCalls: [call('probe')] }, { text: 'done' }],
      tools: [t],
      faults,
    });
    const { threadId, turnId, runId } = await rig.submit('go');
    await rig.client.waitFor(
      (e) =>
        e.type === 'item.complete' && e.item.kind === 'tool_call' && e.item.state === 'executing',
    );
    const texts = ['first', 'second', 'third', 'fourth'];
    const acks = await Promise.all(
      texts.map((text) =>
        rig.client.send({ type: 'turn.steer', threadId, expectedTurnId: turnId, input: { text } }),
      ),
    );
    expect(acks.every((a) => a.type === 'command.ack')).toBe(true);
    release();
    await rig.client.turnComplete(runId);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    const steered = path
      .filter((n) => n.item.kind === 'user_message' && n.item.steered)
      .map((n) => (n.item as { text: string }).text.split(' ')[0]);
    expect(steered).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('a steer that arrives while the final answer streams keeps the turn going', async () => {
    let rig!: Awaited<ReturnType<typeof makeRig>>;
    let ids!: { threadId: string; turnId: string };
    const provider = new ScriptedProvider([
      async () => {
        await rig.client.ack({
          type: 'turn.steer',
          threadId: ids.threadId,
          expectedTurnId: ids.turnId,
          input: { text: 'wait, also this' },
        });
        return { text: 'Here is the answer.' };
      },
      { text: 'Covered that too.' },
    ]);
    rig = await makeRig({ provider });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    const p = rig.client.send({ type: 'turn.submit', threadId, input: { text: 'q' } });
    const startEv = (await rig.client.waitFor((e) => e.type === 'turn.start')) as Extract<
      AgentEvent,
      { type: 'turn.start' }
    >;
    ids = { threadId, turnId: startEv.turnId };
    await p;
    const done = await rig.client.turnComplete(startEv.runId);
    expect(done.stopReason).toBe('end');
    expect(provider.requests).toHaveLength(2);
    expect(userTexts(provider.requests[1]).at(-1)).toContain('wait, also this');
    expect(rig.client.of('turn.complete')).toHaveLength(1);
  });

  it('one cutoff per request: a steer after the cutoff waits for the next request', async () => {
    let rig!: Awaited<ReturnType<typeof makeRig>>;
    const ids: { threadId?: string; turnId?: string } = {};
    const t = testTool('probe');
    const provider = new ScriptedProvider([
      async () => {
        await rig.client.ack({
          type: 'turn.steer',
          threadId: ids.threadId!,
          expectedTurnId: ids.turnId!,
          input: { text: 'late steer' },
        });
        return { toolCalls: [call('probe')] };
      },
      { text: 'final' },
    ]);
    rig = await makeRig({ provider, tools: [t] });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    ids.threadId = threadId;
    const started = rig.client.waitFor((e) => e.type === 'turn.start');
    void rig.client.send({ type: 'turn.submit', threadId, input: { text: 'q' } });
    const s = (await started) as Extract<AgentEvent, { type: 'turn.start' }>;
    ids.turnId = s.turnId;
    await rig.client.turnComplete(s.runId);
    expect(userTexts(provider.requests[0])).toEqual(['q']);
    expect(userTexts(provider.requests[1]).at(-1)).toContain('late steer');
  });
});

describe('interrupt (spec/001 §3)', () => {
  it('aborts the model stream, keeps the partial answer as an interrupted message, and resumes with run.resume', async () => {
    const provider = new ScriptedProvider(
      [{ text: 'a long answer that streams slowly' }, { text: 'resumed answer' }],
      { tokenDelayMs: 30 },
    );
    const rig = await makeRig({ provider });
    const { threadId, runId } = await rig.submit('q');
    const delta = (await rig.client.waitFor((e) => e.type === 'item.delta')) as Extract<
      AgentEvent,
      { type: 'item.delta' }
    >;
    expect(await rig.client.ack({ type: 'turn.interrupt', threadId })).toEqual({ wasActive: true });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('interrupted');
    // Issue 19: what streamed is kept (same item id as the streaming card), not discarded.
    expect(rig.client.of('item.discarded').filter((e) => e.itemId === delta.itemId)).toHaveLength(
      0,
    );
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    expect(path.map((n) => n.item.kind)).toEqual(['user_message', 'assistant_message', 'notice']);
    const partial = path[1].item;
    expect(partial).toMatchObject({ id: delta.itemId, providerStopReason: 'interrupted' });
    expect(
      partial.kind === 'assistant_message' &&
        partial.text.length > 0 &&
        'a long answer that streams slowly'.startsWith(partial.text.trimEnd()),
    ).toBe(true);
    const n = rig.client.events.length;
    await rig.client.ack({ type: 'run.resume', runId });
    await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && rig.client.events.indexOf(e) >= n,
    );
    expect((await rig.store.runs.get(runId))!.state).toBe('completed');
    // The resumed request sees the partial answer, then the interruption (never ends on an assistant message).
    const roles = provider.requests[1].messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it('an interrupt before the first token keeps nothing of the stream', async () => {
    const provider = new ScriptedProvider([{ text: 'never seen' }, { text: 'resumed' }], {
      tokenDelayMs: 200,
    });
    const rig = await makeRig({ provider });
    const { threadId, runId } = await rig.submit('q');
    await rig.client.waitFor((e) => e.type === 'item.start' && e.item.kind === 'assistant_message');
    await rig.client.ack({ type: 'turn.interrupt', threadId });
    await rig.client.turnComplete(runId);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    expect(path.map((n) => n.item.kind)).toEqual(['user_message', 'notice']);
    expect(rig.client.of('item.discarded').length).toBeGreaterThan(0);
  });

  it('aborts a running tool: the call gets an "interrupted" result with partial progress; acked steers land at a safe leaf', async () => {
    const t = testTool('slow', { delayMs: 5_000 });
    const orig = t.execute.bind(t);
    t.execute = async (id, p, signal, onUpdate, ctx) => {
      onUpdate({ progressText: 'scrolled 3 pages' });
      return orig(id, p, signal, onUpdate, ctx);
    };
    const rig = await makeRig({
      script: [{ toolCalls: [call('slow'), call('slow')] }, { text: 'after resume' }],
      tools: [t],
    });
    const { threadId, runId, turnId } = await rig.submit('q');
    await rig.client.waitFor((e) => e.type === 'item.delta' && e.delta.toolProgress !== undefined);
    await rig.client.ack({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'do it differently' },
    });
    expect(await rig.client.ack({ type: 'turn.interrupt', threadId })).toEqual({ wasActive: true });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('interrupted');
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    expect(path.map((n) => n.item.kind)).toEqual([
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'user_message',
      'notice',
    ]);
    const results = path
      .filter((n) => n.item.kind === 'tool_result')
      .map((n) => JSON.stringify(n.item));
    expect(results[0]).toContain('scrolled 3 pages');
    expect(results[1]).toContain('Not executed');
    expect((path[6].item as { steered?: boolean }).steered).toBe(true);
    await rig.client.ack({ type: 'run.resume', runId });
    await rig.client.waitFor(() => rig.provider.requests.length === 2);
    const last = rig.provider.requests[1].messages;
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
  });

  it('interrupts a run parked on an approval: the approval is withdrawn', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({ script: [{ toolCalls: [call('click')] }], tools: [w] });
    const { threadId, runId } = await rig.submit('q');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    expect(await rig.client.ack({ type: 'turn.interrupt', threadId })).toEqual({ wasActive: true });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('interrupted');
    expect(
      await rig.client.send({
        type: 'approval.response',
        approvalId: req.approvalId,
        decision: 'allow_once',
      }),
    ).toMatchObject({ code: 'already_resolved' });
    expect(w.runs).toBe(0);
    const card = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .filter((i) => i.kind === 'tool_call')
      .at(-1)!;
    expect(card).toMatchObject({ state: 'invalid' });
  });

  it('a new message after an interrupt supersedes the interrupted run', async () => {
    const provider = new ScriptedProvider(
      [{ text: 'slow slow slow slow' }, { text: 'new answer' }],
      { tokenDelayMs: 20 },
    );
    const rig = await makeRig({ provider });
    const { threadId, runId } = await rig.submit('q');
    await rig.client.waitFor((e) => e.type === 'item.delta');
    await rig.client.ack({ type: 'turn.interrupt', threadId });
    await rig.client.turnComplete(runId);
    const r2 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'something else' },
    });
    await rig.client.turnComplete(r2.runId);
    expect((await rig.store.runs.get(runId))!.state).toBe('completed');
    expect(await rig.client.send({ type: 'run.resume', runId })).toMatchObject({
      code: 'not_resumable',
    });
  });
});
