import { describe, expect, it } from 'vitest';
import type {
  AgentEvent,
  EngineConnection,
  EngineEndpoint,
  EngineTransport,
  EventOf,
} from '../../../src/protocol';
import { makeRig } from '../engine/harness';

/**
 * One conformance suite for every EngineTransport (STYLE.md §5): DirectTransport in unit tests,
 * PortTransport over a chrome.runtime.Port in the extension. Whatever carries the objects, the
 * UI and the engine must observe the same contract (src/protocol/transport.ts):
 * order is kept, objects are cloned, a close is seen by both sides, ops after a close are dropped,
 * listeners unsubscribe, and a real Engine answers through it.
 */

export interface TransportUnderTest {
  /** The UI side. */
  transport: EngineTransport;
  /** Simulate the engine side going away (the service worker stopped). */
  closeFromEngine(): void;
}

/** Build a transport connected to `endpoint` (the transport must call `endpoint.connect` once). */
export type MakePair = (endpoint: EngineEndpoint) => TransportUnderTest;

/** An engine stand-in that records what each connection receives. */
interface RecordedConnection {
  conn: EngineConnection;
  ops: unknown[];
  closes: number;
}

function recordingEndpoint(): { endpoint: EngineEndpoint; connections: RecordedConnection[] } {
  const connections: RecordedConnection[] = [];
  return {
    connections,
    endpoint: {
      connect(conn) {
        const rec: RecordedConnection = { conn, ops: [], closes: 0 };
        conn.onOp((op) => rec.ops.push(op));
        conn.onClose(() => (rec.closes += 1));
        connections.push(rec);
      },
    },
  };
}

/** A valid event (PortTransport may validate) carrying a marker. */
function delta(n: number | string): EventOf<'item.delta'> {
  return { type: 'item.delta', threadId: 'thr', itemId: 'item', delta: { text: String(n) } };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Poll until `check` holds (deliveries are asynchronous on every transport). */
async function until(check: () => boolean, what: string, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
}

/** Give in-flight deliveries every chance to land (for asserting that something did NOT arrive). */
const quiet = () => sleep(30);

function collect(t: EngineTransport): AgentEvent[] {
  const events: AgentEvent[] = [];
  t.onEvent((ev) => events.push(ev));
  return events;
}

function op(type: string, n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type, clientId: 'ui', submissionId: `s${n}`, ...extra };
}

