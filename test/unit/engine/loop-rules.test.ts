import { describe, expect, it } from 'vitest';
import { makeRig, testTool } from './harness';

const call = (name: string, args: unknown = {}, id?: string) => ({
  name,
  args,
  ...(id !== undefined ? { id } : {}),
});

describe('loop rules (spec/001 §1–2)', () => {
  it('has no step cap: 30 sequential tool steps run to the end', async () => {
    const t = testTool('probe');
    const script = [
      ...Array.from({ length: 30 }, (_, i) => ({
        toolCalls: [call('probe', { value: String(i) })],
      })),
      { text: 'done' },
    ];
    const rig = await makeRig({ script, tools: [t] });
    const { runId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(t.runs).toBe(30);
    expect(rig.provider.requests).toHaveLength(31);
  });

  it('pauses on the token budget and continues with run.resume', async () => {
    const t = testTool('probe');
    const u = { inputTokens: 60, outputTokens: 10 };
    const rig = await makeRig({
      script: [
        { toolCalls: [call('probe')], usage: u },
        { toolCalls: [call('probe')], usage: u },
        { text: 'finished', usage: u },
      ],
      tools: [t],
      settings: { tokenBudget: 100 },
    });
    const { runId } = await rig.submit('go');
    const paused = await rig.client.turnComplete(runId);
    expect(paused.stopReason).toBe('budget_pause');
    expect(rig.provider.requests).toHaveLength(2);
    expect((await rig.store.runs.get(runId))!.state).toBe('budget_paused');
    const n = rig.client.events.length;
    await rig.client.ack({ type: 'run.resume', runId });
    const done = await rig.client.waitFor(
      (e) => e.type === 'turn.complete' && rig.client.events.indexOf(e) >= n,
    );
    expect(done).toMatchObject({ stopReason: 'end' });
    expect(rig.provider.requests).toHaveLength(3);
  });

  it('warns after 3 consecutive failures and disables tools after 5 (stopReason tool_failures)', async () => {
    const t = testTool('flaky', { fail: true });
    const script = [
      ...Array.from({ length: 5 }, () => ({ toolCalls: [call('flaky')] })),
      { text: 'I could not do it.' },
    ];
    const rig = await makeRig({ script, tools: [t] });
    const { runId, threadId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('tool_failures');
    expect(t.runs).toBe(5);
    // The 4th request carries the warning; the 6th is the final reply with tools forbidden.
    const text4 = JSON.stringify(rig.provider.requests[3].messages);
    expect(text4).toContain('3 tool calls in a row have failed');
    const last = rig.provider.requests[5];
    expect(last.toolChoice).toBe('none');
    expect(JSON.stringify(last.messages)).toContain('tools are now disabled');
    const notices = (await rig.store.threads.allNodes(threadId))
      .filter((n) => n.item.kind === 'notice')
      .map((n) => (n.item as { code: string }).code);
    expect(notices).toEqual(['tool_failures_warning', 'tools_disabled']);
  });

  it('a success resets the failure counter; denials do not count', async () => {
    const t = testTool('flaky', { fail: (n) => n !== 3 });
    const w = testTool('writer', { effects: 'write' });
    const script = [
      { toolCalls: [call('flaky')] },
      { toolCalls: [call('flaky')] },
      { toolCalls: [call('flaky')] }, // succeeds: reset
      { toolCalls: [call('writer')] }, // denied: neutral
      { toolCalls: [call('flaky')] },
      { toolCalls: [call('flaky')] },
      { text: 'ok' },
    ];
    const rig = await makeRig({ script, tools: [t, w] });
    const { runId } = await rig.submit('go');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as {
      approvalId: string;
    };
    await rig.client.ack({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'deny',
    });
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect((await rig.store.runs.get(runId))!.counters.consecutiveToolFailures).toBe(2);
  });

  it('replaces empty and duplicate tool-call ids before persisting', async () => {
    const t = testTool('probe');
    const rig = await makeRig({
      script: [
        { toolCalls: [call('probe', {}, ''), call('probe', {}, 'dup')] },
        { toolCalls: [call('probe', {}, 'dup')] },
        { text: 'ok' },
      ],
      tools: [t],
    });
    const { runId, threadId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    const nodes = (await rig.store.threads.allNodes(threadId)).sort((a, b) => a.seq - b.seq);
    const ids = nodes
      .filter((n) => n.item.kind === 'tool_call')
      .map((n) => (n.item as { toolCallId: string }).toolCallId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain('');
    expect(ids[1]).toBe('dup');
    // Results answer the repaired ids; the context sent next is valid.
    const results = nodes
      .filter((n) => n.item.kind === 'tool_result')
      .map((n) => (n.item as { toolCallId: string }).toolCallId);
    expect(results).toEqual(ids);
    const lastMsgs = rig.provider.requests[2].messages;
    const toolMsgIds = lastMsgs
      .filter((m) => m.role === 'tool')
      .map((m) => (m as { toolCallId: string }).toolCallId);
    expect(toolMsgIds).toEqual(ids);
  });

  it('fails closed when tool calls come with a stop reason other than tool_use', async () => {
    const t = testTool('writer', { effects: 'write' });
    const rig = await makeRig({
      script: [{ toolCalls: [call('writer')], stop: 'end' }],
      tools: [t],
    });
    const { runId, threadId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('error');
    expect(done.error?.code).toBe('protocol_error');
    expect(t.runs).toBe(0);
    expect(rig.client.of('approval.request')).toHaveLength(0);
    const kinds = (
      await rig.store.threads.path(threadId, (await rig.store.threads.get(threadId))!.leafId)
    ).map((n) => n.item.kind);
    expect(kinds).toEqual(['user_message', 'assistant_message', 'tool_call', 'tool_result']);
  });

  it('never executes calls from a max_tokens-truncated message', async () => {
    const t = testTool('writer', { effects: 'read' });
    const rig = await makeRig({
      script: [{ toolCalls: [{ name: 'writer', rawArgs: '{"value": "abc' }], stop: 'max_tokens' }],
      tools: [t],
    });
    const { runId, threadId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('max_tokens');
    expect(t.runs).toBe(0);
    const nodes = await rig.store.threads.allNodes(threadId);
    const call1 = nodes.find((n) => n.item.kind === 'tool_call')!.item as {
      state: string;
      rawArgs?: string;
    };
    expect(call1.state).toBe('invalid');
    expect(call1.rawArgs).toBe('{"value": "abc');
  });

  it.each([
    ['end', 'end'],
    ['max_tokens', 'max_tokens'],
    ['content_filter', 'content_filter'],
    ['refusal', 'refusal'],
  ] as const)(
    'maps a final %s to stopReason %s and keeps the provider stop reason',
    async (stop, expected) => {
      const rig = await makeRig({ script: [{ text: 'partial answer', stop }] });
      const { runId, threadId } = await rig.submit('go');
      const done = await rig.client.turnComplete(runId);
      expect(done.stopReason).toBe(expected);
      const assistant = (await rig.store.threads.allNodes(threadId)).find(
        (n) => n.item.kind === 'assistant_message',
      )!.item as { providerStopReason: string };
      expect(assistant.providerStopReason).toBe(stop);
    },
  );

  it('ends with error when the model keeps failing, after bounded retries from the checkpoint', async () => {
    const err = { error: { code: 'server' as const, message: 'boom', retryable: true } };
    const rig = await makeRig({ script: [err, err, err] });
    const { runId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('error');
    expect(done.error?.code).toBe('server');
    expect(rig.provider.requests).toHaveLength(3);
  });

  it('recovers from a mid-stream failure by redoing the call from the checkpoint', async () => {
    const rig = await makeRig({
      script: [
        {
          text: 'part one part two',
          error: { code: 'stream', message: 'connection reset', retryable: true },
          failAfter: 2,
        },
        { text: 'complete answer' },
      ],
    });
    const { runId, threadId } = await rig.submit('go');
    const done = await rig.client.turnComplete(runId);
    expect(done.stopReason).toBe('end');
    expect(rig.client.of('item.discarded').length).toBeGreaterThan(0);
    const path = await rig.store.threads.path(
      threadId,
      (await rig.store.threads.get(threadId))!.leafId,
    );
    const assistants = path.filter((n) => n.item.kind === 'assistant_message');
    expect(assistants).toHaveLength(1);
    expect((assistants[0].item as { text: string }).text).toBe('complete answer');
  });

  it('sends turn.complete only after every write of the turn committed', async () => {
    const t = testTool('probe');
    const rig = await makeRig({
      script: [{ toolCalls: [call('probe')] }, { text: 'bye' }],
      tools: [t],
    });
    const { runId, threadId } = await rig.submit('go');
    const n = rig.client.events.length;
    void n;
    // Observe the store at the moment turn.complete is delivered.
    const seen = await new Promise<{ state: string; leafKind: string }>((resolve) => {
      rig.client.transport.onEvent((e) => {
        if (e.type !== 'turn.complete' || e.runId !== runId) return;
        void (async () => {
          const run = (await rig.store.runs.get(runId))!;
          const t2 = (await rig.store.threads.get(threadId))!;
          const leaf = (await rig.store.threads.getNode(t2.leafId!))!;
          resolve({ state: run.state, leafKind: leaf.item.kind });
        })();
      });
    });
    expect(seen).toEqual({ state: 'completed', leafKind: 'assistant_message' });
  });

  it('reports usage per model call and per turn, and cost from the catalog prices', async () => {
    const t = testTool('probe');
    const rig = await makeRig({
      script: [
        { toolCalls: [call('probe')], usage: { inputTokens: 1000, outputTokens: 100 } },
        { text: 'ok', usage: { inputTokens: 2000, outputTokens: 200 } },
      ],
      tools: [t],
      model: { pricing: { input: 3, output: 15 } },
    });
    const { runId, threadId } = await rig.submit('go');
    await rig.client.turnComplete(runId);
    const usage = rig.client.of('token.usage');
    expect(usage.map((u) => u.usage.inputTokens)).toEqual([1000, 2000]);
    expect(usage[1].turnUsage).toEqual({ inputTokens: 3000, outputTokens: 300 });
    expect(usage[1].turnCostUsd).toBeCloseTo((3000 * 3 + 300 * 15) / 1e6, 10);
    expect((await rig.store.threads.get(threadId))!.usage).toEqual({
      inputTokens: 3000,
      outputTokens: 300,
    });
  });
});
