import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig } from './harness';

type Interaction = Extract<AgentEvent, { type: 'interaction.request' }>;

describe('builtin tools', () => {
  it('todo is internal: todo.updated and no tool-call items, yet the model sees its result', async () => {
    const todos = [
      { text: 'Find the cable', status: 'in_progress' },
      { text: 'Add to cart', status: 'pending' },
    ];
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'todo', args: { todos } }] }, { text: 'Planned.' }],
    });
    const { runId, threadId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    const upd = rig.client.of('todo.updated');
    expect(upd).toHaveLength(1);
    expect(upd[0].todos).toEqual([
      { id: 't1', text: 'Find the cable', status: 'in_progress' },
      { id: 't2', text: 'Add to cart', status: 'pending' },
    ]);
    const itemKinds = [...rig.client.of('item.start'), ...rig.client.of('item.complete')].map(
      (e) => e.item.kind,
    );
    expect(itemKinds).not.toContain('tool_call');
    expect(itemKinds).not.toContain('tool_result');
    expect(rig.client.of('approval.request')).toHaveLength(0);
    const tool = rig.provider.requests[1].messages.find((m) => m.role === 'tool')!;
    expect(JSON.stringify(tool)).toContain('Plan updated (2 open)');
    await rig.client.ack({ type: 'thread.subscribe', threadId });
    const snap = rig.client.of('thread.snapshot').at(-1)!.snapshot;
    expect(snap.todos).toHaveLength(2);
    expect(snap.path.map((i) => i.kind)).toEqual([
      'user_message',
      'assistant_message',
      'assistant_message',
    ]);
  });

  it('ask_user skips approval, waits for interaction.response, and the model gets the answer', async () => {
    const rig = await makeRig({
      script: [
        {
          toolCalls: [
            {
              name: 'ask_user',
              args: {
                question: 'Which color?',
                fields: [
                  {
                    id: 'c',
                    label: 'Color',
                    type: 'choice',
                    options: ['red', 'blue'],
                    required: true,
                  },
                ],
              },
            },
          ],
        },
        { text: 'Blue it is.' },
      ],
    });
    const { runId } = await rig.submit('buy a cable');
    const req = (await rig.client.waitFor((e) => e.type === 'interaction.request')) as Interaction;
    expect(req).toMatchObject({ kind: 'ask_user', payload: { question: 'Which color?' } });
    expect(rig.client.of('approval.request')).toHaveLength(0);
    expect((await rig.store.runs.get(runId))!.state).toBe('waiting_interaction');
    expect(
      await rig.client.send({
        type: 'interaction.response',
        interactionId: req.interactionId,
        response: { answers: {} },
      }),
    ).toMatchObject({ code: 'invalid_command' });
    await rig.client.ack({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { answers: { c: 'blue' } },
    });
    expect(rig.client.of('interaction.resolved')).toHaveLength(1);
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(JSON.stringify(rig.provider.requests[1].messages)).toContain(
      'The user answered: {\\"c\\":\\"blue\\"}',
    );
    // Answering again with the same answer is idempotent; a different one is already_resolved.
    expect(
      (
        await rig.client.send({
          type: 'interaction.response',
          interactionId: req.interactionId,
          response: { answers: { c: 'blue' } },
        })
      ).type,
    ).toBe('command.ack');
    expect(
      await rig.client.send({
        type: 'interaction.response',
        interactionId: req.interactionId,
        response: { answers: { c: 'red' } },
      }),
    ).toMatchObject({ code: 'already_resolved' });
  });

  it('invalid tool arguments come back to the model as a validation error', async () => {
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'todo', args: { todos: 'nope' } }] }, { text: 'fixed' }],
    });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    const tool = rig.provider.requests[1].messages.find((m) => m.role === 'tool')!;
    expect(tool).toMatchObject({ isError: true });
    expect(JSON.stringify(tool)).toContain('Invalid arguments for todo: todos:');
  });

  it('an unknown tool is an error result listing the available tools', async () => {
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'teleport', args: {} }] }, { text: 'sorry' }],
    });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(JSON.stringify(rig.provider.requests[1].messages)).toContain(
      'Unknown tool \\"teleport\\". Available tools: ask_user, load_tools, request_takeover, todo',
    );
  });
});