export function transportConformance(name: string, makePair: MakePair): void {
  describe(`transport conformance: ${name}`, () => {
    function setup() {
      const rec = recordingEndpoint();
      const pair = makePair(rec.endpoint);
      expect(rec.connections).toHaveLength(1);
      return { ...pair, engine: rec.connections[0] };
    }

    describe('ordering', () => {
      it('delivers ops to the engine in the order they were sent', async () => {
        const { transport, engine } = setup();
        for (let i = 0; i < 100; i++) transport.send(op('thread.create', i));
        await until(() => engine.ops.length === 100, '100 ops');
        expect(engine.ops.map((o) => (o as { submissionId: string }).submissionId)).toEqual(
          Array.from({ length: 100 }, (_, i) => `s${i}`),
        );
      });

      it('delivers events to every listener in the order the engine emitted them, across bursts', async () => {
        const { transport, engine } = setup();
        const a = collect(transport);
        const b = collect(transport);
        let n = 0;
        for (let burst = 0; burst < 5; burst++) {
          for (let i = 0; i < 40; i++) engine.conn.deliver(delta(n++));
          await sleep(burst % 2); // bursts separated by nothing, or by a macrotask
        }
        await until(() => a.length === 200 && b.length === 200, '200 events');
        const texts = (evs: AgentEvent[]) =>
          evs.map((e) => (e as EventOf<'item.delta'>).delta.text);
        const expected = Array.from({ length: 200 }, (_, i) => String(i));
        expect(texts(a)).toEqual(expected);
        expect(texts(b)).toEqual(expected);
      });

      it('never delivers synchronously (a listener is not re-entered from send or deliver)', async () => {
        const { transport, engine } = setup();
        const events = collect(transport);
        transport.send(op('thread.create', 1));
        engine.conn.deliver(delta(1));
        expect(engine.ops).toHaveLength(0);
        expect(events).toHaveLength(0);
        await until(() => engine.ops.length === 1 && events.length === 1, 'deliveries');
      });
    });

    describe('structured-clone isolation', () => {
      it('an op mutated by the UI after send reaches the engine as it was sent', async () => {
        const { transport, engine } = setup();
        const sent = op('turn.submit', 1, {
          threadId: 't',
          input: { text: 'original', images: [] },
        });
        transport.send(sent);
        (sent.input as { text: string }).text = 'mutated';
        (sent as { threadId: string }).threadId = 'other';
        await until(() => engine.ops.length === 1, 'the op');
        const got = engine.ops[0] as typeof sent;
        expect(got).not.toBe(sent);
        expect(got).toMatchObject({ threadId: 't', input: { text: 'original', images: [] } });
      });

      it('an event mutated by the engine after deliver reaches the UI as it was delivered', async () => {
        const { transport, engine } = setup();
        const events = collect(transport);
        const ev = delta('before');
        engine.conn.deliver(ev);
        ev.delta.text = 'after';
        await until(() => events.length === 1, 'the event');
        expect(events[0]).not.toBe(ev);
        expect(events[0]).toEqual(delta('before'));
      });

      it('the receiver mutating its copy does not reach back to the sender', async () => {
        const { transport, engine } = setup();
        const events = collect(transport);
        const ev = delta('kept');
        engine.conn.deliver(ev);
        await until(() => events.length === 1, 'the event');
        (events[0] as EventOf<'item.delta'>).delta.text = 'changed by the UI';
        expect(ev.delta.text).toBe('kept');

        const sent = op('thread.create', 1, { title: 'kept' });
        transport.send(sent);
        await until(() => engine.ops.length === 1, 'the op');
        (engine.ops[0] as { title: string }).title = 'changed by the engine';
        expect(sent.title).toBe('kept');
      });

      it('send never throws, even for a value that cannot be cloned', () => {
        const { transport } = setup();
        expect(() =>
          transport.send({ ...op('thread.create', 1), fn: () => 1 } as Record<string, unknown>),
        ).not.toThrow();
      });

      it('an op that cannot be serialized does not close the transport: later ops still arrive', async () => {
        const { transport, engine } = setup();
        let closed = false;
        transport.onClose(() => (closed = true));
        const cyclic: Record<string, unknown> = op('thread.create', 1);
        cyclic.self = cyclic;
        transport.send(cyclic);
        transport.send({ ...op('thread.create', 2), big: BigInt(1) } as Record<string, unknown>);
        transport.send(op('thread.create', 3));
        await until(
          () => engine.ops.some((o) => (o as { submissionId?: string }).submissionId === 's3'),
          'the op after the unserializable ones',
        );
        expect(closed).toBe(false);
      });
    });

    describe('close', () => {
      it('closing the UI side tells the engine once and the UI once', async () => {
        const { transport, engine } = setup();
        let uiCloses = 0;
        transport.onClose(() => (uiCloses += 1));
        transport.close();
        transport.close(); // idempotent
        await until(() => engine.closes === 1 && uiCloses === 1, 'both close callbacks');
        await quiet();
        expect(engine.closes).toBe(1);
        expect(uiCloses).toBe(1);
      });

      it('the engine side going away tells the UI once', async () => {
        const { transport, closeFromEngine } = setup();
        let uiCloses = 0;
        transport.onClose(() => (uiCloses += 1));
        closeFromEngine();
        await until(() => uiCloses === 1, 'the UI close callback');
        await quiet();
        expect(uiCloses).toBe(1);
      });

      it('drops ops sent after the UI closed, without throwing', async () => {
        const { transport, engine } = setup();
        transport.send(op('thread.create', 1));
        await until(() => engine.ops.length === 1, 'the first op');
        transport.close();
        expect(() => transport.send(op('thread.create', 2))).not.toThrow();
        await quiet();
        expect(engine.ops).toHaveLength(1);
      });

      it('drops ops sent after the engine went away, without throwing', async () => {
        const { transport, engine, closeFromEngine } = setup();
        let closed = false;
        transport.onClose(() => (closed = true));
        closeFromEngine();
        await until(() => closed, 'the close');
        expect(() => transport.send(op('thread.create', 1))).not.toThrow();
        await quiet();
        expect(engine.ops).toHaveLength(0);
      });

      it('drops events delivered after a close (the engine may keep emitting), without throwing', async () => {
        const { transport, engine } = setup();
        const events = collect(transport);
        engine.conn.deliver(delta(1));
        await until(() => events.length === 1, 'the first event');
        transport.close();
        await until(() => engine.closes === 1, 'the engine close');
        expect(() => engine.conn.deliver(delta(2))).not.toThrow();
        await quiet();
        expect(events).toHaveLength(1);
      });

      it('no event listener runs after the UI closed, even for events already in flight', async () => {
        const { transport, engine } = setup();
        const events = collect(transport);
        engine.conn.deliver(delta('in flight'));
        transport.close();
        await quiet();
        expect(events).toHaveLength(0);
      });
    });

    describe('listeners', () => {
      it('onEvent returns an unsubscribe that stops that listener only', async () => {
        const { transport, engine } = setup();
        const kept: AgentEvent[] = [];
        const dropped: AgentEvent[] = [];
        transport.onEvent((e) => kept.push(e));
        const off = transport.onEvent((e) => dropped.push(e));
        engine.conn.deliver(delta(1));
        await until(() => kept.length === 1 && dropped.length === 1, 'first event');
        off();
        engine.conn.deliver(delta(2));
        await until(() => kept.length === 2, 'second event');
        await quiet();
        expect(dropped).toHaveLength(1);
      });

      it('a listener unsubscribed before an in-flight event arrives does not get it', async () => {
        const { transport, engine } = setup();
        const got: AgentEvent[] = [];
        const off = transport.onEvent((e) => got.push(e));
        engine.conn.deliver(delta(1));
        off();
        await quiet();
        expect(got).toHaveLength(0);
      });

      it('onClose returns an unsubscribe', async () => {
        const { transport, closeFromEngine } = setup();
        let a = 0;
        let b = 0;
        transport.onClose(() => (a += 1));
        const off = transport.onClose(() => (b += 1));
        off();
        closeFromEngine();
        await until(() => a === 1, 'the close');
        expect(b).toBe(0);
      });
    });

    describe('a real Engine behind the transport', () => {
      async function engineClient() {
        const rig = await makeRig();
        const pair = makePair(rig.engine);
        const events = collect(pair.transport);
        let n = 0;
        const answer = async (o: Record<string, unknown>, submissionId = `c${++n}`) => {
          const from = events.length;
          pair.transport.send({ clientId: 'conformance', submissionId, ...o });
          const find = () =>
            events
              .slice(from)
              .find(
                (e) =>
                  (e.type === 'command.ack' || e.type === 'command.reject') &&
                  e.submissionId === submissionId,
              );
          await until(() => find() !== undefined, `the answer to ${String(o.type)}`, 10_000);
          return find() as EventOf<'command.ack'> | EventOf<'command.reject'>;
        };
        return { rig, events, answer, ...pair };
      }

      it('answers initialize with a snapshot first, then the ack', async () => {
        const { events, answer } = await engineClient();
        const ack = await answer({ type: 'initialize', subscribe: ['*'] });
        expect(ack).toMatchObject({ type: 'command.ack', submissionId: 'c1' });
        const init = events.findIndex((e) => e.type === 'initialized');
        expect(init).toBeGreaterThanOrEqual(0);
        expect(init).toBeLessThan(events.indexOf(ack));
        expect(events[init]).toMatchObject({
          type: 'initialized',
          threads: [],
          snapshots: [],
          settings: { approvalMode: 'ask' },
        });
      });

      it('answers thread.create with the new id, announces the thread and serves a snapshot of it', async () => {
        const { events, answer } = await engineClient();
        await answer({ type: 'initialize', subscribe: ['*'] });
        const created = await answer({ type: 'thread.create', title: 'Over the wire' });
        expect(created.type).toBe('command.ack');
        const { threadId } = (created as EventOf<'command.ack'>).result as { threadId: string };
        expect(threadId).toEqual(expect.any(String));
        await until(
          () => events.some((e) => e.type === 'thread.updated' && e.thread.threadId === threadId),
          'thread.updated',
        );
        expect(events.find((e) => e.type === 'thread.updated')).toMatchObject({
          thread: { threadId, title: 'Over the wire', leafId: null },
        });

        expect(await answer({ type: 'thread.subscribe', threadId })).toMatchObject({
          type: 'command.ack',
        });
        const snap = events.find((e) => e.type === 'thread.snapshot') as EventOf<'thread.snapshot'>;
        expect(snap.snapshot).toMatchObject({
          thread: { threadId },
          path: [],
          queue: [],
          todos: [],
        });
      });

      it('rejects a malformed op with invalid_command and keeps serving', async () => {
        const { answer } = await engineClient();
        expect(await answer({ type: 'thread.create', title: 42 })).toMatchObject({
          type: 'command.reject',
          code: 'invalid_command',
        });
        expect(await answer({ type: 'no.such.op' })).toMatchObject({
          type: 'command.reject',
          code: 'invalid_command',
        });
        expect(await answer({ type: 'thread.create' })).toMatchObject({ type: 'command.ack' });
      });

      it('replays the first outcome for a repeated submissionId', async () => {
        const { answer, rig } = await engineClient();
        const first = (await answer(
          { type: 'thread.create', title: 'once' },
          'same',
        )) as EventOf<'command.ack'>;
        const second = (await answer(
          { type: 'thread.create', title: 'once' },
          'same',
        )) as EventOf<'command.ack'>;
        expect(second).toEqual(first);
        expect((await rig.store.threads.list()).filter((t) => t.title === 'once')).toHaveLength(1);
        expect(await answer({ type: 'thread.create', title: 'different' }, 'same')).toMatchObject({
          type: 'command.reject',
          code: 'invalid_command',
        });
      });

      it('stops sending to a client that closed (the engine keeps serving others)', async () => {
        const { rig, events, answer, transport } = await engineClient();
        await answer({ type: 'initialize', subscribe: ['*'] });
        transport.close();
        await quiet();
        const before = events.length;
        // Another client (the rig's own) still gets answers and events.
        const { threadId } = await rig.client.ack<{ threadId: string }>({ type: 'thread.create' });
        await rig.client.waitFor(
          (e) => e.type === 'thread.updated' && e.thread.threadId === threadId,
        );
        await quiet();
        expect(events.length).toBe(before);
      });
    });
  });
}
