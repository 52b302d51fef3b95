import { describe, expect, it } from 'vitest';
import { Outbox } from '../../../src/engine/host/outbox';
import type { NodeRecord } from '../../../src/store/records';
import { makeRig, testTool } from './harness';

/**
 * Events follow commits through one outbox (issue 25): what a transaction puts in it is sent
 * after it committed, in order, and nothing of a transaction that did not commit is ever sent.
 */
const toolCallNode = (id: string, state: string, visibility?: string): NodeRecord =>
  ({
    id,
    threadId: 't1',
    parentId: null,
    seq: 1,
    item: {
      kind: 'tool_call',
      id,
      createdAt: 1,
      toolCallId: 'c1',
      name: 'reader',
      args: {},
      state,
      ...(visibility ? { visibility } : {}),
    },
  }) as unknown as NodeRecord;

describe('Outbox', () => {
  it('sends events and nodes in the order they were put, once', () => {
    const out = new Outbox();
    out.node(toolCallNode('n1', 'executing'));
    out.emit({ type: 'run.updated', threadId: 't1', runId: 'r1', state: 'executing_tool' });
    const sent = out.drain();
    expect(sent.map((e) => e.type)).toEqual(['item.complete', 'run.updated']);
    expect(out.drain()).toEqual([]);
  });

  it('builds a node event when sent, so a node updated later in the commit is sent as stored', () => {
    const out = new Outbox();
    const n = toolCallNode('n1', 'executing');
    out.node(n);
    (n.item as { state: string }).state = 'completed';
    expect(out.drain()).toMatchObject([{ type: 'item.complete', item: { state: 'completed' } }]);
  });

  it('leaves out nodes of internal tools', () => {
    const out = new Outbox();
    out.node(toolCallNode('n1', 'executing', 'internal'));
    expect(out.drain()).toEqual([]);
  });
});

describe('ctx.commit and its outbox', () => {
  it('a transaction that fails at its last moment sends none of its writes', async () => {
    let thrown = false;
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'reader', args: {} }] }, { text: 'Done.' }],
      tools: [testTool('reader')],
      faults: {
        at(name: string) {
          if (!thrown && name === 'tx:tool_result:inside') {
            thrown = true;
            throw new Error('the disk is full');
          }
        },
      },
    });
    const { threadId, runId } = await rig.submit('read it');
    await rig.client.turnComplete(runId);
    expect(thrown).toBe(true);
    const stored = new Map((await rig.store.threads.allNodes(threadId)).map((n) => [n.id, n]));
    const sent = rig.client.of('item.complete');
    expect(sent.length).toBeGreaterThan(0);
    // Every item the panel was sent is in the store, as it was sent or later updated; the
    // result written by the failed transaction (and its tool_call's "completed" state) was not.
    for (const e of sent) expect(stored.has(e.item.id), e.item.id).toBe(true);
    const results = sent.filter((e) => e.item.kind === 'tool_result');
    expect(results.every((e) => stored.get(e.item.id)?.item.kind === 'tool_result')).toBe(true);
  });

  it("a committed step's events arrive after the commit, in the order it wrote them", async () => {
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'reader', args: {} }] }, { text: 'Done.' }],
      tools: [testTool('reader')],
    });
    const { runId } = await rig.submit('read it');
    await rig.client.turnComplete(runId);
    const kinds = rig.client.events
      .filter((e) => e.type === 'item.complete')
      .map((e) => (e.type === 'item.complete' ? e.item.kind : ''));
    // user message, assistant with the call, the call, its result, the final answer.
    expect(kinds.indexOf('tool_call')).toBeGreaterThan(kinds.indexOf('assistant_message'));
    expect(kinds.lastIndexOf('tool_result')).toBeGreaterThan(kinds.indexOf('tool_call'));
  });
});
