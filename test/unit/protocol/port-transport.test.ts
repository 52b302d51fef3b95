import { describe, expect, it } from 'vitest';
import {
  ENGINE_PORT_NAME,
  PortTransport,
  portConnection,
  type AgentEvent,
} from '../../../src/protocol';
import { createPortPair, flushPorts } from './fake-port';

const valid = (text: string): AgentEvent => ({
  type: 'item.delta',
  threadId: 't',
  itemId: 'i',
  delta: { text },
});

describe('the fake chrome.runtime.Port pair', () => {
  it('clones at postMessage time and delivers asynchronously, in order', async () => {
    const { ui, engine } = createPortPair();
    const got: unknown[] = [];
    engine.onMessage.addListener((m) => got.push(m));
    const msg = { n: 1, nested: { v: 'a' } };
    ui.postMessage(msg);
    ui.postMessage({ n: 2 });
    msg.nested.v = 'mutated';
    expect(got).toEqual([]);
    await flushPorts();
    expect(got).toEqual([{ n: 1, nested: { v: 'a' } }, { n: 2 }]);
    expect(got[0]).not.toBe(msg);
  });

  it('disconnect fires onDisconnect on the other side only, after messages in flight', async () => {
    const { ui, engine } = createPortPair();
    const log: string[] = [];
    ui.onDisconnect.addListener(() => log.push('ui disconnected'));
    engine.onDisconnect.addListener(() => log.push('engine disconnected'));
    engine.onMessage.addListener((m) => log.push(`engine got ${String(m)}`));
    ui.postMessage('last words');
    ui.disconnect();
    await flushPorts();
    expect(log).toEqual(['engine got last words', 'engine disconnected']);
  });

  it('postMessage after disconnect throws, on both sides once the peer knows', async () => {
    const { ui, engine } = createPortPair();
    ui.disconnect();
    expect(() => ui.postMessage('x')).toThrow(/disconnected port/);
    await flushPorts();
    expect(() => engine.postMessage('x')).toThrow(/disconnected port/);
  });

  it('postMessage of a value that cannot be cloned throws synchronously', () => {
    const { ui } = createPortPair();
    expect(() => ui.postMessage({ f: () => 1 })).toThrow();
  });

  it("in 'json' mode, copies like Chrome: functions and undefined vanish, BigInt and cycles throw", async () => {
    const { ui, engine } = createPortPair('engine', 'json');
    const got: unknown[] = [];
    engine.onMessage.addListener((m) => got.push(m));
    ui.postMessage({ f: () => 1, u: undefined, m: new Map([[1, 2]]), d: new Date(0), keep: 1 });
    expect(() => ui.postMessage({ b: BigInt(1) })).toThrow('Could not serialize message.');
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => ui.postMessage(cyc)).toThrow('Could not serialize message.');
    ui.postMessage('still open');
    await flushPorts();
    expect(got).toEqual([{ m: {}, d: '1970-01-01T00:00:00.000Z', keep: 1 }, 'still open']);
  });
});

