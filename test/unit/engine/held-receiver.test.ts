import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../src/protocol';
import type { AgentTool, ToolCallContext, ToolTarget } from '../../../src/tools/types';
import { makeRig } from './harness';

/**
 * The seam between the engine and an executor at the moment of effect: a tool asks `ctx.gate`
 * about each real receiver, delivers only on allow, and returns `held` otherwise; the engine asks
 * the user about that receiver and runs the call again with it covered. The ground truth here is
 * the tool's own delivery log (what each "page" received), not the engine's events.
 */

type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;

const SHOP = 'https://shop.example';
const VICTIM = 'https://victim.example';

interface Step {
  origin: string;
  effect: 'input' | 'destination';
  alwaysAsk?: string;
}

/** A tool that delivers a sequence of effects, each to its receiver, asking the gate first. */
function receiverTool(
  steps: Step[],
  opts: { level?: 'L1' | 'L2'; judged?: string } = {},
): AgentTool<{ value?: string }> & { delivered: string[]; runs: number; resumes: unknown[] } {
  const tool = {
    delivered: [] as string[],
    runs: 0,
    resumes: [] as unknown[],
    name: 'act',
    label: 'Act',
    description: 'Delivers effects to receivers',
    parameters: z.object({ value: z.string().optional() }),
    level: opts.level ?? 'L1',
    effects: 'write' as const,
    async resolveTarget(): Promise<ToolTarget> {
      const origin = opts.judged ?? SHOP;
      return { origin, url: `${origin}/page`, tabId: 7, title: 'Shop' };
    },
    async execute(
      _id: string,
      _p: { value?: string },
      _s: AbortSignal,
      _u: unknown,
      ctx: ToolCallContext,
    ) {
      tool.runs += 1;
      tool.resumes.push(ctx.resume);
      const from = typeof ctx.resume === 'number' ? ctx.resume : 0;
      for (let i = from; i < steps.length; i++) {
        const s = steps[i];
        const receiver: ToolTarget = {
          origin: s.origin,
          url: `${s.origin}/frame`,
          ...(s.alwaysAsk ? { alwaysAsk: s.alwaysAsk } : {}),
        };
        const v = ctx.gate.check(receiver, s.effect);
        if (v.kind === 'deny') throw new Error(`Stopped: ${v.reason}`);
        if (v.kind === 'hold')
          return {
            content: [{ type: 'text' as const, text: 'held' }],
            held: {
              target: receiver,
              what: `effect ${i + 1} would reach ${s.origin}`,
              ...(i > from ? { partial: `${i - from} effect(s) delivered` } : {}),
              resume: i,
            },
          };
        tool.delivered.push(`${i}:${s.origin}`);
      }
      return { content: [{ type: 'text' as const, text: 'done' }] };
    },
  };
  return tool as never;
}

const call = (args: unknown = {}) => ({ name: 'act', args });

async function nextApproval(rig: Awaited<ReturnType<typeof makeRig>>, n: number) {
  const e = await rig.client.waitFor(
    (x) =>
      x.type === 'approval.request' && rig.client.of('approval.request').indexOf(x as never) === n,
  );
  return e as ApprovalReq;
}

