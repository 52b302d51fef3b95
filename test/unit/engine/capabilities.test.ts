import { describe, expect, it } from 'vitest';
import { makeRig, testTool } from './harness';

describe('model capabilities bind the run environment (spec/001 §4)', () => {
  it('toolUse: false binds an empty catalog: no tool schemas reach the provider', async () => {
    const rig = await makeRig({
      script: [{ text: 'plain answer' }],
      tools: [testTool('probe')],
      model: { toolUse: false },
    });
    const { runId } = await rig.submit('q');
    await rig.client.turnComplete(runId);
    expect(rig.provider.requests[0].tools).toEqual([]);
    expect((await rig.store.runs.get(runId))!.env!.toolCatalog).toEqual([]);
    expect(rig.provider.requests[0].system).toContain('No tools are available');
  });

  it('vision: false removes the screenshot tool; vision: true keeps it', async () => {
    for (const vision of [false, true]) {
      const shot = testTool('browser_screenshot');
      const rig = await makeRig({
        script: [{ text: 'x' }],
        tools: [shot, testTool('browser_snapshot')],
        model: { vision },
      });
      const { runId } = await rig.submit('q');
      await rig.client.turnComplete(runId);
      const names = rig.provider.requests[0].tools.map((t) => t.name);
      expect(names.includes('browser_screenshot')).toBe(vision);
      expect(names).toContain('browser_snapshot');
    }
  });
});
