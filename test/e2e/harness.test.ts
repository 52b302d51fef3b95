import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, launchExtension, startModelServer } from './harness';
import type { LaunchedExtension, ModelServer } from './harness';

// The harness itself, against whatever service worker the build has: these hold for the
// placeholder worker and for the engine alike (both answer a new Port once it says `initialize`).

const initialize = (client: EngineClient) =>
  client.post({
    type: 'initialize',
    clientId: client.clientId,
    submissionId: `init-${client.connection}`,
  });

describe('e2e harness', () => {
  let ext: LaunchedExtension;
  beforeAll(async () => {
    ext = await launchExtension();
  });
  afterAll(async () => {
    await ext?.close();
  });

  it('launches Chromium with the extension and finds its worker and id', async () => {
    expect(ext.extensionId).toMatch(/^[a-p]{32}$/);
    expect(ext.worker.url()).toMatch(new RegExp(`^chrome-extension://${ext.extensionId}/`));
    expect(await ext.worker.evaluate(() => chrome.runtime.id)).toBe(ext.extensionId);
  });

  it('opens the side panel page as a tab', async () => {
    const page = await ext.openPanel();
    expect(page.url()).toBe(ext.url('sidepanel/index.html'));
    expect(await page.evaluate(() => typeof chrome.runtime.connect)).toBe('function');
    await page.close();
  });

  it('connects an engine Port from the panel page and records what the worker sends', async () => {
    const page = await ext.openPanel();
    const client = await EngineClient.connect(page);
    expect(client.connected).toBe(true);
    expect(client.connection).toBe(1);
    await initialize(client);
    await client.waitFor(() => true);
    expect(client.events.length).toBeGreaterThan(0);
    await client.disconnect();
    expect(client.connected).toBe(false);
    await page.close();
  });

  it('stops the worker: the Port disconnects, a stopped worker stops again at once, and a reconnect wakes it', async () => {
    const page = await ext.openPanel();
    const client = await EngineClient.connect(page);
    await initialize(client);
    await client.waitFor(() => true);

    await ext.stopServiceWorker();
    const marker = await client.waitForDisconnect();
    expect(marker).toEqual({ type: 'port.disconnected', connection: 1 });
    expect(client.connected).toBe(false);
    await expect(client.send({ type: 'thread.create' })).rejects.toThrow(
      'the Port is not connected',
    );

    const started = Date.now();
    await ext.stopServiceWorker();
    expect(Date.now() - started).toBeLessThan(2_000);

    await client.reconnect();
    expect(client.connection).toBe(2);
    const mark = client.mark();
    await initialize(client);
    await client.waitFor((ev) => ev.type !== 'port.disconnected', 10_000, mark);
    expect(await ext.worker.evaluate(() => chrome.runtime.id)).toBe(ext.extensionId);
    await page.close();
  });

  it('lets the service worker reach a model server on 127.0.0.1', async () => {
    let server: ModelServer | undefined;
    try {
      server = await startModelServer({ script: [{ text: 'pong' }] });
      const body = await ext.worker.evaluate(async (url) => {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }),
        });
        return res.json();
      }, server.url);
      expect(body).toMatchObject({ choices: [{ message: { content: 'pong' } }] });
      expect(server.requests[0].body).toMatchObject({ messages: [{ content: 'ping' }] });
    } finally {
      await server?.close();
    }
  });

  it('can stop the worker in the middle of a hanging model stream', async () => {
    let server: ModelServer | undefined;
    try {
      server = await startModelServer({ script: [{ text: 'one two three', hangMs: 30_000 }] });
      await ext.worker.evaluate((url) => {
        // Left running on purpose: the stop below is what ends it.
        void fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({
            model: 'm',
            stream: true,
            messages: [{ role: 'user', content: 'x' }],
          }),
        }).then((res) => res.text());
      }, server.url);
      const request = await server.waitForRequest(1);
      await ext.stopServiceWorker();
      await expect.poll(() => request.aborted, { timeout: 5_000 }).toBe(true);
    } finally {
      await server?.close();
    }
  });

  it('removes the profile directory on close', async () => {
    const other = await launchExtension();
    expect(existsSync(other.profileDir)).toBe(true);
    await other.close();
    expect(existsSync(other.profileDir)).toBe(false);
    await other.close();
  });
});
