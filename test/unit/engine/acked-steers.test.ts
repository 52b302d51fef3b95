import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/protocol';
import {
  ScriptedProvider,
  type RecordedRequest,
  type ScriptEntry,
} from '../../../src/providers/scripted';
import type { NodeRecord } from '../../../src/store/records';
import { makeRig, testTool, type Rig, type RigOptions } from './harness';

/**
 * spec/001 §3: an acknowledged steer is never lost. If a provider error, abort or interrupt ends
 * the turn early, acked pending steers are materialized at a safe leaf before the terminal state;
 * a steer that arrives in any round keeps the turn going.
 */

const call = (name: string, args: unknown = {}) => ({ name, args });
type Steer = (text: string) => Promise<void>;

async function steeredRig(
  script: (steer: Steer) => ScriptEntry[],
  opts: Partial<RigOptions> & { planFirst?: boolean } = {},
) {
  let rig!: Rig;
  const ids: { threadId?: string; turnId?: string } = {};
  const steer: Steer = async (text) => {
    await rig.client.ack({
      type: 'turn.steer',
      threadId: ids.threadId!,
      expectedTurnId: ids.turnId!,
      input: { text },
    });
  };
  const provider = new ScriptedProvider(script(steer));
  rig = await makeRig({ ...opts, provider });
  const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
  ids.threadId = threadId;
  if (opts.planFirst)
    await rig.client.ack({ type: 'thread.setOptions', threadId, options: { planFirst: true } });
  const started = rig.client.waitFor((e) => e.type === 'turn.start');
  void rig.client.send({ type: 'turn.submit', threadId, input: { text: 'go' } });
  const s = (await started) as Extract<AgentEvent, { type: 'turn.start' }>;
  ids.turnId = s.turnId;
  return { rig, provider, threadId, runId: s.runId };
}

const steeredTexts = (nodes: NodeRecord[]) =>
  nodes
    .filter((n) => n.item.kind === 'user_message' && n.item.steered)
    .map((n) => (n.item as { text: string }).text);
const userText = (req: RecordedRequest) =>
  JSON.stringify(req.messages.filter((m) => m.role === 'user'));

async function pathOf(rig: Rig, threadId: string) {
  return rig.store.threads.path(threadId, (await rig.store.threads.get(threadId))!.leafId);
}

describe('acked steers survive an early end (spec/001 §3)', () => {
  it('a non-retryable provider error: the steer is materialized before the run fails', async () => {
    const { rig, threadId, runId } = await steeredRig((steer) => [
      async () => {
        await steer('also check the footer');
        return { error: { code: 'bad_request', message: 'Bad model name', retryable: false } };
      },
    ]);
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('error');
    const path = await pathOf(rig, threadId);
    expect(steeredTexts(path)).toEqual(['also check the footer']);
    // Steers first, then the terminal notice.
    expect(path.map((n) => n.item.kind)).toEqual(['user_message', 'user_message', 'notice']);
    const run = (await rig.store.runs.get(runId))!;
    expect([run.state, run.pendingSteers]).toEqual(['failed', []]);
    // And it was emitted, so the panel shows it.
    expect(
      rig.client.of('item.complete').some((e) => e.item.kind === 'user_message' && e.item.steered),
    ).toBe(true);
  });

  it("a steer during the breaker's final reply is answered by one more tool-less reply", async () => {
    const flaky = testTool('flaky', { fail: true });
    const { rig, provider, threadId, runId } = await steeredRig(
      (steer) => [
        ...Array.from({ length: 5 }, () => ({ toolCalls: [call('flaky')] })),
        async () => {
          await steer('then just tell me what you found');
          return { text: 'I could not do it.' };
        },
        { text: 'Here is what I found.' },
      ],
      { tools: [flaky] },
    );
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('tool_failures');
    expect(provider.requests).toHaveLength(7);
    expect(userText(provider.requests[6])).toContain('then just tell me what you found');
    // Tools stay forbidden for the extra reply.
    expect(provider.requests[6].toolChoice).toBe('none');
    expect(steeredTexts(await pathOf(rig, threadId))).toEqual(['then just tell me what you found']);
    expect(rig.client.of('turn.complete')).toHaveLength(1);
  });

  it('a steer during a continuation round keeps the turn going', async () => {
    const { rig, provider, threadId, runId } = await steeredRig(
      (steer) => [
        { text: 'Easy one. <no_tool>' },
        async () => {
          await steer('and say it in French');
          return { text: 'The answer.' };
        },
        { text: 'La réponse.' },
      ],
      { planFirst: true },
    );
    await rig.client.turnComplete(runId);
    expect(provider.requests).toHaveLength(3);
    expect(userText(provider.requests[2])).toContain('and say it in French');
    expect(steeredTexts(await pathOf(rig, threadId))).toEqual(['and say it in French']);
  });

  it('a steer during a planning round reaches the next request', async () => {
    const { rig, provider, runId } = await steeredRig(
      (steer) => [
        async () => {
          await steer('use the second tab');
          return { text: 'I will look. <need_tool>' };
        },
        { text: 'Done.' },
      ],
      { planFirst: true },
    );
    await rig.client.turnComplete(runId);
    expect(userText(provider.requests[1])).toContain('use the second tab');
  });

  const budgetScript = (steer: Steer): ScriptEntry[] => [
    async () => {
      await steer('remember the blue one');
      return { toolCalls: [call('probe')], usage: { inputTokens: 100, outputTokens: 10 } };
    },
    { text: 'Next answer.' },
  ];

  it('a budget pause keeps the steer; a new message then supersedes the run without losing it', async () => {
    const { rig, provider, threadId, runId } = await steeredRig(budgetScript, {
      tools: [testTool('probe')],
      settings: { tokenBudget: 100 },
    });
    const paused = await rig.client.turnComplete(runId);
    expect(paused.stopReason).toBe('budget_pause');
    const r = await rig.client.ack<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'something else' },
    });
    await rig.client.turnComplete(r.runId);
    expect((await rig.store.runs.get(runId))!.state).toBe('completed');
    expect(userText(provider.requests[1])).toContain('remember the blue one');
    const path = await pathOf(rig, threadId);
    expect(steeredTexts(path)).toEqual(['remember the blue one']);
    // The steer sits before the pause notice and the new message.
    const kinds = path.map((n) =>
      n.item.kind === 'user_message' ? (n.item.steered ? 'steer' : 'user') : n.item.kind,
    );
    expect(kinds).toEqual([
      'user',
      'assistant_message',
      'tool_call',
      'tool_result',
      'steer',
      'notice',
      'user',
      'assistant_message',
    ]);
  });

  it('a budget-paused run superseded by a branch selection keeps its steer in the history', async () => {
    const { rig, threadId, runId } = await steeredRig(budgetScript, {
      tools: [testTool('probe')],
      settings: { tokenBudget: 100 },
    });
    await rig.client.turnComplete(runId);
    const first = (await rig.store.threads.allNodes(threadId)).sort((a, b) => a.seq - b.seq)[0];
    await rig.client.ack({ type: 'thread.selectBranch', threadId, leafId: first.id });
    expect((await rig.store.runs.get(runId))!).toMatchObject({
      state: 'completed',
      pendingSteers: [],
    });
    expect(steeredTexts(await rig.store.threads.allNodes(threadId))).toEqual([
      'remember the blue one',
    ]);
  });
});
