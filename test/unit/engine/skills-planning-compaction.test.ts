import { describe, expect, it } from 'vitest';
import { IntentTagFilter, detectIntent, stripIntentTags } from '../../../src/engine/model/planning';
import { parseSkill } from '../../../src/skills/parse-skill';
import type { RecordedRequest } from '../../../src/providers/scripted';
import { makeRig, testTool } from './harness';

const SKILL = `---
name: price-compare
description: Compare prices of one product across shops before buying.
---
1. Search each shop.
2. Note the price with shipping.
${'A long line of instructions. '.repeat(60)}`;

const textOf = (r: RecordedRequest) => JSON.stringify(r.messages);

describe('skills', () => {
  it('parses SKILL.md front matter and rejects malformed files', () => {
    expect(parseSkill(SKILL)).toMatchObject({
      name: 'price-compare',
      description: 'Compare prices of one product across shops before buying.',
    });
    expect(parseSkill('no front matter')).toHaveProperty('error');
    expect(parseSkill('---\nname: x\n---\nbody')).toMatchObject({
      error: expect.stringContaining('description'),
    });
    expect(parseSkill('---\nname: x\ndescription: y\n---\n')).toMatchObject({
      error: expect.stringContaining('instructions'),
    });
  });

  it('imported, listed in settings, enabled per thread: description in the prompt, body via get_skill, never truncated', async () => {
    const probe = testTool('probe');
    const script = [
      { toolCalls: [{ name: 'get_skill', args: { name: 'price-compare' } }] },
      ...Array.from({ length: 8 }, () => ({
        toolCalls: [{ name: 'probe', args: { value: 'x'.repeat(2000) } }],
      })),
      { text: 'done' },
    ];
    const rig = await makeRig({ script, tools: [probe] });
    // A small window makes old results worth a clipping batch within ten requests.
    (rig.engine.ctx.providers as { modelInfo: unknown }).modelInfo = async () => ({
      id: 'm',
      toolUse: true,
      vision: false,
      contextWindow: 2_000,
      maxOutputTokens: 1000,
    });
    expect(await rig.client.send({ type: 'skills.import', content: 'garbage' })).toMatchObject({
      code: 'invalid_command',
    });
    await rig.client.ack({ type: 'skills.import', content: SKILL });
    const ev = await rig.client.waitFor(
      (e) => e.type === 'settings.updated' && (e.settings.skills?.length ?? 0) > 0,
    );
    expect(ev.type === 'settings.updated' && ev.settings.skills?.[0].name).toBe('price-compare');
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.ack({
      type: 'thread.setOptions',
      threadId,
      options: { enabledSkills: ['price-compare'] },
    });
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'buy a cable' },
    });
    await rig.client.turnComplete(runId);
    const first = rig.provider.requests[0];
    expect(first.system).toContain('- price-compare: Compare prices');
    expect(first.tools.map((t) => t.name)).toContain('get_skill');
    // Ten requests later the skill body is still complete, while old probe results were clipped.
    const last = textOf(rig.provider.requests.at(-1)!);
    expect(last).toContain('A long line of instructions. '.repeat(60).trim());
    expect(last).toContain('more characters of this older result omitted');
    expect(await rig.client.send({ type: 'skills.remove', name: 'nope' })).toMatchObject({
      code: 'not_found',
    });
    await rig.client.ack({ type: 'skills.remove', name: 'price-compare' });
  });

  it('threads without skills get no get_skill tool', async () => {
    const rig = await makeRig({ script: [{ text: 'x' }] });
    const { runId } = await rig.submit('q');
    await rig.client.turnComplete(runId);
    expect(rig.provider.requests[0].tools.map((t) => t.name)).not.toContain('get_skill');
    expect(rig.provider.requests[0].system).not.toContain('# Skills');
  });
});

