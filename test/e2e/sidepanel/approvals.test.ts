import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addProviderThroughUi,
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  isTitleRequest,
  openPanelSession,
  openSettings,
  screenshots,
  typeAndPress,
  waitIdle,
  type PanelSession,
} from './support';

/**
 * Approval cards through the real UI: the model calls browser_navigate on a page served from
 * 127.0.0.1 (a write on a site not allowed yet asks), and the user answers with the card's buttons
 * or the keyboard: allow once, deny (Esc), always allow on this site, deny and stop.
 */

describe('side panel: approvals', () => {
  let s: PanelSession;
  let site: Server;
  let origin: string;
  let sitePage: Page;
  let tabId: number;

  /** The model's call: open `path` of the test site in the test tab. */
  const navigate = (path: string) => ({
    name: 'browser_navigate',
    args: { url: `${origin}${path}`, tabId },
  });
  const card = () => s.page.locator('.approval-card');
  const lastTool = () => s.page.locator('.tool-card').last();
  const lastText = async () =>
    (await s.page.locator('.msg.assistant').last().textContent())?.trim();

  beforeAll(async () => {
    site = createServer((req, res) => {
      const name = (req.url ?? '/').slice(1) || 'start';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Shop: ${name}</title><h1>${name}</h1>`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

    s = await openPanelSession();
    s.titles.push([/shop/, 'Shop errands']);
    sitePage = await s.ext.context.newPage();
    await sitePage.goto(`${origin}/start`);
    await s.page.bringToFront();
    tabId = await s.page.evaluate(
      async (o) => (await chrome.tabs.query({})).find((t) => t.url?.startsWith(o))!.id!,
      origin,
    );
    await addProviderThroughUi(s.page, s.server);
    // Count the approval cards that ever appear (one may come and go between two checks).
    await s.page.evaluate(() => {
      const w = window as unknown as { approvalsSeen: Set<string> };
      w.approvalsSeen = new Set();
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.approval-card'))
          w.approvalsSeen.add(el.getAttribute('data-approval-id') ?? '');
      }).observe(document.body, { subtree: true, childList: true });
    });
  });

  afterAll(async () => {
    await s?.close();
    await new Promise((r) => site?.close(r));
  });

  const approvalsSeen = () =>
    s.page.evaluate(() => (window as unknown as { approvalsSeen: Set<string> }).approvalsSeen.size);

  /** Fail fast, with the reason, when the build offers the model no browser_navigate. */
  let toolsMissing = false;
  async function requireBrowserTools(fromRequest: number): Promise<void> {
    if (toolsMissing)
      throw new Error('browser_navigate is not registered in this build (see the first test)');
    let req = await s.server.waitForRequest(fromRequest + 1, 15_000);
    if (isTitleRequest(req)) req = await s.server.waitForRequest(fromRequest + 2, 15_000);
    const offered = (
      (req.body as { tools?: Array<{ function?: { name?: string } }> }).tools ?? []
    ).map((t) => t.function?.name);
    if (!offered.includes('browser_navigate')) {
      toolsMissing = true;
      throw new Error(
        `browser_navigate is not offered to the model (tools: ${offered.join(', ')}): installBrowserTools in src/background/browser-wiring.ts registers nothing yet`,
      );
    }
  }

  it('asks before navigating; the card takes focus, Enter on it does nothing, Tab + Enter allows once', async () => {
    const { page } = s;
    s.replies.push({ text: 'Opening the cart.', toolCalls: [navigate('/cart')] }, (r) =>
      r.raw.includes('Opened')
        ? { text: 'The cart is open.' }
        : { text: `no navigation result: ${r.raw.slice(-300)}` },
    );
    const sent = s.server.requests.length;
    await typeAndPress(page, 'Open my shop cart');
    await requireBrowserTools(sent);
    await card().waitFor({ timeout: 15_000 });
    expect(await card().locator('.approval-title').textContent()).toContain('Open URL');
    expect(await card().locator('.approval-origin').textContent()).toBe(origin);
    expect(await card().locator('.approval-params pre').textContent()).toContain(`${origin}/cart`);
    expect(
      await card()
        .locator('button[data-decision]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-decision'))),
    ).toEqual(['allow_once', 'allow_site', 'deny', 'deny_stop']);
    expect(await lastTool().getAttribute('data-state')).toBe('approval_required');
    // Focus is on the card itself, not on a button.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.classList.contains('approval-card')))
      .toBe(true);
    await screenshots(page, 'approval-en');
    expect(await axeBothSchemes(page, 'approval')).toEqual([]);

    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    expect(await card().count()).toBe(1);
    expect(sitePage.url()).toBe(`${origin}/start`);

    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      if (
        await page.evaluate(
          () => document.activeElement?.getAttribute('data-decision') === 'allow_once',
        )
      )
        break;
    }
    await page.keyboard.press('Enter');
    await card().waitFor({ state: 'detached' });
    await expect.poll(() => lastText()).toBe('The cart is open.');
    expect(await lastTool().getAttribute('data-state')).toBe('result');
    expect(sitePage.url()).toBe(`${origin}/cart`);
    expect(s.unscripted).toEqual([]);
  });

  it('Esc denies: the card shows Rejected and the model is told', async () => {
    const { page } = s;
    s.replies.push({ toolCalls: [navigate('/checkout')] }, (r) =>
      /denied|rejected/i.test(r.raw)
        ? { text: 'Understood, I will not open the checkout.' }
        : { text: 'denial missing' },
    );
    if (toolsMissing)
      throw new Error('browser_navigate is not registered in this build (see the first test)');
    await typeAndPress(page, 'Go to the checkout');
    await card().waitFor({ timeout: 15_000 });
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.classList.contains('approval-card')))
      .toBe(true);
    await page.keyboard.press('Escape');
    await card().waitFor({ state: 'detached' });
    await expect.poll(() => lastText()).toBe('Understood, I will not open the checkout.');
    expect(await lastTool().getAttribute('data-state')).toBe('rejected');
    expect(await lastTool().locator('.tool-state').textContent()).toBe('Rejected');
    expect(sitePage.url()).toBe(`${origin}/cart`);
  });

  it('"Always allow on this site" runs it and stops asking there; revoking in Settings asks again', async () => {
    const { page } = s;
    s.replies.push(
      { toolCalls: [navigate('/orders')] },
      { toolCalls: [navigate('/orders/42')] },
      { text: 'Order 42 is open.' },
    );
    const seen = await approvalsSeen();
    if (toolsMissing)
      throw new Error('browser_navigate is not registered in this build (see the first test)');
    await typeAndPress(page, 'Show my latest order');
    await card().waitFor({ timeout: 15_000 });
    await card().getByRole('button', { name: 'Always allow on this site' }).click();
    await expect.poll(() => lastText(), { timeout: 15_000 }).toBe('Order 42 is open.');
    await waitIdle(page);
    // One question for two navigations on the same site.
    expect((await approvalsSeen()) - seen).toBe(1);
    expect(sitePage.url()).toBe(`${origin}/orders/42`);
    expect(
      await page
        .locator('.tool-card')
        .evaluateAll((els) => els.slice(-2).map((e) => e.getAttribute('data-state'))),
    ).toEqual(['result', 'result']);

    await openSettings(page);
    const rule = page.locator(`.site-rules li[data-origin="${origin}"]`);
    expect(await rule.locator('select').inputValue()).toBe('allow');
    await rule.getByRole('button', { name: 'Revoke' }).click();
    await rule.waitFor({ state: 'detached' });
    await backToChat(page);

    s.replies.push({ toolCalls: [navigate('/orders/43')] }, { text: 'Order 43 is open.' });
    await typeAndPress(page, 'And the one before');
    await card().waitFor({ timeout: 15_000 });
    await card().getByRole('button', { name: 'Allow once' }).click();
    await expect.poll(() => lastText(), { timeout: 15_000 }).toBe('Order 43 is open.');
    expect(sitePage.url()).toBe(`${origin}/orders/43`);
  });

  it('"Deny and stop" ends the turn without calling the model again; the card reads in 简体中文 too', async () => {
    const { page } = s;
    await chooseLanguage(page, 'zh-CN');
    await backToChat(page);
    s.replies.push({ text: '我来打开付款页面。', toolCalls: [navigate('/pay')] });
    const before = s.turnRequests().length;
    if (toolsMissing)
      throw new Error('browser_navigate is not registered in this build (see the first test)');
    await typeAndPress(page, '帮我付款');
    await card().waitFor({ timeout: 15_000 });
    expect(await card().getByRole('button').allTextContents()).toEqual([
      '允许一次',
      '在此网站上始终允许',
      '拒绝',
      '拒绝并停止',
    ]);
    await screenshots(page, 'approval-zh');
    expect(await axeBothSchemes(page, 'approval-zh')).toEqual([]);
    await card().getByRole('button', { name: '拒绝并停止' }).click();
    await card().waitFor({ state: 'detached' });
    await waitIdle(page);
    await expect.poll(() => lastTool().getAttribute('data-state')).toBe('rejected');
    await page.waitForTimeout(300);
    expect(s.turnRequests().length - before).toBe(1);
    expect(sitePage.url()).toBe(`${origin}/orders/43`);
    await screenshots(page, 'approval-denied-zh');
    await chooseLanguage(page, 'en');
    expect(s.unscripted).toEqual([]);
  });
});
