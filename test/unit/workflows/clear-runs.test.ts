/**
 * workflow.clearRuns: a workflow's finished runs are forgotten (the store's record and the
 * published list), a run still going stays, and an unknown workflow is refused.
 */
import { describe, expect, it } from 'vitest';
import { keptRuns } from '../../../src/workflows/run-history';
import { makeRig } from '../engine/harness';
import { FakeShop, SHOP } from './fake-shop';

describe('workflow.clearRuns', () => {
  it('keeps only the runs still going', () => {
    const run = (runId: string, outcome: string) => ({ runId, outcome });
    expect(keptRuns({ recentRuns: [run('b', 'running'), run('a', 'end')] })).toEqual([
      run('b', 'running'),
    ]);
    expect(keptRuns({ lastRun: run('a', 'error') })).toEqual([]);
  });

  it('forgets finished runs and keeps the workflow, its steps and its schedule', async () => {
    const shop = new FakeShop();
    const rig = await makeRig({
      script: [
        { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
        () => ({
          toolCalls: [{ name: 'browser_click', args: { ref: shop.refOf('link', 'Cart') } }],
        }),
        { toolCalls: [{ name: 'browser_snapshot', args: {} }] },
        { text: 'The cart is empty.' },
      ],
      tools: shop.tools(),
    });
    await rig.client.ack({ type: 'siteRules.set', origin: SHOP, rule: 'allow' });
    const { threadId, turnId, runId } = await rig.submit('Open the cart');
    await rig.client.turnComplete(runId);
    const { workflowId } = await rig.client.ack<{ workflowId: string }>({
      type: 'workflow.save',
      threadId,
      turnId,
      name: 'Check cart',
    });
    await rig.client.ack({
      type: 'workflow.update',
      workflowId,
      patch: { schedule: { days: [1, 2, 3, 4, 5], at: '09:00', timeZone: 'Asia/Shanghai' } },
    });
    for (let i = 0; i < 2; i++) {
      shop.reset();
      const run = await rig.client.ack<{ runId: string }>({ type: 'workflow.run', workflowId });
      await rig.client.turnComplete(run.runId);
    }
    // A run's end is recorded on its workflow just after turn.complete.
    let before = await rig.store.workflows.get(workflowId);
    for (let i = 0; i < 200 && before?.recentRuns?.some((r) => r.outcome === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 10));
      before = await rig.store.workflows.get(workflowId);
    }
    expect(before?.recentRuns?.map((r) => r.outcome)).toEqual(['end', 'end']);

    await rig.client.ack({ type: 'workflow.clearRuns', workflowId });
    const after = await rig.store.workflows.get(workflowId);
    expect(after?.lastRun).toBeUndefined();
    expect(after?.recentRuns).toEqual([]);
    expect(after?.definition).toEqual(before?.definition);
    expect(after?.schedule).toEqual({
      days: [1, 2, 3, 4, 5],
      at: '09:00',
      timeZone: 'Asia/Shanghai',
    });

    const refused = await rig.client.send({ type: 'workflow.clearRuns', workflowId: 'wf_nope' });
    expect(refused).toMatchObject({ type: 'command.reject', code: 'not_found' });
  });
});