describe('held receivers: permission at the moment of effect', () => {
  it('an allowed site cannot lend its rule to a frame of another site: held, asked, denied, nothing delivered there', async () => {
    const tool = receiverTool([
      { origin: SHOP, effect: 'input' },
      { origin: VICTIM, effect: 'input' },
    ]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
      settings: { approvalMode: 'act' },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const { runId } = await rig.submit('go');
    const req = await nextApproval(rig, 0);
    expect(req.target.origin).toBe(VICTIM);
    expect(req.reason).toBe(`held:effect 2 would reach ${VICTIM}`);
    expect(tool.delivered).toEqual([`0:${SHOP}`]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'deny',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(tool.delivered).toEqual([`0:${SHOP}`]);
    const toolMsg = JSON.stringify(
      rig.provider.requests[1].messages.find((m) => m.role === 'tool'),
    );
    expect(toolMsg).toContain(`stopped before effect 2 would reach ${VICTIM}`);
    expect(toolMsg).toContain('1 effect(s) delivered');
    // Denying the receiver wrote no rule and left the shop's alone.
    expect(await rig.store.siteRules.get(VICTIM)).toBeUndefined();
  });

  it('approving the held receiver runs the call again from where it stopped, with that receiver covered', async () => {
    const tool = receiverTool([
      { origin: SHOP, effect: 'input' },
      { origin: VICTIM, effect: 'input' },
      { origin: SHOP, effect: 'input' },
    ]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
    });
    const { runId } = await rig.submit('go');
    // The call itself asks first (no rule): approving it covers the shop only.
    const first = await nextApproval(rig, 0);
    expect(first.target.origin).toBe(SHOP);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: first.approvalId,
      decision: 'allow_once',
    });
    const second = await nextApproval(rig, 1);
    expect(second.target.origin).toBe(VICTIM);
    expect(tool.delivered).toEqual([`0:${SHOP}`]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: second.approvalId,
      decision: 'allow_once',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(tool.delivered).toEqual([`0:${SHOP}`, `1:${VICTIM}`, `2:${SHOP}`]);
    expect(tool.resumes).toEqual([undefined, 1]);
    expect(rig.client.of('approval.request')).toHaveLength(2);
  });

  it('allow on this site for a held receiver writes the receiver’s rule, not the judged site’s', async () => {
    const tool = receiverTool([{ origin: VICTIM, effect: 'input' }]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const { runId } = await rig.submit('go');
    const req = await nextApproval(rig, 0);
    expect(req.options).toContain('allow_site');
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_site',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect((await rig.store.siteRules.get(VICTIM))?.rule).toBe('allow');
    // The second call reaches the victim under its new rule, without asking.
    expect(tool.delivered).toEqual([`0:${VICTIM}`, `0:${VICTIM}`]);
    expect(rig.client.of('approval.request')).toHaveLength(1);
  });

  it('an approval covers the always-ask reason it showed, not one the receiver reveals later', async () => {
    const tool = receiverTool([
      { origin: SHOP, effect: 'destination', alwaysAsk: 'submits a payment form' },
    ]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
      settings: { approvalMode: 'act' },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const { runId } = await rig.submit('go');
    const req = await nextApproval(rig, 0);
    expect(req.target.origin).toBe(SHOP);
    expect(req.reason).toBe(`held:effect 1 would reach ${SHOP}`);
    expect(req.options).toEqual(['allow_once', 'deny', 'deny_stop']);
    expect(tool.delivered).toEqual([]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    await rig.client.turnComplete(runId);
    expect(tool.delivered).toEqual([`0:${SHOP}`]);
  });

  it('trusted input in ask mode is held even on an allowed frame; a destination there is not', async () => {
    const tool = receiverTool(
      [
        { origin: VICTIM, effect: 'destination' },
        { origin: VICTIM, effect: 'input' },
      ],
      { level: 'L2' },
    );
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    await rig.client.ack({ type: 'siteRules.set', origin: VICTIM, rule: 'allow' });
    const { runId } = await rig.submit('go');
    const first = await nextApproval(rig, 0);
    expect(first.target.origin).toBe(SHOP);
    expect(first.reason).toBe('trusted_input');
    await rig.client.ack({
      type: 'approval.response',
      approvalId: first.approvalId,
      decision: 'allow_once',
    });
    const second = await nextApproval(rig, 1);
    expect(second.target.origin).toBe(VICTIM);
    expect(tool.delivered).toEqual([`0:${VICTIM}`]);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: second.approvalId,
      decision: 'deny',
    });
    await rig.client.turnComplete(runId);
    expect(tool.delivered).toEqual([`0:${VICTIM}`]);
  });

  it('a blocked receiver stops the call without asking', async () => {
    const tool = receiverTool([{ origin: VICTIM, effect: 'input' }]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
      settings: { approvalMode: 'act' },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    await rig.client.ack({ type: 'siteRules.set', origin: VICTIM, rule: 'block' });
    const { runId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    expect(tool.delivered).toEqual([]);
    expect(rig.client.of('approval.request')).toHaveLength(0);
    const toolMsg = JSON.stringify(
      rig.provider.requests[1].messages.find((m) => m.role === 'tool'),
    );
    expect(toolMsg).toContain(`The user blocked Keel on ${VICTIM}`);
  });

  it('a held approval survives a worker restart: re-shown, and the answer resumes the call once', async () => {
    const tool = receiverTool([
      { origin: SHOP, effect: 'input' },
      { origin: VICTIM, effect: 'input' },
    ]);
    const rig = await makeRig({
      script: [{ toolCalls: [call()] }, { text: 'ok' }],
      tools: [tool],
      settings: { approvalMode: 'act' },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const { threadId, runId } = await rig.submit('go');
    const req = await nextApproval(rig, 0);
    const rig2 = await rig.reopen({ tools: [tool] });
    await rig2.client.ack({ type: 'thread.subscribe', threadId });
    const snap = rig2.client.of('thread.snapshot').at(-1)!;
    expect(snap.snapshot.run?.pendingApproval).toMatchObject({
      approvalId: req.approvalId,
      target: { origin: VICTIM },
    });
    await rig2.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    await rig2.client.turnComplete(runId);
    expect(tool.delivered).toEqual([`0:${SHOP}`, `1:${VICTIM}`]);
    expect(tool.resumes).toEqual([undefined, 1]);
  });
});
