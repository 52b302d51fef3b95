import { describe, expect, it } from 'vitest';
import { makeRig } from './harness';

describe('a plain turn', () => {
  it('streams an answer, commits it, reports usage, then completes', async () => {
    const rig = await makeRig({
      script: [{ text: 'Hello there, friend.', usage: { inputTokens: 12, outputTokens: 5 } }],
    });
    const { threadId, runId, turnId } = await rig.submit('hi');
    const done = await rig.client.turnComplete(runId);
    expect(done).toMatchObject({ threadId, turnId, stopReason: 'end' });
    const deltas = rig.client
      .of('item.delta')
      .map((d) => d.delta.text ?? '')
      .join('');
    expect(deltas).toBe('Hello there, friend.');
    const usage = rig.client.of('token.usage');
    expect(usage).toHaveLength(1);
    expect(usage[0].usage).toEqual({ inputTokens: 12, outputTokens: 5 });
    const snap = await rig.client.ack({ type: 'thread.subscribe', threadId });
    void snap;
    const s = rig.client.of('thread.snapshot').at(-1)!.snapshot;
    expect(s.path.map((i) => i.kind)).toEqual(['user_message', 'assistant_message']);
    expect(s.run?.state).toBe('completed');
    expect(rig.provider.requests[0].messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });
});
