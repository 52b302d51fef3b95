// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { EngineClient, type ConnectionStatus } from '../../../sidepanel/state/engine-client';
import { backoffDelay } from '../../../sidepanel/state/backoff';
import { FakeEngine, ManualTimers } from './helpers/fake-engine';
import { settings } from './helpers/fixtures';

function setup() {
  const engine = new FakeEngine();
  const timers = new ManualTimers();
  let n = 0;
  const client = new EngineClient({
    connect: engine.connect,
    clientId: 'client-A',
    newSubmissionId: () => `sub-${++n}`,
    setTimer: timers.set,
    clearTimer: timers.clear,
    random: () => 0,
  });
  const statuses: ConnectionStatus[] = [];
  client.onStatus((s) => statuses.push(s));
  client.start();
  const initialize = () =>
    engine.current.emit({ type: 'initialized', threads: [], snapshots: [], settings: settings() });
  return { engine, timers, client, statuses, initialize };
}

describe('EngineClient', () => {
  it('initializes every connection with the stable clientId and subscribe ["*"]', () => {
    const { engine, initialize, client } = setup();
    const init = engine.current.last('initialize');
    expect(init).toMatchObject({ type: 'initialize', clientId: 'client-A', subscribe: ['*'] });
    expect(init.submissionId).toBeTruthy();
    initialize();
    expect(client.getStatus()).toBe('open');
  });

  it('resolves each op with its own ack or reject, matched by submissionId', async () => {
    const { engine, client, initialize } = setup();
    initialize();
    const a = client.send({ type: 'thread.create' });
    const b = client.send({ type: 'thread.delete', threadId: 't1' });
    const [opA, opB] = [
      engine.current.ops('thread.create')[0],
      engine.current.ops('thread.delete')[0],
    ];
    expect(opA.clientId).toBe('client-A');
    expect(opA.submissionId).not.toBe(opB.submissionId);
    engine.current.reject(opB, 'busy', 'running');
    engine.current.ack(opA, { threadId: 't9' });
    await expect(a).resolves.toEqual({ ok: true, result: { threadId: 't9' } });
    await expect(b).resolves.toEqual({ ok: false, code: 'busy', message: 'running' });
  });

  it('ignores answers it did not ask for (another panel, or a replay already taken)', async () => {
    const { engine, client, initialize } = setup();
    initialize();
    const p = client.send({ type: 'thread.create' });
    const op = engine.current.last('thread.create');
    engine.current.emit({ type: 'command.ack', submissionId: 'someone-else' });
    engine.current.ack(op, { threadId: 'x' });
    engine.current.ack(op, { threadId: 'y' });
    await expect(p).resolves.toEqual({ ok: true, result: { threadId: 'x' } });
    expect(client.pendingCount()).toBe(0);
  });

  it('on disconnect: reconnects with backoff, re-initializes, and resends unacked ops with the same submissionId', async () => {
    const { engine, timers, client, statuses, initialize } = setup();
    initialize();
    const acked = client.send({ type: 'thread.create' });
    engine.current.ack(engine.current.last('thread.create'), { threadId: 't1' });
    await acked;
    const pending = client.send({ type: 'turn.submit', threadId: 't1', input: { text: 'hello' } });
    const original = engine.current.last('turn.submit');

    engine.current.drop();
    expect(client.getStatus()).toBe('reconnecting');
    expect(engine.transports).toHaveLength(1);
    timers.runAll();
    expect(engine.transports).toHaveLength(2);

    const second = engine.current;
    expect(second.sent.map((o) => o.type)).toEqual(['initialize', 'turn.submit']);
    const resent = second.last('turn.submit');
    expect(resent.submissionId).toBe(original.submissionId);
    expect(resent).toEqual(original);
    expect(second.ops('thread.create')).toHaveLength(0); // acked ops are never resent

    initialize();
    expect(client.getStatus()).toBe('open');
    second.ack(resent, { turnId: 'u1', runId: 'r1' });
    await expect(pending).resolves.toEqual({ ok: true, result: { turnId: 'u1', runId: 'r1' } });
    expect(statuses).toEqual(['open', 'reconnecting', 'open']);
  });

  it('holds ops sent while disconnected and sends them after the next initialize', () => {
    const { engine, timers, client, initialize } = setup();
    initialize();
    engine.current.drop();
    void client.send({ type: 'turn.interrupt', threadId: 't1' });
    expect(engine.transports[0].ops('turn.interrupt')).toHaveLength(0);
    timers.runAll();
    expect(engine.current.sent.map((o) => o.type)).toEqual(['initialize', 'turn.interrupt']);
  });

  it('keeps retrying while the worker stays down, with growing delays', () => {
    const { engine, timers } = setup();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      engine.current.drop();
      delays.push(...timers.runAll());
    }
    expect(engine.transports).toHaveLength(6);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]);
    expect(backoffDelay(50)).toBeLessThanOrEqual(5000);
  });

  it('survives a transport whose connect throws', () => {
    const timers = new ManualTimers();
    let calls = 0;
    const engine = new FakeEngine();
    const client = new EngineClient({
      connect: () => {
        if (++calls === 1) throw new Error('Extension context invalidated');
        return engine.connect();
      },
      clientId: 'c',
      setTimer: timers.set,
      clearTimer: timers.clear,
    });
    client.start();
    expect(client.getStatus()).toBe('reconnecting');
    timers.runAll();
    expect(engine.current.last('initialize')).toBeTruthy();
  });
});