describe('planning round (spec/000 §1–2)', () => {
  it('detects and strips intent tags, also across stream deltas', () => {
    expect(detectIntent('Sure. <need_tool>')).toBe('need_tool');
    expect(detectIntent('Hello! <no_tool>')).toBe('no_tool');
    expect(detectIntent('no tag')).toBeNull();
    expect(stripIntentTags('I will look it up. <need_tool>')).toBe('I will look it up.');
    const f = new IntentTagFilter();
    const out =
      ['I will ', 'look <ne', 'ed_to', 'ol>', ' ok <', 'b>'].map((d) => f.push(d)).join('') +
      f.flush();
    expect(out).toBe('I will look  ok <b>');
  });

  it('<need_tool>: plan without tools, then the tool loop; tags never reach the user or later context', async () => {
    const probe = testTool('probe');
    const rig = await makeRig({
      script: [
        { text: 'I will check the page. <need_tool>' },
        { toolCalls: [{ name: 'probe', args: {} }] },
        { text: 'Checked.' },
      ],
      tools: [probe],
    });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.ack({ type: 'thread.setOptions', threadId, options: { planFirst: true } });
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'check it' },
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    const [plan, tools] = rig.provider.requests;
    expect(plan.tools).toEqual([]);
    expect(plan.system).toContain('<need_tool>');
    expect(tools.tools.map((t) => t.name)).toContain('probe');
    expect(tools.system).not.toContain('Planning round');
    expect(textOf(tools)).not.toContain('<need_tool>');
    expect(textOf(tools)).toContain('[continue]');
    const shown = rig.client
      .of('item.delta')
      .map((d) => d.delta.text ?? '')
      .join('');
    expect(shown).not.toContain('<need_tool>');
    expect(probe.runs).toBe(1);
  });

  it('<no_tool>: a continuation round without tools answers in full', async () => {
    const rig = await makeRig({
      script: [
        { text: 'That is a quick one. <no_tool>' },
        { text: 'Paris is the capital of France.' },
      ],
    });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.ack({ type: 'thread.setOptions', threadId, options: { planFirst: true } });
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'capital of France?' },
    });
    await rig.client.turnComplete(runId);
    expect(rig.provider.requests).toHaveLength(2);
    expect(rig.provider.requests[1].tools).toEqual([]);
    expect(rig.provider.requests[1].system).toContain('give the user your complete answer');
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    expect(
      path.map((n) => [(n.item as { round?: string }).round, (n.item as { text?: string }).text]),
    ).toEqual([
      [undefined, 'capital of France?'],
      ['plan', 'That is a quick one.'],
      ['continuation', 'Paris is the capital of France.'],
    ]);
  });

  it('a tool call inside the planning round is never executed', async () => {
    const w = testTool('click', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'click', args: {} }] }, { text: 'ok' }],
      tools: [w],
    });
    const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
    await rig.client.ack({ type: 'thread.setOptions', threadId, options: { planFirst: true } });
    const { runId } = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'x' },
    });
    await rig.client.turnComplete(runId);
    expect(w.runs).toBe(0);
    expect(rig.client.of('approval.request')).toHaveLength(0);
  });
});

describe('compaction (spec/004)', () => {
  it('summarizes older turns with the task model when the context nears the window; the store keeps everything', async () => {
    const big = 'lorem ipsum '.repeat(2000); // ~6k tokens per turn
    const reply = (req: RecordedRequest) =>
      req.system.includes('You summarize the earlier part')
        ? { text: 'SUMMARY: user compared cables; cheapest is B at $7.' }
        : { text: `answer ${big.slice(0, 400)}` };
    const rig = await makeRig({ script: Array.from({ length: 10 }, () => reply), model: {} });
    // A small context window makes the third turn cross 75 %.
    (rig.engine.ctx.providers as { modelInfo: unknown }).modelInfo = async () => ({
      id: 'm',
      toolUse: true,
      vision: false,
      contextWindow: 8_000,
      maxOutputTokens: 1000,
    });
    const { threadId, runId } = await rig.submit(`turn one ${big}`);
    await rig.client.turnComplete(runId);
    const r2 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: `turn two ${big.slice(0, 8000)}` },
    });
    await rig.client.turnComplete(r2.runId);
    const r3 = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'turn three: which was cheapest?' },
    });
    await rig.client.turnComplete(r3.runId);
    const summarizer = rig.provider.requests.filter((r) => r.system.includes('You summarize'));
    expect(summarizer.length).toBeGreaterThanOrEqual(1);
    const last = rig.provider.requests.at(-1)!;
    expect(textOf(last)).toContain('SUMMARY: user compared cables');
    expect(textOf(last)).not.toContain('turn one');
    expect(textOf(last)).toContain('turn three');
    const nodes = await rig.store.threads.allNodes(threadId);
    expect(
      nodes.some((n) => n.item.kind === 'user_message' && n.item.text.startsWith('turn one')),
    ).toBe(true);
    expect(
      nodes.filter((n) => n.item.kind === 'notice' && n.item.code === 'compaction'),
    ).toHaveLength(summarizer.length);
  });
});
