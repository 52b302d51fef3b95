import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import type { ToolTarget } from '../../../src/tools/types';
import { dispatchRecheck, driftOf } from '../../../src/gatekeeper/dispatch-recheck';
import { ALL_DECISIONS } from '../../../src/gatekeeper/verdict';
import { makeRig, testTool } from '../engine/harness';

// The Gatekeeper's second look (docs/permissions.md "Dispatch-time re-check"): an approval is
// given for one origin, one site-rule version and one tool descriptor. When any of them drifts
// between the decision and the dispatch, the call must be judged again — with every rule of the
// first verdict, not a subset of them.

type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;
const call = (name: string, args: unknown = {}) => ({ name, args });

/** A write tool whose target the test moves between approval and dispatch. */
function movingTool(first: ToolTarget) {
  const state = { target: first };
  const tool = testTool('act', { effects: 'write' });
  tool.resolveTarget = async () => state.target;
  return { tool, state };
}

async function approveThenMove(first: ToolTarget, next: ToolTarget) {
  const { tool, state } = movingTool(first);
  const rig = await makeRig({
    script: [{ toolCalls: [call('act', { value: 'x' })] }, { text: 'done' }],
    tools: [tool],
  });
  const { runId } = await rig.submit('go');
  const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
  state.target = next;
  const from = rig.client.events.length;
  await rig.client.ack({
    type: 'approval.response',
    approvalId: req.approvalId,
    decision: 'allow_once',
  });
  const outcome = await rig.client.waitFor(
    (e) =>
      rig.client.events.indexOf(e) >= from &&
      ((e.type === 'approval.request' && e.approvalId !== req.approvalId) ||
        (e.type === 'turn.complete' && e.runId === runId)),
  );
  return { rig, tool, runId, first: req, outcome };
}

describe('dispatchRecheck (pure)', () => {
  const target = { origin: 'https://a.example', url: 'https://a.example/' };
  const approved = { target, ruleVersion: 2, descriptorDigest: 'd1', approvalDigest: 'x1' };
  const now = {
    target,
    ruleVersion: 2,
    descriptorDigest: 'd1',
    approvalDigest: 'x1',
    verdict: { kind: 'ask' as const, reason: 'write', options: ALL_DECISIONS },
  };
  it('dispatches only the unchanged call', () => {
    expect(dispatchRecheck(approved, now)).toEqual({ kind: 'dispatch' });
  });
  it('compares the stored approval digest', () => {
    expect(dispatchRecheck(approved, { ...now, approvalDigest: 'x2' })).toMatchObject({
      kind: 'ask',
      drift: 'the approved call changed',
    });
  });
  it('a deny now wins over any approval', () => {
    expect(
      dispatchRecheck(approved, { ...now, verdict: { kind: 'deny', reason: 'blocked' } }),
    ).toEqual({ kind: 'deny', reason: 'blocked' });
  });
  it('every judged field drifts on its own', () => {
    const cases: Array<[Partial<typeof target> & Record<string, string>, RegExp]> = [
      [{ origin: 'https://b.example' }, /tab is now on/],
      [{ url: 'https://a.example/x' }, /address changed/],
      [{ topOrigin: 'https://t.example' }, /in a frame of/],
      [{ alwaysAsk: 'downloads a file' }, /now downloads a file/],
      [{ forbidden: 'no' }, /refused/],
    ];
    for (const [change, drift] of cases) {
      expect(driftOf(approved, { ...now, target: { ...target, ...change } })).toMatch(drift);
    }
    expect(driftOf(approved, { ...now, ruleVersion: 3 })).toBe('the site permission changed');
    expect(driftOf(approved, { ...now, descriptorDigest: 'd2' })).toBe('the tool changed');
  });
  it('a receiver the user approved after a hold is not a drift; anything else about it still is', () => {
    const frame = {
      origin: 'https://b.example',
      url: 'https://b.example/mail',
      topOrigin: 'https://a.example',
    };
    const held = { ...approved, grants: [{ origin: 'https://b.example' }] };
    const moved = { ...now, target: frame, ruleVersion: 0, approvalDigest: 'x3' };
    // Without the grant, the same move is a drift (and would ask again as a new call).
    expect(driftOf(approved, moved)).toMatch(/tab is now on https:\/\/b\.example/);
    expect(driftOf(held, moved)).toBeNull();
    expect(
      driftOf(held, { ...moved, target: { ...frame, alwaysAsk: 'downloads a file' } }),
    ).toMatch(/tab is now on/);
    expect(driftOf(held, { ...moved, target: { ...frame, origin: 'https://c.example' } })).toMatch(
      /tab is now on https:\/\/c\.example/,
    );
    expect(driftOf(held, { ...moved, descriptorDigest: 'd2' })).toBe('the tool changed');
  });
});

