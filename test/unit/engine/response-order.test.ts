import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig, testTool } from './harness';

type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;

/**
 * "The first response decides" (spec/001 §5.1) must hold whatever the timing of the async steps
 * before an op's commit. The op's receipt fingerprint is a WebCrypto digest, and digests may
 * finish in any order (under load they did: issue 25 item 6). Here the first answer's digest is
 * made the slow one, which is what let a later `deny` claim an approval sent after `allow_once`.
 */
describe('answers to one request are decided in the order they arrived', () => {
  afterEach(() => vi.restoreAllMocks());

  it('allow_once then deny, sent at once, the first digest slower: allow_once claims it', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'click', args: {} }] }, { text: 'done' }],
      tools: [w],
    });
    const { runId } = await rig.submit('q');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    let slowed = 0;
    vi.spyOn(crypto.subtle, 'digest').mockImplementation(async (alg, data) => {
      const text = new TextDecoder().decode(data as Uint8Array);
      if (text.includes('"allow_once"') && slowed++ === 0)
        await new Promise((r) => setTimeout(r, 50));
      return digest(alg, data);
    });
    const [allow, deny] = await Promise.all([
      rig.client.send({
        type: 'approval.response',
        approvalId: req.approvalId,
        decision: 'allow_once',
      }),
      rig.client.send({ type: 'approval.response', approvalId: req.approvalId, decision: 'deny' }),
    ]);
    expect(slowed).toBeGreaterThan(0);
    expect([allow.type, deny.type]).toEqual(['command.ack', 'command.reject']);
    await rig.client.waitFor((e) => e.type === 'turn.complete' && e.runId === runId);
    expect(w.runs).toBe(1);
    expect(rig.client.of('approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: req.approvalId, decision: 'allow_once' }),
    ]);
  });
});
