import { describe, expect, it } from 'vitest';
import { matchThread, queryWords } from '../../../src/engine/views/thread-search';
import type { NodeRecord, ThreadRecord } from '../../../src/store/records';
import { makeRig } from '../engine/harness';

const thread = (title: string) => ({ threadId: 't1', title }) as ThreadRecord;
const node = (seq: number, item: NodeRecord['item']) =>
  ({ id: `n${seq}`, seq, item }) as NodeRecord;

describe('thread search', () => {
  it('matches every word in the title or within one message, never in tool results (page text)', () => {
    const nodes = [
      node(1, {
        kind: 'user_message',
        id: 'u',
        createdAt: 0,
        text: 'Please order Oat MILK for tomorrow',
      }),
      node(2, {
        kind: 'tool_result',
        id: 'r',
        createdAt: 0,
        toolCallId: 'c',
        ok: true,
        content: [{ type: 'text', text: 'secret page words' }],
      }),
      node(3, {
        kind: 'assistant_message',
        id: 'a',
        createdAt: 0,
        text: 'Done, the cart has it.',
        providerStopReason: 'end',
      }),
    ];
    expect(matchThread(thread('Groceries'), nodes, queryWords('groceries'))).toEqual({
      threadId: 't1',
      in: 'title',
    });
    expect(matchThread(thread('Groceries'), nodes, queryWords('milk  oat'))).toMatchObject({
      in: 'text',
      nodeId: 'n1',
      snippet: expect.stringContaining('Oat MILK'),
    });
    expect(matchThread(thread('Groceries'), nodes, queryWords('page words'))).toBeNull();
    // Words split across two messages are not one match.
    expect(matchThread(thread('Groceries'), nodes, queryWords('milk cart'))).toBeNull();
    expect(matchThread(thread('Groceries'), nodes, queryWords('   '))).toBeNull();
  });

  it('thread.search through the engine finds a thread by what was said', async () => {
    const rig = await makeRig({
      script: [{ text: 'Your parcel ships on Friday.' }, { text: 'Sure.' }],
    });
    const a = await rig.submit('when does my parcel ship?');
    await rig.client.turnComplete(a.runId);
    const b = await rig.submit('something else');
    await rig.client.turnComplete(b.runId);
    const found = await rig.client.ack<{
      matches: Array<{ threadId: string; in: string; snippet?: string }>;
    }>({ type: 'thread.search', query: 'ships friday' });
    expect(found.matches).toEqual([
      expect.objectContaining({
        threadId: a.threadId,
        in: 'text',
        snippet: expect.stringContaining('ships on Friday'),
      }),
    ]);
  });
});