describe('dispatch-time re-check', () => {
  it('same target, same rule, same tool: runs as approved', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/a', tabId: 1 };
    const { tool, outcome } = await approveThenMove(shop, { ...shop });
    expect(outcome.type).toBe('turn.complete');
    expect(tool.runs).toBe(1);
  });

  it('the page address changed on the same origin: asks again', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/a', tabId: 1 };
    const { tool, outcome } = await approveThenMove(shop, {
      ...shop,
      url: 'https://shop.example/b',
    });
    expect(outcome).toMatchObject({
      type: 'approval.request',
      reason: 'changed:the page address changed to https://shop.example/b',
    });
    expect(tool.runs).toBe(0);
  });

  it('the action became one that must always ask (focus moved into a card field): asks, once only', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/a', tabId: 1 };
    const { tool, outcome } = await approveThenMove(shop, {
      ...shop,
      alwaysAsk: 'submits a form with payment card fields',
    });
    expect(outcome).toMatchObject({
      type: 'approval.request',
      reason: 'changed:it now submits a form with payment card fields',
      options: ['allow_once', 'deny', 'deny_stop'],
    });
    expect(tool.runs).toBe(0);
  });

  it('the target became forbidden on the same origin: refused, not run', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/a', tabId: 1 };
    const { tool, outcome, rig } = await approveThenMove(shop, {
      ...shop,
      forbidden: 'the page is the extension store',
    });
    expect(outcome.type).toBe('turn.complete');
    expect(tool.runs).toBe(0);
    const results = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .filter((i) => i.kind === 'tool_result');
    expect(results.at(-1)).toMatchObject({ ok: false, outcome: 'denied' });
  });

  it('the action moved into a frame of another site: asks for the frame', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/a', tabId: 1 };
    const frame = {
      origin: 'https://pay.example',
      url: 'https://pay.example/card',
      topOrigin: 'https://shop.example',
      topUrl: shop.url,
      tabId: 1,
    };
    const { outcome } = await approveThenMove(shop, frame);
    expect(outcome).toMatchObject({
      type: 'approval.request',
      target: { origin: 'https://pay.example', topOrigin: 'https://shop.example' },
    });
  });

  it('the tab moved to another origin: asks again for the new origin, nothing runs meanwhile', async () => {
    const { tool, outcome } = await approveThenMove(
      { origin: 'https://shop.example', url: 'https://shop.example/' },
      { origin: 'https://other.example', url: 'https://other.example/' },
    );
    expect(outcome).toMatchObject({
      type: 'approval.request',
      target: { origin: 'https://other.example' },
      reason: 'changed:the tab is now on https://other.example',
    });
    expect(tool.runs).toBe(0);
  });

  it('the tab moved to a blocked origin: refused without asking', async () => {
    const { tool, state } = movingTool({
      origin: 'https://shop.example',
      url: 'https://shop.example/',
    });
    const rig = await makeRig({
      script: [{ toolCalls: [call('act')] }, { text: 'done' }],
      tools: [tool],
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://evil.example', rule: 'block' });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    state.target = { origin: 'https://evil.example', url: 'https://evil.example/' };
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    await rig.client.turnComplete(runId);
    expect(tool.runs).toBe(0);
    expect(rig.client.of('approval.request')).toHaveLength(1);
    const result = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .find((i) => i.kind === 'tool_result');
    expect(result).toMatchObject({ ok: false, outcome: 'denied' });
  });

  it('the site rule changed since the approval: asks again', async () => {
    const shop = { origin: 'https://shop.example', url: 'https://shop.example/' };
    const { tool } = movingTool(shop);
    const rig = await makeRig({
      script: [{ toolCalls: [call('act')] }, { text: 'done' }],
      tools: [tool],
    });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://shop.example', rule: 'ask' });
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    const again = (await rig.client.waitFor(
      (e) => e.type === 'approval.request' && e.approvalId !== req.approvalId,
    )) as ApprovalReq;
    expect(again.reason).toBe('changed:the site permission changed');
    expect(tool.runs).toBe(0);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: again.approvalId,
      decision: 'deny',
    });
    await rig.client.turnComplete(runId);
    expect(tool.runs).toBe(0);
  });

  it('the tab moved to a page Keel never acts on (the Web Store): refused, not asked again', async () => {
    const { tool, outcome, rig } = await approveThenMove(
      { origin: 'https://shop.example', url: 'https://shop.example/' },
      {
        origin: 'https://chromewebstore.google.com',
        url: 'https://chromewebstore.google.com/detail/some-extension/abc',
      },
    );
    // The first verdict would have denied this target outright (decideVerdict: restricted URL).
    expect(outcome.type).toBe('turn.complete');
    expect(tool.runs).toBe(0);
    const results = rig.client
      .of('item.complete')
      .map((e) => e.item)
      .filter((i) => i.kind === 'tool_result');
    expect(results.at(-1)).toMatchObject({ ok: false, outcome: 'denied' });
  });

  it('a call that must always ask, re-asked after drift, still cannot be allowed for the whole site', async () => {
    const { outcome } = await approveThenMove(
      { origin: 'https://shop.example', url: 'https://shop.example/', alwaysAsk: 'payment' },
      { origin: 'https://pay.example', url: 'https://pay.example/checkout', alwaysAsk: 'payment' },
    );
    expect(outcome.type).toBe('approval.request');
    expect((outcome as ApprovalReq).options).toEqual(['allow_once', 'deny', 'deny_stop']);
  });
});
