import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../src/protocol';
import type { AgentTool } from '../../../src/tools/types';
import { makeRig, testTool } from './harness';

/**
 * The run machine's rarer edges, each driven through the engine as it happens (issue 25: every
 * edge of `RUN_EDGES` is reached by a test, checked by `npm run test:unit`):
 * - `failRun` from `streaming_model` and from `executing_tool`: the engine itself fails (a store
 *   or host error, not the provider's or the tool's), the run ends `failed` with what was open
 *   closed, and `run.resume` goes on from there;
 * - `execute` → `waiting_interaction`: a running tool asks the user (MCP elicitation) and gets
 *   the answer;
 * - `decideCall` → `streaming_model`: a run found executing with every call of its batch already
 *   recorded goes to the model instead of running anything again.
 */
const call = (name: string, args: unknown = {}) => ({ name, args });

/** A fault injector that throws a plain error (not a kill) the first time `at` reaches `where`. */
function failOnce(where: string) {
  let thrown = false;
  return {
    at(name: string) {
      if (!thrown && name === where) {
        thrown = true;
        throw new Error('the disk is full');
      }
    },
  };
}

describe('the engine fails inside a run (failRun)', () => {
  it('while streaming: the run fails with an internal error, says so, and resumes to the end', async () => {
    const rig = await makeRig({
      script: [{ text: 'half an answer' }, { text: 'The whole answer.' }],
      faults: failOnce('tx:assistant:before'),
    });
    const { threadId, runId } = await rig.submit('hello');
    const done = await rig.client.turnComplete(runId);
    expect(done).toMatchObject({ runId, stopReason: 'error', error: { code: 'internal' } });
    const run = await rig.store.runs.get(runId);
    expect(run).toMatchObject({ state: 'failed', error: { code: 'internal' } });
    expect(run?.error?.message).toContain('the disk is full');
    // The user message is kept; the run can go on.
    await rig.client.ack({ type: 'run.resume', runId });
    await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId && e.stopReason === 'end',
    );
    const nodes = await rig.store.threads.allNodes(threadId);
    const texts = nodes.map((n) => n.item).filter((i) => i.kind === 'assistant_message');
    expect(texts.at(-1)).toMatchObject({ text: 'The whole answer.' });
  });

  it('while a tool runs: the run fails, the call gets a result, and resume goes on with the model', async () => {
    const reader = testTool('reader');
    const rig = await makeRig({
      script: [{ toolCalls: [call('reader'), call('reader')] }, { text: 'Read it.' }],
      tools: [reader],
      faults: failOnce('tool:returned'),
    });
    const { threadId, runId } = await rig.submit('read twice');
    const done = await rig.client.turnComplete(runId);
    expect(done).toMatchObject({ stopReason: 'error', error: { code: 'internal' } });
    const run = await rig.store.runs.get(runId);
    expect(run).toMatchObject({ state: 'failed', error: { code: 'internal' } });
    // Both calls of the batch have a result: the one that was running and the one never started.
    expect(run?.stepCursor.nextToolIndex).toBe(run?.stepCursor.toolCalls.length);
    const results = (await rig.store.threads.allNodes(threadId))
      .map((n) => n.item)
      .filter((i) => i.kind === 'tool_result');
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.kind === 'tool_result' && r.ok === false)).toBe(true);
    expect(reader.runs).toBe(1);
    await rig.client.ack({ type: 'run.resume', runId });
    await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId && e.stopReason === 'end',
    );
    // The model was asked again with both results in its context; nothing ran twice.
    expect(reader.runs).toBe(1);
    const last = rig.provider.requests.at(-1);
    const sent = JSON.stringify(last?.messages);
    expect(sent.match(/"role":"tool"|"tool_result"|toolCallId/g)?.length ?? 0).toBeGreaterThan(0);
  });
});

describe('a running tool asks the user (execute → waiting_interaction)', () => {
  function asking(): AgentTool<Record<string, never>> & { answers: unknown[] } {
    const tool = {
      answers: [] as unknown[],
      name: 'mcp__files__pick',
      label: 'Pick a folder',
      description: 'Asks which folder to use.',
      parameters: z.object({}),
      level: 'mcp' as const,
      effects: 'read' as const,
      binding: {
        kind: 'mcp' as const,
        serverId: 'files',
        endpoint: 'http://127.0.0.1:9/mcp',
        authIdentity: 'none',
      },
      async execute(
        _id: string,
        _p: Record<string, never>,
        _s: AbortSignal,
        _u: unknown,
        ctx: { requestInteraction?: (k: 'elicitation', p: unknown) => Promise<unknown> },
      ) {
        const answer = await ctx.requestInteraction?.('elicitation', {
          serverId: 'files',
          tool: 'mcp__files__pick',
          serverTool: 'pick',
          message: 'Which folder?',
          requestedSchema: {
            type: 'object',
            properties: { folder: { type: 'string' } },
            required: ['folder'],
          },
        });
        tool.answers.push(answer);
        return { content: [{ type: 'text' as const, text: `Using ${JSON.stringify(answer)}` }] };
      },
    };
    return tool as never;
  }

  it('the run waits for the answer, durably recorded, and the tool gets it', async () => {
    const tool = asking();
    const rig = await makeRig({
      script: [{ toolCalls: [call('mcp__files__pick')] }, { text: 'Done.' }],
      tools: [tool as never],
    });
    const { runId } = await rig.submit('pick a folder');
    // A tool of an MCP server asks before it runs; then it asks its own question while running.
    const approval = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    await rig.client.ack({
      type: 'approval.response',
      approvalId: approval.approvalId,
      decision: 'allow_once',
    });
    const req = (await rig.client.waitFor((e) => e.type === 'interaction.request')) as Extract<
      AgentEvent,
      { type: 'interaction.request' }
    >;
    expect(req).toMatchObject({ kind: 'elicitation' });
    expect((await rig.store.runs.get(runId))?.state).toBe('waiting_interaction');
    expect((await rig.store.interactions.get(req.interactionId))?.status).toBe('pending');
    // A wrong answer is refused and loses nothing; the right one reaches the tool.
    const bad = await rig.client.send({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { action: 'accept', content: { folder: 7 } },
    });
    expect(bad).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    await rig.client.ack({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { action: 'accept', content: { folder: 'docs' } },
    });
    await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId && e.stopReason === 'end',
    );
    expect(tool.answers).toEqual([{ action: 'accept', content: { folder: 'docs' } }]);
  });
});

describe('a batch already recorded (decideCall → streaming_model)', () => {
  it('a run found executing with every call answered goes to the model, running nothing again', async () => {
    const reader = testTool('reader');
    const rig = await makeRig({
      script: [{ toolCalls: [call('reader')] }, { text: 'All read.' }],
      tools: [reader],
    });
    const { runId } = await rig.submit('read');
    await rig.client.turnComplete(runId);
    expect(reader.runs).toBe(1);
    // What a database from an older build can hold: executing, with the cursor past the batch.
    await rig.store.runs.update(
      runId,
      (r) => {
        r.state = 'executing_tool';
        r.stopReason = undefined;
      },
      Date.now(),
    );
    const requests = rig.provider.requests.length;
    rig.provider.push({ text: 'Nothing left to run.' });
    const b = await rig.reopen();
    await b.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId && e.stopReason === 'end',
    );
    expect(reader.runs).toBe(1);
    expect(rig.provider.requests.length).toBe(requests + 1);
  });
});
