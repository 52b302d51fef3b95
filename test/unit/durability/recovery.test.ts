import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../src/protocol';
import { ScriptedProvider } from '../../../src/providers/scripted';
import { makeRig, testTool } from '../engine/harness';
import { KillSwitch } from './crash-harness';

const call = (name: string, args: unknown = {}) => ({ name, args });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(5);
  }
}

async function killedRig(name: string, occurrence: number, opts: Parameters<typeof makeRig>[0]) {
  const kill = new KillSwitch({ name, occurrence });
  const rig = await makeRig({ ...opts, faults: kill });
  kill.onKill = () => rig.engine.kill();
  kill.armed = true;
  return { rig, kill };
}

describe('recovery after the service worker restarts', () => {
  it('streaming_model: redoes the model call from the last checkpoint (partial streams are never kept)', async () => {
    const provider = new ScriptedProvider([
      { text: 'first attempt, cut off' },
      { text: 'second attempt, complete' },
    ]);
    const { rig, kill } = await killedRig('stream:first', 1, { provider });
    const { threadId, runId } = await rig.submit('q');
    await until(() => kill.killed !== null);
    const b = await rig.reopen();
    await b.client.waitFor((e) => e.type === 'turn.complete' && e.runId === runId);
    const path = await b.store.threads.path(
      threadId,
      (await b.store.threads.get(threadId))!.leafId,
    );
    expect(path.map((n) => (n.item as { text?: string }).text)).toEqual([
      'q',
      'second attempt, complete',
    ]);
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1].messages).toEqual(provider.requests[0].messages);
  });

  it('a crash loop mid-stream cannot reset the attempt counter: the run fails after the limit', async () => {
    const provider = new ScriptedProvider(
      Array.from({ length: 6 }, () => ({ text: 'never finishes' })),
    );
    let { rig, kill } = await killedRig('stream:first', 1, { provider });
    const { runId } = await rig.submit('q');
    for (let i = 0; i < 2; i++) {
      await until(() => kill.killed !== null);
      const next = new KillSwitch({ name: 'stream:first', occurrence: 1 });
      next.armed = true;
      const r2 = await rig.reopen({ faults: next });
      next.onKill = () => r2.engine.kill();
      rig = r2;
      kill = next;
    }
    await until(() => kill.killed !== null);
    const last = await rig.reopen();
    const done = (await last.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId,
    )) as Extract<AgentEvent, { type: 'turn.complete' }>;
    expect(done.stopReason).toBe('error');
    expect(done.error?.code).toBe('model_failed');
    expect(provider.requests).toHaveLength(3);
  });

  it('waiting_approval: the request is re-shown from the approvals table; the first response claims it once', async () => {
    const w = testTool('click', { effects: 'write' });
    const { rig } = await killedRig('tx:never', 1, {
      script: [{ toolCalls: [call('click')] }, { text: 'done' }],
      tools: [w],
    });
    const { threadId, runId } = await rig.submit('q');
    const req = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    rig.engine.kill();
    const b = await rig.reopen();
    const init = b.client.of('initialized')[0];
    const snap = init.snapshots.find((s) => s.thread.threadId === threadId)!;
    expect(snap.run).toMatchObject({
      runId,
      state: 'waiting_approval',
      pendingApproval: { approvalId: req.approvalId, params: {} },
    });
    // New turns only queue while the recovered approval waits; history may not move.
    const sub = await b.client.send({ type: 'turn.submit', threadId, input: { text: 'x' } });
    expect(sub, JSON.stringify(sub)).toMatchObject({ code: 'busy' });
    expect(
      await b.client.send({ type: 'thread.fork', threadId, nodeId: snap.thread.leafId! }),
    ).toMatchObject({ code: 'busy' });
    const [r1, r2] = await Promise.all([
      b.client.send({
        type: 'approval.response',
        approvalId: req.approvalId,
        decision: 'allow_once',
      }),
      b.client.send({ type: 'approval.response', approvalId: req.approvalId, decision: 'deny' }),
    ]);
    // Answers to one request are decided in arrival order (the engine's lanes): allow_once, sent
    // first, claims it; response-order.test.ts pins this with the first answer's digest slowed.
    expect([r1.type, r2.type]).toEqual(['command.ack', 'command.reject']);
    await b.client.waitFor((e) => e.type === 'turn.complete' && e.runId === runId);
    expect(w.runs).toBe(1);
  });

  it('a never-retry write whose outcome is unknown pauses as paused_uncertain; retry re-checks and runs it', async () => {
    const w = testTool('pay', { effects: 'write', recovery: 'never-retry' });
    const { rig, kill } = await killedRig('tool:returned', 1, {
      script: [{ toolCalls: [call('pay')] }, { text: 'paid' }],
      tools: [w],
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://shop.example', rule: 'allow' });
    const { runId } = await rig.submit('pay it');
    await until(() => kill.killed !== null);
    expect(w.runs).toBe(1);
    const b = await rig.reopen();
    const done = (await b.client.waitFor(
      (e) => e.type === 'turn.complete' && e.runId === runId,
    )) as Extract<AgentEvent, { type: 'turn.complete' }>;
    expect(done.stopReason).toBe('paused_uncertain');
    expect((await b.store.runs.get(runId))!.state).toBe('paused_uncertain');
    expect(w.runs).toBe(1);
    const n = b.client.events.length;
    await b.client.ack({ type: 'run.resolveUncertain', runId, resolution: 'retry' });
    await b.client.waitFor((e) => e.type === 'turn.complete' && b.client.events.indexOf(e) >= n);
    expect(w.runs).toBe(2);
    expect((await b.store.runs.get(runId))!.state).toBe('completed');
  });

  it('resolveUncertain mark_done records success; fail ends the run as failed', async () => {
    for (const [resolution, state, ok] of [
      ['mark_done', 'completed', true],
      ['fail', 'failed', false],
    ] as const) {
      const w = testTool('pay', { effects: 'write', recovery: 'never-retry' });
      const { rig, kill } = await killedRig('tool:returned', 1, {
        script: [{ toolCalls: [call('pay')] }, { text: 'ok' }],
        tools: [w],
      });
      await rig.client.ack({
        type: 'siteRules.set',
        origin: 'https://shop.example',
        rule: 'allow',
      });
      const { runId, threadId } = await rig.submit('pay');
      await until(() => kill.killed !== null);
      const b = await rig.reopen();
      await b.client.waitFor((e) => e.type === 'turn.complete' && e.runId === runId);
      const n = b.client.events.length;
      await b.client.ack({ type: 'run.resolveUncertain', runId, resolution });
      await b.client.waitFor((e) => e.type === 'turn.complete' && b.client.events.indexOf(e) >= n);
      expect((await b.store.runs.get(runId))!.state).toBe(state);
      const result = (await b.store.threads.allNodes(threadId)).find(
        (x) => x.item.kind === 'tool_result',
      )!.item as { ok: boolean };
      expect(result.ok).toBe(ok);
      expect(w.runs).toBe(1);
    }
  });

  it('refuses to resume when a tool changed (descriptor digest drift), with a clear notice', async () => {
    const t = testTool('probe', { delayMs: 50 });
    const { rig, kill } = await killedRig('tool:running', 1, {
      script: [{ toolCalls: [call('probe')] }, { text: 'done' }],
      tools: [t],
    });
    const { runId, threadId } = await rig.submit('q');
    await until(() => kill.killed !== null);
    const changed = {
      ...t,
      description: 'A different description now',
      parameters: z.object({ value: z.string().optional(), extra: z.number().optional() }),
    };
    const b = await rig.reopen({ tools: [changed] });
    // Refused during start-up, before any panel connected: the snapshot tells the user.
    const snap = b.client
      .of('initialized')[0]
      .snapshots.find((s) => s.thread.threadId === threadId)!;
    expect(snap.run).toMatchObject({
      runId,
      state: 'failed',
      stopReason: 'error',
      error: { code: 'environment_drift' },
    });
    expect(t.runs).toBe(0);
    const notice = (await b.store.threads.allNodes(threadId)).find((n) => n.item.kind === 'notice')!
      .item as { text: string };
    expect(notice.text).toContain('tool probe changed since the run started');
  });

  it('a rotated key behind the same credential reference does not block a resume', async () => {
    const { verifyEnvironment } = await import('../../../src/engine/env/environment');
    const rig = await makeRig({ script: [{ text: 'x' }] });
    const { runId } = await rig.submit('q');
    await rig.client.turnComplete(runId);
    const env = (await rig.store.runs.get(runId))!.env!;
    const withRef = { ...env, transport: { kind: 'openai', credentialRef: 'provider:p1' } };
    const resolver = (ref: string | undefined) => ({
      resolve: async () => null,
      modelInfo: async () => ({
        id: 'm',
        toolUse: true,
        vision: false,
        contextWindow: 1,
        maxOutputTokens: 1,
      }),
      transportIdentity: async () => ({ kind: 'openai', ...(ref ? { credentialRef: ref } : {}) }),
    });
    expect(
      await verifyEnvironment(withRef, resolver('provider:p1'), rig.registry.snapshot()),
    ).toBeNull();
    expect(
      await verifyEnvironment(withRef, resolver(undefined), rig.registry.snapshot()),
    ).toContain('credential');
  });

  it('queued runs start after recovery, in order', async () => {
    const t = testTool('probe', { delayMs: 30 });
    // The first reply waits until both messages are queued, so the kill (at the tool's start)
    // always comes after them, however loaded the machine is.
    let queued!: () => void;
    const bothQueued = new Promise<void>((r) => (queued = r));
    const first = async () => {
      await bothQueued;
      return { toolCalls: [call('probe')] };
    };
    const { rig, kill } = await killedRig('tool:running', 1, {
      script: [first, { text: 'first' }, { text: 'second' }, { text: 'third' }],
      tools: [t],
    });
    const { threadId } = await rig.submit('one');
    await rig.client.ack({ type: 'turn.enqueue', threadId, input: { text: 'two' } });
    await rig.client.ack({ type: 'turn.enqueue', threadId, input: { text: 'three' } });
    queued();
    await until(() => kill.killed !== null);
    const b = await rig.reopen();
    // (The first recovered turn may finish before this client connects: watch the store.)
    const idle = async () =>
      !(await b.store.runs.current(threadId)) && (await b.store.runs.queued(threadId)).length === 0;
    const end = Date.now() + 15_000;
    while (!(await idle())) {
      if (Date.now() > end) throw new Error('the queue did not drain');
      await sleep(10);
    }
    const users = (
      await b.store.threads.path(threadId, (await b.store.threads.get(threadId))!.leafId)
    )
      .filter((n) => n.item.kind === 'user_message')
      .map((n) => (n.item as { text: string }).text);
    expect(users).toEqual(['one', 'two', 'three']);
  });

  it('bounds the environment snapshot', async () => {
    const { checkSnapshotBounds, EnvironmentError } = await import(
      '../../../src/engine/env/environment'
    );
    const rig = await makeRig({ script: [{ text: 'x' }] });
    const { runId } = await rig.submit('q');
    await rig.client.turnComplete(runId);
    const env = (await rig.store.runs.get(runId))!.env!;
    expect(() => checkSnapshotBounds(env, 100)).toThrow(EnvironmentError);
    const many = {
      ...env,
      toolCatalog: Array.from({ length: 300 }, (_, i) => ({
        ...env.toolCatalog[0],
        name: `t${i}`,
      })),
    };
    expect(() => checkSnapshotBounds(many, 10_000_000)).toThrow(/tools are enabled/);
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 40; i++) deep = (deep.a = {}) as Record<string, unknown>;
    const nested = {
      ...env,
      toolCatalog: [
        {
          ...env.toolCatalog[0],
          descriptor: { ...env.toolCatalog[0].descriptor, inputSchema: root },
        },
      ],
    };
    expect(() => checkSnapshotBounds(nested, 10_000_000)).toThrow(/nested deeper/);
  });
});
