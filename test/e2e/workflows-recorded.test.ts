import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModelSettings, startDemoModel } from '../../scripts/demo/model';
import type { ChatServer } from '../../scripts/demo/openai-server';
import { TARGET_PRODUCT_ID } from '../../scripts/demo/shop/catalog';
import { startShop, type ShopServer } from '../../scripts/demo/shop/server';
import type { AgentEvent, RecordingStatus } from '../../src/protocol';
import { EngineClient, launchExtension, runSettles } from './harness';
import type { LaunchedExtension } from './harness';
import {
  axeBothSchemes,
  chooseLanguage,
  PANEL_SIZE,
  screenshot,
  screenshots,
} from './sidepanel/support';

/**
 * Record a workflow by showing it (issue 27), in Chromium against the built extension. The test
 * plays the user with trusted input (Playwright's mouse and keyboard are CDP input events):
 * search the demo shop, open the cheapest USB-C cable, quantity 2, add to cart. Saved through the
 * panel's review, the workflow replays with 0 model requests on the unchanged shop and after a
 * redesign (other ids and classes, products reversed), the cart read from the shop's server.
 * A recorded password is typed into a sign-in page and then looked for everywhere Keel keeps or
 * sends anything: it is nowhere.
 */

type TurnComplete = Extract<AgentEvent, { type: 'turn.complete' }>;
const PASSWORD = 'Corr3ct-Horse-Battery-9';

