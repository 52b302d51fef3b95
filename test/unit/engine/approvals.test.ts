import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig, testTool } from './harness';

type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;
const call = (name: string, args: unknown = {}) => ({ name, args });

describe('approvals and site permissions', () => {
  it('asks before a write, with the full parameters and the target site', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('click', { value: 'buy' })] }, { text: 'done' }],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    expect(req).toMatchObject({
      runId,
      tool: { name: 'click', level: 'L1', effects: 'write' },
      params: { value: 'buy' },
      target: { origin: 'https://shop.example', title: 'Example', tabId: 7 },
    });
    expect(req.options).toEqual(['allow_once', 'allow_site', 'deny', 'deny_stop']);
    expect(w.runs).toBe(0);
    expect((await rig.store.runs.get(runId))!.state).toBe('waiting_approval');
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(w.runs).toBe(1);
    expect(rig.client.of('approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: req.approvalId, decision: 'allow_once' }),
    ]);
    // Reads never ask.
    expect(rig.client.of('approval.request')).toHaveLength(1);
  });

  it('deny: the model sees the denial and the turn continues', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('click')] }, { text: 'ok, I will not' }],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'deny',
      reason: 'not now',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(w.runs).toBe(0);
    const toolMsg = rig.provider.requests[1].messages.find((m) => m.role === 'tool')!;
    expect(JSON.stringify(toolMsg)).toContain('The user denied this call. Their reason: not now');
    const card = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .filter((i) => i.kind === 'tool_call')
      .at(-1)!;
    expect(card).toMatchObject({ state: 'rejected' });
  });

  it('deny_stop ends the turn without another model call', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('click'), call('click')] }],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'deny_stop',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('interrupted');
    expect(rig.provider.requests).toHaveLength(1);
    expect(w.runs).toBe(0);
  });

  it('allow_site persists a rule that skips the next question on that origin, and not on another', async () => {
    let origin = 'https://shop.example';
    const w = testTool('click', { effects: 'write', origin: () => origin });
    const rig = await makeRig({
      script: [
        { toolCalls: [call('click')] },
        { toolCalls: [call('click')] },
        { toolCalls: [call('click')] },
        { text: 'done' },
      ],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    // The second call runs on the allowed site without asking; the third is on another site.
    const onSecond = rig.client.waitFor(
      (e) => e.type === 'approval.request' && e.approvalId !== req.approvalId,
    );
    w.execute = (
      (orig) =>
      async (...args: Parameters<typeof orig>) => {
        const r = await orig(...args);
        if (w.runs === 2) origin = 'https://other.example';
        return r;
      }
    )(w.execute.bind(w));
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_site',
    });
    const second = (await onSecond) as ApprovalReq;
    expect(w.runs).toBe(2);
    expect(second.target.origin).toBe('https://other.example');
    expect((await rig.store.siteRules.get('https://shop.example'))?.rule).toBe('allow');
    const settingsEv = rig.client.of('settings.updated').at(-1)!;
    expect(settingsEv.settings.siteRules).toEqual([
      expect.objectContaining({ origin: 'https://shop.example', rule: 'allow' }),
    ]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: second.approvalId,
      decision: 'allow_once',
    });
    await rig.client.turnComplete(runId);
    expect(w.runs).toBe(3);
  });

  it('re-asks when the tab changed origin between approval and dispatch', async () => {
    let origin = 'https://shop.example';
    const w = testTool('click', { effects: 'write', origin: () => origin });
    const rig = await makeRig({
      script: [{ toolCalls: [call('click')] }, { text: 'done' }],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const first = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    origin = 'https://evil.example';
    const again = rig.client.waitFor(
      (e) => e.type === 'approval.request' && e.approvalId !== first.approvalId,
    );
    await rig.client.ack({
      type: 'approval.response',
      approvalId: first.approvalId,
      decision: 'allow_once',
    });
    const second = (await again) as ApprovalReq;
    expect(second.target.origin).toBe('https://evil.example');
    expect(second.reason).toMatch(/^changed:/);
    expect(w.runs).toBe(0);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: second.approvalId,
      decision: 'deny',
    });
    await rig.client.turnComplete(runId);
    expect(w.runs).toBe(0);
  });

  it('binds the approval to a digest of descriptor, canonical params and origin', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [
        { toolCalls: [call('click', { value: 'a' })] },
        { toolCalls: [call('click', { value: 'b' })] },
        { text: 'x' },
      ],
      tools: [w],
    });
    await rig.submit('go');
    const r1 = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    const a1 = (await rig.store.approvals.get(r1.approvalId))!;
    const p2 = rig.client.waitFor(
      (e) => e.type === 'approval.request' && e.approvalId !== r1.approvalId,
    );
    await rig.client.ack({
      type: 'approval.response',
      approvalId: r1.approvalId,
      decision: 'allow_once',
    });
    const r2 = (await p2) as ApprovalReq;
    const a2 = (await rig.store.approvals.get(r2.approvalId))!;
    expect(a1.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(a2.digest).not.toBe(a1.digest);
    const { approvalDigest } = await import('../../../src/gatekeeper/approval-digest');
    const run = (await rig.store.runs.get(a2.runId))!;
    expect(
      await approvalDigest(
        run.pendingTool!.descriptorDigest!,
        { value: 'b' },
        'https://shop.example',
      ),
    ).toBe(a2.digest);
  });

  it('answers a second, different response with already_resolved and a repeat with an ack', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('click')] }, { text: 'x' }],
      tools: [w],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    expect(
      (
        await rig.client.send({
          type: 'approval.response',
          approvalId: req.approvalId,
          decision: 'allow_once',
        })
      ).type,
    ).toBe('command.ack');
    const r = await rig.client.send({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'deny',
    });
    expect(r).toMatchObject({ type: 'command.reject', code: 'already_resolved' });
    expect(
      await rig.client.send({ type: 'approval.response', approvalId: 'nope', decision: 'deny' }),
    ).toMatchObject({ code: 'not_found' });
    await rig.client.turnComplete(runId);
    expect(w.runs).toBe(1);
  });

  it('blocked sites and browser-internal pages are refused without asking', async () => {
    const blocked = testTool('read_blocked', { origin: 'https://blocked.example' });
    const internal = testTool('read_internal', { origin: 'chrome://settings' });
    internal.resolveTarget = async () => ({
      origin: 'chrome://settings',
      url: 'chrome://settings/',
    });
    const rig = await makeRig({
      script: [{ toolCalls: [call('read_blocked'), call('read_internal')] }, { text: 'x' }],
      tools: [blocked, internal],
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'blocked.example', rule: 'block' });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(blocked.runs + internal.runs).toBe(0);
    expect(rig.client.of('approval.request')).toHaveLength(0);
    const tools = rig.provider.requests[1].messages
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.stringify(m));
    expect(tools[0]).toContain('blocked Keel on https://blocked.example');
    expect(tools[1]).toContain('never acts on this page');
  });

  it("approvalMode 'act' lets an allow rule cover trusted (L2) input; 'ask' still asks for it", async () => {
    const l2 = testTool('mouse', { effects: 'write', level: 'L2' });
    for (const [mode, asks] of [
      ['ask', 1],
      ['act', 0],
    ] as const) {
      l2.runs = 0;
      const rig = await makeRig({
        script: [{ toolCalls: [call('mouse')] }, { text: 'x' }],
        tools: [l2],
        settings: { approvalMode: mode },
      });
      await rig.client.ack({
        type: 'siteRules.set',
        origin: 'https://shop.example',
        rule: 'allow',
      });
      const { runId } = await rig.submit('go');
      if (asks) {
        const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
        expect(req.options).toContain('allow_site');
        await rig.client.ack({
          type: 'approval.response',
          approvalId: req.approvalId,
          decision: 'allow_once',
        });
      }
      await rig.client.turnComplete(runId);
      expect(rig.client.of('approval.request')).toHaveLength(asks);
      expect(l2.runs).toBe(1);
    }
  });

  it('alwaysAsk targets ask even on an allowed site in act mode, and cannot be allowed site-wide', async () => {
    const up = testTool('upload', { effects: 'write' });
    const base = up.resolveTarget!.bind(up);
    up.resolveTarget = async (p, c) => ({ ...(await base(p, c)), alwaysAsk: 'file_upload' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('upload')] }, { text: 'x' }],
      tools: [up],
      settings: { approvalMode: 'act' },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://shop.example', rule: 'allow' });
    await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    expect(req.options).toEqual(['allow_once', 'deny', 'deny_stop']);
    expect(req.reason).toBe('always_ask:file_upload');
  });
});
