/**
 * The hand-over to the user (issue 28 part 1): `request_takeover` parks the run on a `takeover`
 * interaction; the wait survives a worker restart; Done (with a note) and Cancel reach the model
 * as the tool's result, and what the user did meanwhile is not reported.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import { makeRig } from './harness';

type Interaction = Extract<AgentEvent, { type: 'interaction.request' }>;

const handOver = {
  toolCalls: [{ name: 'request_takeover', args: { reason: 'Sign in to your bank', tabId: 3 } }],
};

describe('request_takeover', () => {
  it('waits across a worker restart; Done hands back with the note, asks no approval', async () => {
    const rig = await makeRig({ script: [handOver, { text: 'Signed in, continuing.' }] });
    const { runId } = await rig.submit('pay my bill');
    const req = (await rig.client.waitFor((e) => e.type === 'interaction.request')) as Interaction;
    expect(req).toMatchObject({
      kind: 'takeover',
      payload: { reason: 'Sign in to your bank', tabId: 3 },
    });
    expect(rig.client.of('approval.request')).toHaveLength(0);
    expect((await rig.store.runs.get(runId))!.state).toBe('waiting_interaction');
    // The offered tools and the prompt say when to hand over.
    const first = rig.provider.requests[0];
    expect(JSON.stringify(first.tools)).toContain('request_takeover');
    expect(first.system).toContain('hand the page over with request_takeover');

    // The worker stops while the user signs in; the new one shows the same card again.
    const b = await rig.reopen();
    const snap = await b.client.ack<Record<string, unknown>>({
      type: 'initialize',
      subscribe: ['*'],
    });
    void snap;
    expect((await b.store.runs.get(runId))!.state).toBe('waiting_interaction');
    expect(
      await b.client.send({
        type: 'interaction.response',
        interactionId: req.interactionId,
        response: { note: 'no done flag' },
      }),
    ).toMatchObject({ code: 'invalid_command' });
    await b.client.ack({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { done: true, note: 'I used the backup code.' },
    });
    const done = await b.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    const sent = JSON.stringify(rig.provider.requests[1].messages);
    expect(sent).toContain('The user has finished and handed the page back.');
    expect(sent).toContain('I used the backup code.');
    expect(sent).toContain('take a browser_snapshot');
  });

  it('Cancel tells the model the user did not do it', async () => {
    const rig = await makeRig({ script: [handOver, { text: 'Stopping there.' }] });
    const { runId } = await rig.submit('pay my bill');
    const req = (await rig.client.waitFor((e) => e.type === 'interaction.request')) as Interaction;
    await rig.client.ack({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { cancelled: true },
    });
    expect((await rig.client.turnComplete(runId)).stopReason).toBe('end');
    expect(JSON.stringify(rig.provider.requests[1].messages)).toContain(
      'The user cancelled the hand-over',
    );
  });
});