describe('threads: fork and branches', () => {
  it('fork copies the path root → node into a new thread', async () => {
    const rig = await makeRig({ script: [{ text: 'one' }, { text: 'two' }, { text: 'forked' }] });
    const { threadId, runId } = await rig.submit('first');
    await rig.client.turnComplete(runId);
    const r2 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'second' },
    });
    await rig.client.turnComplete(r2.runId);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    const firstAnswer = path[1];
    const { threadId: forkId } = await rig.client.ack<{ threadId: string }>({
      type: 'thread.fork',
      threadId,
      nodeId: firstAnswer.id,
    });
    const fork = (await rig.store.threads.get(forkId))!;
    expect(fork.parentThreadId).toBe(threadId);
    const fpath = await rig.store.threads.path(forkId, fork.leafId);
    expect(fpath.map((n) => (n.item as { text?: string }).text)).toEqual(['first', 'one']);
    expect(fpath.every((n) => n.threadId === forkId && !path.some((p) => p.id === n.id))).toBe(
      true,
    );
    const r3 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId: forkId,
      input: { text: 'other way' },
    });
    await rig.client.turnComplete(r3.runId);
    expect(rig.provider.requests[2].messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    // The original is untouched.
    expect(
      (await rig.store.threads.path(threadId, (await rig.store.threads.get(threadId))!.leafId))
        .length,
    ).toBe(4);
    expect(await rig.client.send({ type: 'thread.fork', threadId, nodeId: 'nope' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('a submit from an earlier node creates a branch; selectBranch switches; snapshots show branch points', async () => {
    const rig = await makeRig({ script: [{ text: 'A1' }, { text: 'A2' }, { text: 'B2' }] });
    const { threadId, runId } = await rig.submit('q1');
    await rig.client.turnComplete(runId);
    const r2 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'q2' },
    });
    await rig.client.turnComplete(r2.runId);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    const oldLeaf = path.at(-1)!.id;
    const r3 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'q2 edited' },
      parentNodeId: path[1].id,
    });
    await rig.client.turnComplete(r3.runId);
    expect(
      rig.provider.requests[2].messages.map((m) =>
        m.role === 'user' ? JSON.stringify(m.content) : m.role,
      ),
    ).toEqual([
      JSON.stringify([{ type: 'text', text: 'q1' }]),
      'assistant',
      JSON.stringify([{ type: 'text', text: 'q2 edited' }]),
    ]);
    await rig.client.ack({ type: 'thread.subscribe', threadId });
    let snap = rig.client.of('thread.snapshot').at(-1)!.snapshot;
    expect(snap.branches).toHaveLength(1);
    expect(snap.branches![0]).toMatchObject({
      parentId: path[1].id,
      leafIds: [oldLeaf, snap.path.at(-1)!.id],
    });
    await rig.client.ack({ type: 'thread.selectBranch', threadId, leafId: oldLeaf });
    snap = (
      (await rig.client.waitFor(
        (e) => e.type === 'thread.snapshot' && e.snapshot.thread.leafId === oldLeaf,
      )) as Extract<AgentEvent, { type: 'thread.snapshot' }>
    ).snapshot;
    expect(snap.path.map((i) => (i as { text?: string }).text)).toEqual(['q1', 'A1', 'q2', 'A2']);
    expect(
      await rig.client.send({ type: 'thread.selectBranch', threadId, leafId: 'nope' }),
    ).toMatchObject({ code: 'not_found' });
  });

  it('fork and branch switches are rejected while an approval waits', async () => {
    const { testTool } = await import('./harness');
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'click', args: {} }] }],
      tools: [w],
    });
    const { threadId } = await rig.submit('go');
    await rig.client.waitFor((e) => e.type === 'approval.request');
    const leaf = (await rig.store.threads.get(threadId))!.leafId!;
    expect(await rig.client.send({ type: 'thread.fork', threadId, nodeId: leaf })).toMatchObject({
      code: 'busy',
    });
    expect(
      await rig.client.send({ type: 'thread.selectBranch', threadId, leafId: leaf }),
    ).toMatchObject({ code: 'busy' });
  });

  it('the first turn titles the thread with its first line', async () => {
    const rig = await makeRig({ script: [{ text: 'ok' }] });
    const { threadId, runId } = await rig.submit('Find the cheapest USB-C cable\nunder $10 please');
    await rig.client.turnComplete(runId);
    expect((await rig.store.threads.get(threadId))!.title).toBe('Find the cheapest USB-C cable');
  });

  it('title generation uses the task model and replaces the first line (best effort)', async () => {
    const rig = await makeRig({
      script: [
        (req) =>
          req.system.includes('titles') ? { text: 'Cheap USB-C cable.' } : { text: 'answer' },
        (req) =>
          req.system.includes('titles') ? { text: 'Cheap USB-C cable.' } : { text: 'answer' },
      ],
      options: { generateTitles: true },
    });
    const { threadId, runId } = await rig.submit('find me a cable');
    await rig.client.turnComplete(runId);
    await rig.client.waitFor(
      (e) => e.type === 'thread.updated' && e.thread.title === 'Cheap USB-C cable',
    );
    expect((await rig.store.threads.get(threadId))!.titleSource).toBe('model');
  });
});