describe('workflows: recorded by showing them', () => {
  let ext: LaunchedExtension;
  let model: ChatServer;
  let shop: ShopServer;
  let signIn: Server;
  let signInOrigin: string;
  let client: EngineClient;
  let panel: Page;
  let tab: Page;
  let tabId: number;

  beforeAll(async () => {
    shop = await startShop();
    model = await startDemoModel();
    // A sign-in page: its form never leaves the page (the welcome is written by the page).
    signIn = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Sign in</title><main><h1>Sign in</h1>
        <form onsubmit="event.preventDefault(); document.querySelector('#out').textContent = 'Welcome back, ' + this.user.value + '.'">
          <label>Email <input name="user" type="email"></label>
          <label><input name="remember" type="checkbox"> Remember me</label>
          <label>Password <input name="pass" type="password"></label>
          <button>Sign in</button>
        </form><p id="out" role="status"></p></main>`);
    });
    await new Promise<void>((r) => signIn.listen(0, '127.0.0.1', r));
    signInOrigin = `http://127.0.0.1:${(signIn.address() as AddressInfo).port}`;
    ext = await launchExtension();
    panel = await ext.openPanel();
    await panel.setViewportSize(PANEL_SIZE);
    client = await EngineClient.connect(panel);
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    await client.sendOk({
      type: 'settings.update',
      patch: demoModelSettings(model),
    });
    await client.sendOk({ type: 'siteRules.set', origin: shop.origin, rule: 'allow' });
    await client.sendOk({ type: 'siteRules.set', origin: signInOrigin, rule: 'allow' });
    tab = await ext.context.newPage();
    await tab.goto(`${shop.origin}/`);
    tabId = await panel.evaluate(
      async (o) => (await chrome.tabs.query({})).find((t) => t.url?.startsWith(o))!.id!,
      shop.origin,
    );
  });

  afterAll(async () => {
    await ext?.close();
    await model?.close();
    await shop?.close();
    await new Promise((r) => signIn?.close(r));
  });

  /** The recorder arms each new document when it has loaded; a person is slower than that. */
  async function armed(): Promise<void> {
    await tab.waitForLoadState('load');
    await tab.locator('keel-recording').waitFor({ state: 'attached', timeout: 10_000 });
  }

  async function recordingWith(n: number, from: number): Promise<RecordingStatus> {
    const ev = await client.waitForEvent(
      'workflow.recording',
      (e) => (e.recording?.steps.length ?? -1) >= n,
      15_000,
      from,
    );
    return ev.recording!;
  }

  const cartOf = () => shop.cart().items.map((i) => [i.productId, i.quantity]);

  it('records the demo shop task, saves it through the review, replays it with 0 model requests on a redesign', async () => {
    shop.resetCart();
    await tab.bringToFront();
    const from = client.mark();
    const { recordingId } = await client.sendOk<{ recordingId: string }>({
      type: 'workflow.recordStart',
      tabId,
    });
    await armed();
    // The indicator is on the page, and it is not part of what a snapshot reads.
    expect(await tab.locator('keel-recording').count()).toBe(1);

    // The user: search, open the cheapest USB-C cable, quantity 2, add to cart.
    await tab.getByRole('searchbox', { name: 'Search products' }).click();
    await tab.keyboard.type('USB-C cable');
    await tab.keyboard.press('Enter');
    await tab.waitForURL(/\/search\?/);
    await armed();
    await tab.getByRole('link', { name: 'Linkwire Braided USB-C Cable, 0.5 m' }).click();
    await tab.waitForURL(/\/product\//);
    await armed();
    await tab.getByRole('spinbutton', { name: 'Quantity' }).click();
    await tab.keyboard.press('Control+A');
    await tab.keyboard.type('2');
    await tab.getByRole('button', { name: 'Add to cart' }).click();
    await tab.waitForURL(/\/cart\?added=[^&]+&qty=2$/);
    expect(cartOf()).toEqual([[TARGET_PRODUCT_ID, 2]]);
    const live = await recordingWith(4, from);
    expect(live.phase).toBe('recording');
    // The panel while recording: the steps so far, live.
    await panel.bringToFront();
    await panel.locator('[data-action="workflows"]').click();
    await expect.poll(() => panel.locator('.recording-live .workflow-steps li').count()).toBe(4);
    await screenshots(panel, 'workflow-recording-en');
    expect(await axeBothSchemes(panel, 'recording')).toEqual([]);

    const { recording } = await client.sendOk<{ recording: RecordingStatus }>({
      type: 'workflow.recordStop',
      recordingId,
    });
    // Enter in the search field was the submit: the form's default button is not a step.
    expect(recording.steps).toHaveLength(4);
    expect(recording.steps[0]).toMatch(
      /^Type into searchbox "Search products".* "\{\{search_products\}\}" and press Enter$/,
    );
    expect(recording.steps[1]).toMatch(/^Click link "Linkwire Braided USB-C Cable, 0\.5 m"/);
    expect(recording.steps[2]).toMatch(/^Type into spinbutton "Quantity".* "\{\{quantity\}\}"$/);
    expect(recording.steps[3]).toMatch(/^Click button "Add to cart"/);
    expect(recording.inputs).toEqual([
      { name: 'search_products', default: 'USB-C cable' },
      { name: 'quantity', default: '2' },
    ]);
    await tab.waitForLoadState('load');
    expect(await tab.locator('keel-recording').count()).toBe(0);

    // The review in the panel: rename an input, name the workflow, save.
    await panel.bringToFront();
    const review = panel.locator('.recording-review');
    await expect.poll(() => review.locator('.recording-steps li').count()).toBe(4);
    await review.locator('input[data-input="quantity"]').fill('how_many');
    await review.locator('input[data-field="workflow-name"]').fill('Two cables');
    await screenshots(panel, 'workflow-review-en');
    expect(await axeBothSchemes(panel, 'review')).toEqual([]);
    const saved = client.mark();
    await review.locator('[data-action="save-recording"]').click();
    const listed = await client.waitForEvent(
      'workflows.updated',
      (e) => e.workflows.some((w) => w.name === 'Two cables'),
      10_000,
      saved,
    );
    const meta = listed.workflows.find((w) => w.name === 'Two cables')!;
    expect(meta.inputs).toEqual([
      { name: 'search_products', default: 'USB-C cable' },
      { name: 'how_many', default: '2' },
    ]);
    await expect.poll(() => panel.locator('.recording-review').count()).toBe(0);

    for (const remix of [false, true]) {
      shop.configure({ remix });
      shop.resetCart();
      await tab.goto(`${shop.origin}/`);
      await tab.bringToFront();
      if (remix) expect(await tab.content()).toContain('class="rx-products"');
      const before = model.requests.length;
      const mark = client.mark();
      const run = await client.sendOk<{ runId: string; threadId: string }>({
        type: 'workflow.run',
        workflowId: meta.workflowId,
        onDivergence: 'stop',
      });
      const end: TurnComplete = await client.waitForEvent(
        'turn.complete',
        (e) => e.runId === run.runId,
        40_000,
        mark,
      );
      const where = remix ? 'redesigned shop' : 'unchanged shop';
      expect(end.stopReason, `${where}: ${end.error?.message}`).toBe('end');
      expect(model.requests.length - before, where).toBe(0);
      expect(end.workflow, where).toMatchObject({ steps: 4, replayed: 4, modelRequests: 0 });
      expect(end.workflow?.diverged, where).toBeUndefined();
      expect(cartOf(), where).toEqual([[TARGET_PRODUCT_ID, 2]]);
      await runSettles(client, run.threadId, ['completed']);
    }
    shop.configure({});
  }, 180_000);

  it('a recording goes on across a worker stop: the steps before and after it are kept', async () => {
    shop.resetCart();
    await tab.goto(`${shop.origin}/`);
    await tab.bringToFront();
    const { recordingId } = await client.sendOk<{ recordingId: string }>({
      type: 'workflow.recordStart',
      tabId,
    });
    await armed();
    await tab.getByRole('searchbox', { name: 'Search products' }).click();
    await tab.keyboard.type('HDMI');
    await tab.keyboard.press('Enter');
    await tab.waitForURL(/\/search\?/);
    await armed();

    await ext.stopServiceWorker();
    await client.waitForDisconnect();
    // The recording page's Port reconnects at once, which starts the worker again (so does the
    // panel); the new worker finds the recording in session storage. A person takes longer than
    // that restart before the next click.
    await ext.serviceWorkerRunning();
    await tab.getByRole('link', { name: /Clearview HDMI/ }).click();
    await tab.waitForURL(/\/product\//);
    await armed();
    await client.reconnect();
    const init = await client.sendOk<unknown>({ type: 'initialize', subscribe: ['*'] });
    void init;
    const from = client.mark();
    const { recording } = await client.sendOk<{ recording: RecordingStatus }>({
      type: 'workflow.recordStop',
      recordingId,
    });
    expect(recording.steps, JSON.stringify(recording.steps)).toHaveLength(2);
    expect(recording.steps[0]).toMatch(/^Type into searchbox "Search products"/);
    expect(recording.steps[1]).toMatch(/^Click link "Clearview HDMI/);
    await client.sendOk({ type: 'workflow.recordDiscard', recordingId });
    await client.waitForEvent('workflow.recording', (e) => e.recording === null, 10_000, from);
    await tab.waitForLoadState('load');
    expect(await tab.locator('keel-recording').count()).toBe(0);
  }, 120_000);

  it('never keeps a recorded password: not in storage, events, the workflow or its runs', async () => {
    await tab.goto(`${signInOrigin}/`);
    await tab.bringToFront();
    const signInTab = await panel.evaluate(
      async (o) => (await chrome.tabs.query({})).find((t) => t.url?.startsWith(o))!.id!,
      signInOrigin,
    );
    const from = client.mark();
    const { recordingId } = await client.sendOk<{ recordingId: string }>({
      type: 'workflow.recordStart',
      tabId: signInTab,
    });
    await armed();
    await tab.getByRole('textbox', { name: 'Email' }).click();
    await tab.keyboard.type('ada@example.test');
    // A click on a label's text: the checkbox it toggles is the step, once.
    await tab.getByText('Remember me').click();
    await tab.getByLabel('Password').click();
    await tab.keyboard.type(PASSWORD);
    await tab.keyboard.press('Enter');
    await expect
      .poll(() => tab.locator('#out').textContent())
      .toBe('Welcome back, ada@example.test.');
    await recordingWith(3, from);
    // The page's own scripted events are not the user: none of them becomes a step.
    await tab.evaluate(() => {
      const user = document.querySelector('input[name="user"]') as HTMLInputElement;
      user.value = 'page@evil.test';
      user.dispatchEvent(new Event('change', { bubbles: true }));
      user.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      (document.querySelector('h1') as HTMLElement).click();
      document.querySelector('button')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    });
    // The same screens in Simplified Chinese.
    await panel.bringToFront();
    await chooseLanguage(panel, 'zh-CN');
    await panel.locator('[data-action="workflows"]').click();
    await expect.poll(() => panel.locator('.recording-live .workflow-steps li').count()).toBe(3);
    await screenshot(panel, 'workflow-recording-zh');
    const { recording } = await client.sendOk<{ recording: RecordingStatus }>({
      type: 'workflow.recordStop',
      recordingId,
    });
    expect(recording.steps).toHaveLength(3);
    expect(recording.steps[1]).toMatch(/^Click checkbox "Remember me"/);
    expect(JSON.stringify(recording)).not.toContain('evil');
    expect(recording.inputs).toEqual([
      { name: 'email', default: 'ada@example.test' },
      { name: 'password', secret: true },
    ]);
    await panel.locator('.recording-review input[data-field="workflow-name"]').fill('登录');
    await screenshot(panel, 'workflow-review-zh');
    expect(await axeBothSchemes(panel, 'review-zh')).toEqual([]);
    const { workflowId } = await client.sendOk<{ workflowId: string }>({
      type: 'workflow.recordSave',
      recordingId,
      name: 'Sign in',
    });

    // A run needs the password from the user each time; with it, the sign-in works.
    const refused = await client.send({ type: 'workflow.run', workflowId });
    expect(refused).toMatchObject({ type: 'command.reject', code: 'invalid_command' });
    await tab.goto(`${signInOrigin}/`);
    await tab.bringToFront();
    const mark = client.mark();
    const run = await client.sendOk<{ runId: string; threadId: string }>({
      type: 'workflow.run',
      workflowId,
      inputs: { password: 'typed-at-run-time' },
      onDivergence: 'stop',
    });
    const end: TurnComplete = await client.waitForEvent(
      'turn.complete',
      (e) => e.runId === run.runId,
      40_000,
      mark,
    );
    expect(end.stopReason, end.error?.message).toBe('end');
    expect(await tab.locator('#out').textContent()).toBe('Welcome back, ada@example.test.');

    // Everywhere Keel keeps or sends anything: the events, both storage areas, every IndexedDB
    // store of the extension, an export of the run's thread, what the model was sent.
    const kept = await panel.evaluate(async () => {
      const dump: unknown[] = [
        await chrome.storage.session.get(null),
        await chrome.storage.local.get(null),
      ];
      for (const info of await indexedDB.databases()) {
        const db = await new Promise<IDBDatabase>((res, rej) => {
          const r = indexedDB.open(info.name!);
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
        for (const name of Array.from(db.objectStoreNames)) {
          const rows = await new Promise<unknown[]>((res, rej) => {
            const r = db.transaction(name).objectStore(name).getAll();
            r.onsuccess = () => res(r.result);
            r.onerror = () => rej(r.error);
          });
          dump.push(rows);
        }
        db.close();
      }
      return JSON.stringify(dump);
    });
    const exported = await client.sendOk<unknown>({
      type: 'thread.export',
      threadId: run.threadId,
    });
    const everything = [
      kept,
      JSON.stringify(client.events),
      JSON.stringify(exported),
      JSON.stringify(model.requests),
    ];
    for (const text of everything) expect(text.includes(PASSWORD)).toBe(false);
    // The scan is not blind: the email typed beside it is kept (it is the input's default).
    expect(kept.includes('ada@example.test')).toBe(true);
  }, 180_000);
});