describe('PortTransport', () => {
  it('validateEvents: drops malformed events, reports each one, and keeps delivering valid ones in order', async () => {
    const { ui, engine } = createPortPair(ENGINE_PORT_NAME);
    const invalid: unknown[] = [];
    const t = new PortTransport(ui, {
      validateEvents: true,
      onInvalidEvent: (raw) => invalid.push(raw),
    });
    const events: AgentEvent[] = [];
    t.onEvent((e) => events.push(e));
    const bad = [
      { type: 'item.delta', threadId: 't' }, // missing itemId and delta
      { type: 'no.such.event' },
      'a string',
      null,
      { type: 'command.reject', submissionId: 's', code: 'not_a_code', message: 'm' },
      { type: 'turn.complete', threadId: 't', turnId: 'u', runId: 'r', stopReason: 'done' },
    ];
    engine.postMessage(valid('1'));
    for (const b of bad) engine.postMessage(b);
    engine.postMessage(valid('2'));
    await flushPorts();
    expect(events).toEqual([valid('1'), valid('2')]);
    expect(invalid).toEqual(bad);
  });

  it('validateEvents: strips nothing a valid event carries (extra contract fields survive parsing)', async () => {
    const { ui, engine } = createPortPair();
    const t = new PortTransport(ui, {
      validateEvents: true,
      onInvalidEvent: () => expect.fail('valid event reported'),
    });
    const events: AgentEvent[] = [];
    t.onEvent((e) => events.push(e));
    const ev: AgentEvent = { type: 'item.discarded', threadId: 't', itemId: 'i' };
    const usage: AgentEvent = {
      type: 'token.usage',
      threadId: 't',
      runId: 'r',
      usage: { inputTokens: 1, outputTokens: 2 },
      turnUsage: { inputTokens: 1, outputTokens: 2 },
      costUsd: 0.5,
      threadCostUsd: 1,
    };
    engine.postMessage(ev);
    engine.postMessage(usage);
    await flushPorts();
    expect(events).toEqual([ev, usage]);
  });

  it('without validateEvents, passes messages through as received', async () => {
    const { ui, engine } = createPortPair();
    const t = new PortTransport(ui);
    const events: unknown[] = [];
    t.onEvent((e) => events.push(e));
    engine.postMessage({ type: 'anything', x: 1 });
    await flushPorts();
    expect(events).toEqual([{ type: 'anything', x: 1 }]);
  });

  it('close disconnects the Port (the engine side sees onDisconnect)', async () => {
    const { ui, engine } = createPortPair();
    const t = new PortTransport(ui);
    let engineSaw = 0;
    engine.onDisconnect.addListener(() => (engineSaw += 1));
    t.close();
    expect(ui.disconnected).toBe(true);
    await flushPorts();
    expect(engineSaw).toBe(1);
  });

  it('treats a postMessage that throws because the Port died as a close', async () => {
    const { ui } = createPortPair();
    const t = new PortTransport(ui);
    let closes = 0;
    t.onClose(() => (closes += 1));
    // The Port died without onDisconnect having reached the transport yet.
    ui.disconnect();
    t.send({ type: 'thread.create', clientId: 'c', submissionId: 's' });
    expect(closes).toBe(1);
    t.send({ type: 'thread.create', clientId: 'c', submissionId: 's2' });
    expect(ui.posted).toHaveLength(0);
  });
});

describe('portConnection (engine side)', () => {
  it('forwards ops, delivers events, and reports the UI disconnecting', async () => {
    const { ui, engine } = createPortPair();
    const conn = portConnection(engine);
    const ops: unknown[] = [];
    let closes = 0;
    conn.onOp((o) => ops.push(o));
    conn.onClose(() => (closes += 1));
    const got: unknown[] = [];
    ui.onMessage.addListener((m) => got.push(m));
    ui.postMessage({ type: 'initialize' });
    conn.deliver(valid('x'));
    await flushPorts();
    expect(ops).toEqual([{ type: 'initialize' }]);
    expect(got).toEqual([valid('x')]);
    ui.disconnect();
    await flushPorts();
    expect(closes).toBe(1);
  });

  it('deliver never throws: after a disconnect, and for an event that cannot be posted', async () => {
    const { ui, engine } = createPortPair();
    const conn = portConnection(engine);
    const got: unknown[] = [];
    ui.onMessage.addListener((m) => got.push(m));
    ui.disconnect();
    await flushPorts();
    expect(() => conn.deliver(valid('late'))).not.toThrow();

    const pair2 = createPortPair();
    const conn2 = portConnection(pair2.engine);
    pair2.engine.disconnect(); // the engine's own side died: postMessage throws, deliver swallows it
    expect(() => conn2.deliver(valid('x'))).not.toThrow();
    expect(got).toEqual([]);
  });
});
