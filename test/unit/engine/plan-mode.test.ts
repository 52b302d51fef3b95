/**
 * Approval mode 'plan' through the engine (issue 28 part 3): the model proposes a plan with
 * propose_plan; the run waits for the user as an interaction (across a restart); the approved
 * plan joins the run's environment with the answer, so its writes run unasked and anything else
 * asks "not in the plan" — after a restart too, and for that turn only.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig, testTool } from './harness';

type Interaction = Extract<AgentEvent, { type: 'interaction.request' }>;
type ApprovalReq = Extract<AgentEvent, { type: 'approval.request' }>;
const call = (name: string, args: unknown = {}) => ({ name, args });

const PROPOSE = call('propose_plan', {
  summary: 'Add the mug to the cart',
  steps: ['Open the mug', 'Add to cart'],
  sites: [
    { site: 'https://shop.example', writes: ['click'], why: 'the shop' },
    { site: 'https://mail.example', writes: [] },
  ],
});

/** A click that lands on the shop first; whatever it clicked took the tab to the mail site. */
function shopThenMail() {
  let origin = 'https://shop.example';
  return testTool('browser_click', {
    effects: 'write',
    origin: () => origin,
    onRun: () => {
      origin = 'https://mail.example';
    },
  });
}

describe('plan mode', () => {
  it('an approved plan lets its writes run unasked; another site asks "not in the plan"', async () => {
    const click = shopThenMail();
    const rig = await makeRig({
      script: [
        { toolCalls: [PROPOSE] },
        { toolCalls: [call('browser_click', { value: 'add' })] },
        { toolCalls: [call('browser_click', { value: 'send' })] },
        { text: 'Done.' },
        { toolCalls: [PROPOSE] },
        { text: 'I will not act then.' },
      ],
      tools: [click],
      settings: { approvalMode: 'plan' },
    });
    const { runId, threadId } = await rig.submit('buy the mug');
    const req = (await rig.client.waitFor((e) => e.type === 'interaction.request')) as Interaction;
    const first = rig.provider.requests[0];
    expect(JSON.stringify(first.tools)).toContain('propose_plan');
    expect(first.system).toContain('# Plan first');
    expect(req).toMatchObject({
      kind: 'plan',
      payload: {
        summary: 'Add the mug to the cart',
        sites: [
          { site: 'https://shop.example', writes: ['click'] },
          { site: 'https://mail.example', writes: [] },
        ],
      },
    });
    // The wait survives a restart; the approval lands in the run's environment with the answer.
    const b = await rig.reopen();
    await b.client.ack({ type: 'initialize', subscribe: ['*'] });
    expect(
      await b.client.send({
        type: 'interaction.response',
        interactionId: req.interactionId,
        response: { approved: true, sites: [{ site: 'https://shop.example', writes: ['type'] }] },
      }),
    ).toMatchObject({ code: 'invalid_command' });
    await b.client.ack({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { approved: true },
    });
    // The first click is on the plan's site: it runs unasked. The second lands on the mail site,
    // which the plan names read-only: it asks, and says why.
    const ask = (await b.client.waitFor((e) => e.type === 'approval.request')) as ApprovalReq;
    expect(click.runs).toBe(1);
    expect(ask).toMatchObject({
      reason: 'not_in_plan',
      target: { origin: 'https://mail.example' },
    });
    const run = await b.store.runs.get(runId);
    expect(run!.env!.approvedPlan).toMatchObject({
      interactionId: req.interactionId,
      sites: [
        { site: 'https://shop.example', writes: ['click'] },
        { site: 'https://mail.example', writes: [] },
      ],
    });
    await b.client.ack({ type: 'approval.response', approvalId: ask.approvalId, decision: 'deny' });
    expect((await b.client.turnComplete(runId)).stopReason).toBe('end');
    expect(click.runs).toBe(1);

    // The plan was for that turn: the next one starts without it, and its writes ask again.
    const next = await b.submit('and buy another', threadId);
    const again = (await b.client.waitFor(
      (e) => e.type === 'interaction.request' && e.runId === next.runId,
    )) as Interaction;
    expect((await b.store.runs.get(next.runId))!.env!.approvedPlan).toBeUndefined();
    // A rejection reaches the model with the note, and nothing is stored.
    await b.client.ack({
      type: 'interaction.response',
      interactionId: again.interactionId,
      response: { rejected: true, note: 'Not today' },
    });
    expect((await b.client.turnComplete(next.runId)).stopReason).toBe('end');
    expect((await b.store.runs.get(next.runId))!.env!.approvedPlan).toBeUndefined();
    const sent = JSON.stringify(b.provider.requests.at(-1)!.messages);
    expect(sent).toContain('The user rejected the plan. Their note: Not today');
  });

  it('propose_plan is offered only in plan mode', async () => {
    const rig = await makeRig({ script: [{ text: 'hi' }], settings: { approvalMode: 'ask' } });
    const { runId } = await rig.submit('hello');
    await rig.client.turnComplete(runId);
    expect(JSON.stringify(rig.provider.requests[0].tools)).not.toContain('propose_plan');
    expect(rig.provider.requests[0].system).not.toContain('# Plan first');
  });
});
