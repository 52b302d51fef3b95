import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DIST, EngineClient, launchExtension, startModelServer } from './harness';
import type { LaunchedExtension, ModelServer, ReceivedEvent } from './harness';

// The key transport and storage conformance checks (test/unit/protocol/transport-conformance.ts,
// test/unit/store/store-conformance.ts) against the real thing: a chrome.runtime.Port from the
// panel page to the built extension's service worker, and the browser's own IndexedDB. Only the
// protocol is used (PROTOCOL.md): the page cannot import src/ modules.

type ThreadIdResult = { threadId: string };
type Ack = Extract<ReceivedEvent, { type: 'command.ack' }>;

describe('conformance in Chromium: the real engine Port and the real IndexedDB', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let page: Page;
  let client: EngineClient;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_DIST, 'manifest.json'))) {
      throw new Error(
        `${DEFAULT_DIST} has no build: run \`npm run build\` first (\`npm test\` does).`,
      );
    }
    // Every model request (the turn and any title request) gets the same reply.
    server = await startModelServer({
      respond: () => ({
        text: 'one two three four five six seven eight',
        usage: { inputTokens: 7, outputTokens: 8 },
        delayMs: 5,
      }),
    });
    ext = await launchExtension();
    page = await ext.openPanel();
    client = await EngineClient.connect(page);
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  });

  afterAll(async () => {
    await ext?.close();
    await server?.close();
  });

  describe('the Port', () => {
    it('initialize: the snapshot comes before the ack', async () => {
      const from = client.mark();
      await client.sendOk({ type: 'initialize', subscribe: ['*'] });
      const types = client.events.slice(from).map((e) => e.type);
      expect(types.indexOf('initialized')).toBeGreaterThanOrEqual(0);
      expect(types.indexOf('initialized')).toBeLessThan(types.indexOf('command.ack'));
    });

    it('many ops at once: each gets exactly one answer, and each thread.create ack precedes its announcement', async () => {
      const from = client.mark();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client.send({ type: 'thread.create', title: `burst ${i}` }),
        ),
      );
      expect(answers.every((a) => a.type === 'command.ack')).toBe(true);
      const ids = answers.map((a) => ((a as Ack).result as ThreadIdResult).threadId);
      expect(new Set(ids).size).toBe(12);
      await client.waitFor(
        () =>
          client.eventsOf('thread.updated', from).filter((e) => ids.includes(e.thread.threadId))
            .length === 12,
      );
      const received = client.events.slice(from);
      for (const a of answers)
        expect(
          received.filter((e) => e.type === 'command.ack' && e.submissionId === a.submissionId),
        ).toHaveLength(1);
      for (const [i, id] of ids.entries()) {
        const ackAt = received.indexOf(answers[i]);
        const announcedAt = received.findIndex(
          (e) => e.type === 'thread.updated' && e.thread.threadId === id,
        );
        expect(ackAt).toBeLessThan(announcedAt);
      }
    });

    it('a streamed turn arrives in order: start, deltas that rebuild the text, the committed message, usage, the end', async () => {
      const provider = server.provider('openai', 'scripted');
      await client.sendOk({
        type: 'settings.update',
        patch: {
          providers: [provider],
          defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
        },
      });
      const { threadId } = await client.sendOk<ThreadIdResult>({ type: 'thread.create' });
      const from = client.mark();
      const { turnId, runId } = await client.sendOk<{ turnId: string; runId: string }>({
        type: 'turn.submit',
        threadId,
        input: { text: 'count to eight' },
      });
      await client.waitForEvent('turn.complete', (e) => e.runId === runId, 30_000, from);
      const mine = client.events
        .slice(from)
        .filter((e) => 'threadId' in e && e.threadId === threadId);
      const at = (pred: (e: ReceivedEvent) => boolean) => mine.findIndex(pred);
      const start = at((e) => e.type === 'turn.start' && e.turnId === turnId);
      const assistantStart = at(
        (e) => e.type === 'item.start' && e.item.kind === 'assistant_message',
      );
      const assistantId = (mine[assistantStart] as Extract<ReceivedEvent, { type: 'item.start' }>)
        .item.id;
      const deltas = mine.filter(
        (e): e is Extract<ReceivedEvent, { type: 'item.delta' }> =>
          e.type === 'item.delta' && e.itemId === assistantId,
      );
      const firstDelta = mine.indexOf(deltas[0]);
      const lastDelta = mine.indexOf(deltas[deltas.length - 1]);
      const committed = at((e) => e.type === 'item.complete' && e.item.id === assistantId);
      const usage = at((e) => e.type === 'token.usage');
      const complete = at((e) => e.type === 'turn.complete');
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.map((d) => d.delta.text ?? '').join('')).toBe(
        'one two three four five six seven eight',
      );
      expect([start, assistantStart, firstDelta, lastDelta, committed, usage, complete]).toEqual(
        [...[start, assistantStart, firstDelta, lastDelta, committed, usage, complete]].sort(
          (a, b) => a - b,
        ),
      );
      expect(start).toBeGreaterThanOrEqual(0);
      expect(complete).toBe(mine.length - 1);
      expect(mine[complete]).toMatchObject({ stopReason: 'end', turnId });
    });

    it('a malformed op gets command.reject invalid_command, and the engine keeps serving', async () => {
      const bad = [
        { type: 'thread.create', clientId: client.clientId, submissionId: 'bad-1', title: 42 },
        { type: 'turn.submit', clientId: client.clientId, submissionId: 'bad-2', threadId: 't' },
        { type: 'no.such.op', clientId: client.clientId, submissionId: 'bad-3' },
        { type: 'thread.create', submissionId: 'bad-4' },
      ];
      const from = client.mark();
      for (const b of bad) expect(await client.post(b)).toBe(true);
      for (const b of bad) {
        const reject = await client.waitForEvent(
          'command.reject',
          (e) => e.submissionId === b.submissionId,
          10_000,
          from,
        );
        expect(reject.code).toBe('invalid_command');
        expect(reject.message.length).toBeGreaterThan(0);
      }
      // Garbage without a submissionId is rejected too (with an empty submissionId).
      const garbageFrom = client.mark();
      expect(await client.post('not an object')).toBe(true);
      expect(await client.post(null)).toBe(true);
      await client.waitFor(
        () =>
          client.eventsOf('command.reject', garbageFrom).filter((e) => e.submissionId === '')
            .length === 2,
      );
      expect(
        client.eventsOf('command.reject', garbageFrom).every((e) => e.code === 'invalid_command'),
      ).toBe(true);
      // Still serving.
      expect(
        await client.sendOk<ThreadIdResult>({ type: 'thread.create', title: 'after garbage' }),
      ).toMatchObject({ threadId: expect.any(String) });
      expect(client.connected).toBe(true);
    });

    it('a repeated submissionId replays the first outcome; the same id with another payload is refused', async () => {
      const first = (await client.send({
        type: 'thread.create',
        title: 'replayed',
        submissionId: 'replay-1',
      })) as Ack;
      const again = (await client.send({
        type: 'thread.create',
        title: 'replayed',
        submissionId: 'replay-1',
      })) as Ack;
      expect(first.type).toBe('command.ack');
      expect(again).toEqual(first);
      const other = await client.send({
        type: 'thread.create',
        title: 'something else',
        submissionId: 'replay-1',
      });
      expect(other).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
      const from = client.mark();
      await client.sendOk({ type: 'initialize', subscribe: ['*'] });
      const init = client.eventsOf('initialized', from)[0];
      expect(init.threads.filter((t) => t.title === 'replayed')).toHaveLength(1);
    });

    it("the real Port copies at send time, delivers asynchronously, throws on what it cannot serialize yet stays open, and fires onDisconnect on the other side only (what the unit tests' fake Port mimics)", async () => {
      const result = await page.evaluate(async () => {
        const port = chrome.runtime.connect({ name: 'engine' });
        const received: { type: string; thread?: { title: string }; submissionId?: string }[] = [];
        let ownDisconnect = 0;
        port.onDisconnect.addListener(() => (ownDisconnect += 1));
        port.onMessage.addListener((m: { type: string }) => received.push(m));
        // A connection gets events only once it has initialized (PROTOCOL.md: snapshot, then live events).
        port.postMessage({
          type: 'initialize',
          clientId: 'clone-probe',
          submissionId: `init-${Date.now()}`,
        });
        const op = {
          type: 'thread.create',
          clientId: 'clone-probe',
          submissionId: `clone-${Date.now()}`,
          title: 'as sent',
        };
        // Chrome serializes Port messages like JSON: a cycle throws, and the Port stays usable.
        const cyclic: Record<string, unknown> = { type: 'thread.create' };
        cyclic.self = cyclic;
        let serializeError = '';
        try {
          port.postMessage(cyclic);
        } catch (e) {
          serializeError = String(e);
        }
        port.postMessage(op);
        const syncDelivered = received.length;
        op.title = 'mutated after send';
        const deadline = Date.now() + 10_000;
        while (!received.some((m) => m.type === 'thread.updated') && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        port.disconnect();
        let threw = false;
        try {
          port.postMessage({ type: 'initialize' });
        } catch {
          threw = true;
        }
        await new Promise((r) => setTimeout(r, 100));
        const announced = received.find((m) => m.type === 'thread.updated');
        return {
          syncDelivered,
          title: announced?.thread?.title,
          ownDisconnect,
          threw,
          serializeError,
        };
      });
      expect(result).toEqual({
        syncDelivered: 0,
        title: 'as sent',
        ownDisconnect: 0,
        threw: true,
        serializeError: expect.stringContaining('Could not serialize message'),
      });
    });
  });

  describe('storage in the real IndexedDB, through the protocol', () => {
    it('create, delete and snapshot stay consistent, and survive a service-worker restart', async () => {
      const created: string[] = [];
      for (const title of ['store A', 'store B', 'store C'])
        created.push(
          (await client.sendOk<ThreadIdResult>({ type: 'thread.create', title })).threadId,
        );
      const [a, b, c] = created;
      const from = client.mark();
      await client.sendOk({ type: 'thread.delete', threadId: b });
      await client.waitForEvent('thread.deleted', (e) => e.threadId === b, 10_000, from);
      expect(await client.send({ type: 'thread.delete', threadId: b })).toMatchObject({
        type: 'command.reject',
        code: 'not_found',
      });
      expect(await client.send({ type: 'thread.subscribe', threadId: b })).toMatchObject({
        type: 'command.reject',
        code: 'not_found',
      });

      const check = async () => {
        const mark = client.mark();
        await client.sendOk({ type: 'initialize', subscribe: [a, b, c] });
        const init = client.eventsOf('initialized', mark)[0];
        const ids = init.threads.map((t) => t.threadId);
        expect(ids).toContain(a);
        expect(ids).toContain(c);
        expect(ids).not.toContain(b);
        // One snapshot per requested thread that exists; each matches its meta and is empty.
        expect(init.snapshots.map((s) => s.thread.threadId).sort()).toEqual([a, c].sort());
        for (const s of init.snapshots) {
          expect(s).toMatchObject({ path: [], queue: [], todos: [] });
          expect(s.thread).toEqual(init.threads.find((t) => t.threadId === s.thread.threadId));
          expect(s.thread.leafId).toBeNull();
        }
        expect(init.threads.find((t) => t.threadId === a)!.title).toBe('store A');
        // Threads are listed newest first.
        const updated = init.threads.map((t) => t.updatedAt);
        expect(updated).toEqual([...updated].sort((x, y) => y - x));
        return init;
      };
      await check();

      await ext.stopServiceWorker();
      await client.waitForDisconnect();
      await client.reconnect();
      const init = await check();
      // Other durable state came back from IndexedDB too: settings and the encrypted key.
      expect(init.settings.providers).toContainEqual(
        expect.objectContaining({ id: 'scripted', hasApiKey: true }),
      );
    });

    it('a receipt is durable: replaying a submission after a restart returns the same outcome', async () => {
      const first = (await client.send({
        type: 'thread.create',
        title: 'durable receipt',
        submissionId: 'durable-1',
      })) as Ack;
      await client.sendOk({
        type: 'siteRules.set',
        origin: 'https://rules.example',
        rule: 'block',
      });
      await ext.stopServiceWorker();
      await client.waitForDisconnect();
      await client.reconnect();
      await client.sendOk({ type: 'initialize', subscribe: ['*'] });
      const again = (await client.send({
        type: 'thread.create',
        title: 'durable receipt',
        submissionId: 'durable-1',
      })) as Ack;
      expect(again.type).toBe('command.ack');
      expect(again.result).toEqual(first.result);
      const from = client.mark();
      await client.sendOk({ type: 'initialize', subscribe: ['*'] });
      const init = client.eventsOf('initialized', from)[0];
      expect(init.threads.filter((t) => t.title === 'durable receipt')).toHaveLength(1);
      expect(init.settings.siteRules).toContainEqual(
        expect.objectContaining({ origin: 'https://rules.example', rule: 'block' }),
      );
    });

    it('never sent an invalid event or a secret', () => {
      expect(client.invalidEvents).toEqual([]);
      expect(JSON.stringify(client.events)).not.toContain(
        server.provider('openai', 'scripted').apiKey,
      );
      expect(server.failures).toEqual([]);
    });
  });
});
