import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EngineClient,
  isTitleRequest,
  launchExtension,
  restartWorker,
  runSettles,
  startModelServer,
} from './harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from './harness';

/**
 * Recovery in real Chromium (issue 3 §4): the service worker is stopped with CDP at the worst
 * moments, the panel page reconnects, and each run must end exactly as if nothing had happened.
 */

const isTitle = isTitleRequest;
const mainRequests = (s: ModelServer) => s.requests.filter((r) => !isTitle(r));
const bodyText = (r: RecordedRequest) => JSON.stringify(r.body);

describe('recovery after Chrome stops the service worker', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let client: EngineClient;
  /** Per-test reply logic for non-title requests (by how many the server has seen). */
  let script: (n: number, r: RecordedRequest) => ScriptedReply = () => ({ text: 'ok' });
  // Two small sites on loopback: the shop (allowed) and another origin (asks for approval).
  let site: Server;
  let other: Server;
  let shop = '';
  let elsewhere = '';
  let slowHits = 0;

  beforeAll(async () => {
    server = await startModelServer({
      respond: (r) => (isTitle(r) ? { text: 'A title' } : script(mainRequests(server).length, r)),
    });
    site = createServer((req, res) => {
      if (req.url === '/order' && req.method === 'POST') {
        slowHits += 1;
        res.writeHead(204);
        res.end();
        return;
      }
      // "Place order" records the order, then keeps updating the page for 5 s, so the click's
      // bounded settle is still running when the test stops the worker.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Shop</title><h1>Shop</h1><button id="b">Place order</button><ol id="log"></ol>
<script>b.onclick=()=>{fetch('/order',{method:'POST'});let n=0;const t=setInterval(()=>{const li=document.createElement('li');li.textContent='step '+(++n);log.append(li);if(n>100)clearInterval(t);},50);};</script>`);
    });
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Elsewhere</title><h1>Landing</h1>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    shop = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const provider = server.provider('openai', 'scripted');
    await client.sendOk({
      type: 'settings.update',
      patch: {
        providers: [provider],
        defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
      },
    });
  });

  afterAll(async () => {
    await ext?.close();
    await server?.close();
    await new Promise((r) => site?.close(r));
    await new Promise((r) => other?.close(r));
  });

  /** Open the shop in a tab and make it the active tab (a turn's tools target the active tab). */
  async function openShop(): Promise<Page> {
    const tab = await ext.context.newPage();
    await tab.goto(`${shop}/`);
    await tab.bringToFront();
    return tab;
  }

  it('(a) during a streaming model call: the call is redone from the checkpoint', async () => {
    script = (n) =>
      n === 1
        ? { text: 'this first answer streams slowly and will be cut off by the stop', delayMs: 150 }
        : { text: 'The recovered answer.' };
    const before = mainRequests(server).length;
    script = (
      (base) => (n: number, r: RecordedRequest) =>
        base(n - before, r)
    )(script);
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'tell me something' },
    });
    await client.waitForEvent('item.delta', (e) => e.threadId === threadId, 10_000);
    await restartWorker(ext, client);
    const snap = await runSettles(client, threadId, ['completed', 'failed']);
    expect(snap.run).toMatchObject({ runId, state: 'completed', stopReason: 'end' });
    expect(snap.path.map((i) => i.kind)).toEqual(['user_message', 'assistant_message']);
    expect(snap.path[1]).toMatchObject({ text: 'The recovered answer.' });
    const mine = mainRequests(server).slice(before);
    expect(mine).toHaveLength(2);
    expect(mine[1].body.messages).toEqual(mine[0].body.messages);
  });

  it('(b) while a question waits for the user: it is shown again and the answer completes the turn', async () => {
    const before = mainRequests(server).length;
    script = (n) =>
      n - before === 1
        ? { toolCalls: [{ name: 'ask_user', args: { question: 'Which size do you want?' } }] }
        : { text: 'Size noted.' };
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'order a shirt' },
    });
    const req = await client.waitForEvent(
      'interaction.request',
      (e) => e.threadId === threadId,
      15_000,
    );
    await restartWorker(ext, client);
    const snap = await runSettles(client, threadId, ['waiting_interaction']);
    expect(snap.run?.pendingInteraction).toMatchObject({
      interactionId: req.interactionId,
      kind: 'ask_user',
      payload: { question: 'Which size do you want?' },
    });
    await client.sendOk({
      type: 'interaction.response',
      interactionId: req.interactionId,
      response: { answer: 'Medium' },
    });
    const done = await runSettles(client, threadId, ['completed', 'failed']);
    expect(done.run).toMatchObject({ runId, state: 'completed' });
    const mine = mainRequests(server).slice(before);
    expect(mine).toHaveLength(2);
    expect(bodyText(mine[1])).toContain('The user answered: Medium');
  });

  it('(b) while an approval is pending: the request is shown again and the approved write runs once', async () => {
    const before = mainRequests(server).length;
    script = (n) =>
      n - before === 1
        ? { toolCalls: [{ name: 'browser_navigate', args: { url: `${elsewhere}/landing` } }] }
        : { text: 'Navigated.' };
    const tab = await openShop();
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'go to the other site' },
    });
    const req = await client.waitForEvent(
      'approval.request',
      (e) => e.threadId === threadId,
      15_000,
    );
    expect(req).toMatchObject({
      tool: { name: 'browser_navigate', effects: 'write' },
      target: { origin: elsewhere },
    });
    await restartWorker(ext, client);
    const snap = await runSettles(client, threadId, ['waiting_approval']);
    expect(snap.run?.pendingApproval).toMatchObject({
      approvalId: req.approvalId,
      params: { url: `${elsewhere}/landing` },
    });
    await client.sendOk({
      type: 'approval.response',
      approvalId: req.approvalId,
      decision: 'allow_once',
    });
    const done = await runSettles(client, threadId, ['completed', 'failed']);
    expect(done.run).toMatchObject({ runId, state: 'completed' });
    expect(tab.url()).toBe(`${elsewhere}/landing`);
    await tab.close();
  });

  it('(d) during a never-retry write: paused as uncertain, never run twice, resolved by the user', async () => {
    await client.sendOk({ type: 'siteRules.set', origin: shop, rule: 'allow' });
    const before = mainRequests(server).length;
    const refOf = (r: RecordedRequest, name: string) =>
      new RegExp(`"${name}" \\[ref=([a-z0-9]+)\\]`).exec(bodyText(r).replace(/\\"/g, '"'))?.[1];
    script = (n, r) => {
      const k = n - before;
      if (k === 1) return { toolCalls: [{ name: 'browser_snapshot', args: {} }] };
      if (k === 2)
        return {
          toolCalls: [
            { name: 'browser_click', args: { ref: refOf(r, 'Place order') ?? 'missing' } },
          ],
        };
      return { text: 'Order handled.' };
    };
    const tab = await openShop();
    slowHits = 0;
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'place the order' },
    });
    await client.waitForEvent(
      'item.complete',
      (e) =>
        e.threadId === threadId &&
        e.item.kind === 'tool_call' &&
        e.item.name === 'browser_click' &&
        e.item.state === 'executing',
      20_000,
    );
    // The order has reached the shop: the click landed and its settle is running.
    await expect.poll(() => slowHits, { timeout: 10_000, interval: 20 }).toBe(1);
    await restartWorker(ext, client);
    const snap = await runSettles(client, threadId, ['paused_uncertain', 'completed', 'failed']);
    expect(snap.run).toMatchObject({
      runId,
      state: 'paused_uncertain',
      uncertainToolCallId: expect.any(String),
    });
    expect(snap.path.at(-1)).toMatchObject({ kind: 'notice', code: 'paused_uncertain' });
    await client.sendOk({ type: 'run.resolveUncertain', runId, resolution: 'mark_done' });
    const done = await runSettles(client, threadId, ['completed', 'failed']);
    expect(done.run).toMatchObject({ runId, state: 'completed' });
    expect(slowHits).toBe(1);
    await tab.close();
  });

  it('(c) right after a steer is acknowledged: the steer is not lost and not duplicated', async () => {
    const before = mainRequests(server).length;
    script = (n) =>
      n - before === 1
        ? { text: 'a slow answer that the user interrupts with a steer right now', delayMs: 200 }
        : { text: 'Taking your note into account.' };
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const { runId, turnId } = await client.sendOk<{ runId: string; turnId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'plan a trip' },
    });
    await client.waitForEvent('item.delta', (e) => e.threadId === threadId, 10_000);
    await client.sendOk({
      type: 'turn.steer',
      threadId,
      expectedTurnId: turnId,
      input: { text: 'STEER: prefer trains' },
    });
    await restartWorker(ext, client);
    const snap = await runSettles(client, threadId, ['completed', 'failed']);
    expect(snap.run).toMatchObject({ runId, state: 'completed' });
    const steered = snap.path.filter((i) => i.kind === 'user_message' && i.steered);
    expect(steered).toHaveLength(1);
    expect(steered[0]).toMatchObject({ text: 'STEER: prefer trains' });
    const mine = mainRequests(server).slice(before);
    const last = bodyText(mine.at(-1)!);
    expect(last.split('STEER: prefer trains').length - 1).toBe(1);
  });
});
