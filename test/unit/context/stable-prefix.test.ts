import { describe, expect, it } from 'vitest';
import { makeRig, testTool } from '../engine/harness';

/**
 * Issue 17: nothing that changes per step sits near the front of a request. Every model call of a
 * thread sends the same system prompt and tool list (no timestamps, counters or per-step
 * environment), and the thread's id as the provider's cache key.
 */
describe('the front of every request is stable', () => {
  it('system prompt, tools and cache key are identical across the steps and turns of a thread', async () => {
    const probe = testTool('probe');
    const script = [
      { toolCalls: [{ name: 'probe', args: { value: 'a' } }] },
      { toolCalls: [{ name: 'probe', args: { value: 'b' } }] },
      {
        toolCalls: [{ name: 'todo', args: { todos: [{ text: 'check', status: 'in_progress' }] } }],
      },
      { text: 'first done' },
      { toolCalls: [{ name: 'probe', args: { value: 'c' } }] },
      { text: 'second done' },
    ];
    const rig = await makeRig({ script, tools: [probe] });
    const { threadId, runId } = await rig.submit('first');
    await rig.client.turnComplete(runId);
    const r2 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'second' },
    });
    await rig.client.turnComplete(r2.runId);
    const requests = rig.provider.requests;
    expect(requests).toHaveLength(6);
    for (const r of requests) {
      expect(r.system).toBe(requests[0].system);
      expect(JSON.stringify(r.tools)).toBe(JSON.stringify(requests[0].tools));
      expect(r.cacheKey).toBe(threadId);
    }
    // Within a turn each request's messages begin with the previous request's (append-only).
    for (let i = 1; i < 4; i++) {
      const before = JSON.stringify(requests[i - 1].messages).slice(0, -1);
      expect(JSON.stringify(requests[i].messages).startsWith(before)).toBe(true);
    }
    expect(requests[0].system).not.toMatch(/\d{2}:\d{2}/);
  });
});
