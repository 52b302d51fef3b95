import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, launchExtension } from './harness';
import type { LaunchedExtension } from './harness';

/**
 * Issue 9 "closed doors", in real Chromium: only the extension's own pages may drive the engine.
 * A web page cannot reach the extension at all, and a script in the content-script world (same
 * extension id, but a web page's URL) is disconnected from the engine Port.
 */
describe('nothing outside the panel can drive the engine', () => {
  let ext: LaunchedExtension;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Evil page</title><h1>Hello</h1>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ext = await launchExtension();
  });

  afterAll(async () => {
    await ext?.close();
    await new Promise((r) => server?.close(r));
  });

  it('a web page has no door: no externally_connectable, sendMessage/connect to Keel fail', async () => {
    const manifest = await (await ext.openPanel()).evaluate(() => chrome.runtime.getManifest());
    expect(manifest).not.toHaveProperty('externally_connectable');
    expect(manifest.content_security_policy).toMatchObject({
      extension_pages: expect.stringContaining("script-src 'self'"),
    });
    const page = await ext.context.newPage();
    await page.goto(`${origin}/`);
    const result = await page.evaluate(async (id) => {
      const rt = (
        globalThis as { chrome?: { runtime?: { sendMessage?: unknown; connect?: unknown } } }
      ).chrome?.runtime;
      if (!rt || typeof rt.sendMessage !== 'function') return 'no runtime';
      try {
        await (rt.sendMessage as (id: string, m: unknown) => Promise<unknown>)(id, {
          type: 'initialize',
          clientId: 'evil',
          submissionId: '1',
        });
        return 'sent';
      } catch (e) {
        return `refused: ${String(e)}`;
      }
    }, ext.extensionId);
    expect(result === 'no runtime' || result.startsWith('refused')).toBe(true);
    await page.close();
  });

  it('a script in the content-script world is disconnected from the engine Port', async () => {
    const page = await ext.context.newPage();
    await page.goto(`${origin}/`);
    const panel = await ext.openPanel();
    // Run a function in the page's ISOLATED world (where content scripts live) from the panel.
    const outcome = await panel.evaluate(async (url) => {
      const [tab] = await chrome.tabs.query({ url: `${url}/*` });
      const [res] = await chrome.scripting.executeScript({
        target: { tabId: tab.id! },
        world: 'ISOLATED',
        func: () =>
          new Promise<string>((resolve) => {
            const port = chrome.runtime.connect({ name: 'engine' });
            let got = 'silence';
            port.onMessage.addListener((m: { type?: string }) => (got = `message:${m.type}`));
            port.onDisconnect.addListener(() => resolve(`disconnected (${got})`));
            try {
              port.postMessage({ type: 'initialize', clientId: 'cs', submissionId: 'x' });
            } catch {
              /* already disconnected */
            }
            setTimeout(() => resolve(got), 1500);
          }),
      });
      return res.result as string;
    }, origin);
    expect(outcome).toBe('disconnected (silence)');
    await page.close();
  });

  it('page postMessage and DOM events reach nothing; the real panel still works', async () => {
    const page = await ext.context.newPage();
    await page.goto(`${origin}/`);
    await page.evaluate(() => {
      window.postMessage({ type: 'initialize', clientId: 'evil', submissionId: 'p' }, '*');
      window.postMessage({ source: 'keel', op: { type: 'thread.create' } }, '*');
      document.dispatchEvent(new CustomEvent('keel', { detail: { type: 'thread.create' } }));
    });
    const client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const init = client.eventsOf('initialized').at(-1)!;
    expect(init.threads).toHaveLength(0);
    await page.close();
  });
});
