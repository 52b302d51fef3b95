import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../harness';
import {
  axeBothSchemes,
  backToChat,
  chooseLanguage,
  openPanelSession,
  openSettings,
  screenshots,
  typeAndPress,
  waitIdle,
  type PanelSession,
} from './support';

/**
 * Issue 19 through the real UI in Chromium, with both languages, screenshots and axe on each
 * screen: first-run onboarding, one-line tool summaries and the folded reads, the approval
 * sentence, the skill card, the Export button (Markdown and JSON, redacted, with approvals and
 * durations), and thread search by message text with each thread's cost.
 */

const SHOP = `<!doctype html><html lang="en"><title>Shop: product</title>
<h1>Oat milk</h1>
<label>Quantity <input type="number" name="qty" value="1"></label>
<button type="button" onclick="document.querySelector('output').textContent = 'Added ' + document.querySelector('input').value">Add to cart</button>
<output></output>
<p><a href="/cart">Cart</a></p></html>`;

const SKILL = `---
name: gift-wrap
description: Wraps presents in recycled paper and writes the card.
---
Use recycled paper. Write a short card.`;

const KEY = 'sk-e2e-onboarding-secret';

/** The ref the snapshot gave an element, read from the tool result the model received. */
function refOf(r: RecordedRequest, role: string, name: string): string {
  // The newest mention: tool descriptions (sent before the messages) carry example refs.
  const m = [
    ...r.raw.matchAll(new RegExp(`${role} \\\\"${name}\\\\" \\[ref=([\\w-]+)\\]`, 'g')),
  ].at(-1);
  if (!m) throw new Error(`no ${role} "${name}" in the request: ${r.raw.slice(-600)}`);
  return m[1];
}

describe('side panel: summaries, skills, export, onboarding, search', () => {
  let s: PanelSession;
  let site: Server;
  let origin: string;
  let port: number;
  let tabId: number;
  const a11y: string[] = [];

  beforeAll(async () => {
    site = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        req.url === '/cart'
          ? '<!doctype html><html lang="en"><title>Shop: cart</title><h1>Your cart</h1></html>'
          : SHOP,
      );
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    port = (site.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    s = await openPanelSession();
    s.titles.push(
      [/basket/, 'Oat milk order'],
      [/wrap/, 'Gift for Sam'],
      [/test message/, 'Setup check'],
    );
    const shop = await s.ext.context.newPage();
    await shop.goto(`${origin}/product`);
    await s.page.bringToFront();
    tabId = await s.page.evaluate(
      async (o) => (await chrome.tabs.query({})).find((t) => t.url?.startsWith(o))!.id!,
      origin,
    );
  });

  afterAll(async () => {
    await s?.close();
    await new Promise((r) => site?.close(r));
  });

  it('first run: choose a provider, paste a key, pick a model, send a test message', async () => {
    const { page } = s;
    const guide = page.locator('.onboarding');
    await guide.waitFor();
    await screenshots(page, 'onboarding-en');
    a11y.push(...(await axeBothSchemes(page, 'onboarding')));
    // A local Ollama: no key needed, and how to let the extension in (OLLAMA_ORIGINS).
    await guide.locator('input[value="local"]').check();
    await guide.locator('[data-action="onboard-next"]').click();
    await expect
      .poll(() => guide.locator('#onboard-url').inputValue())
      .toBe('http://localhost:11434/v1');
    const note = await guide.locator('.onboard-note').textContent();
    expect(note).toContain('OLLAMA_ORIGINS=chrome-extension://');
    expect(note).toContain(new URL(page.url()).host);
    await screenshots(page, 'onboarding-ollama-en');
    a11y.push(...(await axeBothSchemes(page, 'onboarding-ollama')));

    await chooseLanguage(page, 'zh-CN');
    await backToChat(page);
    await guide.waitFor();
    expect(await guide.locator('h2').textContent()).toBe('欢迎使用 Keel');
    await guide.locator('input[value="local"]').check();
    await guide.locator('[data-action="onboard-next"]').click();
    await guide.locator('.onboard-note').waitFor();
    await screenshots(page, 'onboarding-ollama-zh');
    a11y.push(...(await axeBothSchemes(page, 'onboarding-zh')));
    await chooseLanguage(page, 'en');
    await backToChat(page);

    // The real setup: an OpenAI-compatible endpoint (the scripted server).
    await guide.locator('input[value="compatible"]').check();
    await guide.locator('[data-action="onboard-next"]').click();
    await guide.locator('#onboard-preset').selectOption('custom');
    await guide.locator('#onboard-url').fill(s.server.baseURL('openai'));
    await guide.locator('#onboard-key').fill(KEY);
    await guide.locator('[data-action="onboard-next"]').click();
    await guide.locator('#onboard-model').fill('gpt-4o-mini');
    await guide.locator('[data-action="onboard-next"]').click();
    await guide.locator('[data-action="onboard-test"]').waitFor();
    await screenshots(page, 'onboarding-test-en');
    s.replies.push({ text: 'Hello! I can hear you.' });
    await guide.locator('[data-action="onboard-test"]').click();
    await expect
      .poll(async () => (await page.locator('.msg.assistant').last().textContent())?.trim())
      .toBe('Hello! I can hear you.');
    expect(await page.locator('.onboarding').count()).toBe(0);
    const sent = s.turnRequests().at(-1)!;
    expect(sent.raw).toContain('test message');
    expect(sent.auth).toBe('bearer');
    await waitIdle(page);
  });

  it('tool cards name their targets, reads fold, and the approval card says what will happen', async () => {
    const { page } = s;
    await page.locator('[data-action="new-thread"]').click();
    s.replies.push(
      {
        text: 'Let me look.',
        toolCalls: [{ name: 'browser_snapshot', args: { tabId } }],
        usage: { inputTokens: 20_000, outputTokens: 300 },
      },
      { toolCalls: [{ name: 'browser_find', args: { query: 'Quantity', tabId } }] },
      { toolCalls: [{ name: 'browser_get_text', args: { tabId } }] },
      (r) => ({
        toolCalls: [
          {
            name: 'browser_type',
            args: { ref: refOf(r, 'spinbutton', 'Quantity'), text: '2', tabId },
          },
        ],
      }),
      (r) => ({
        toolCalls: [
          { name: 'browser_click', args: { ref: refOf(r, 'button', 'Add to cart'), tabId } },
        ],
      }),
      { toolCalls: [{ name: 'browser_navigate', args: { url: `${origin}/cart`, tabId } }] },
      {
        text: 'Two oat milks are in your cart.',
        usage: { inputTokens: 30_000, outputTokens: 200 },
      },
    );
    await typeAndPress(page, 'Put two of these in my basket please');
    const card = page.locator('.approval-card');
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('.approval-sentence').textContent()).toBe('Type “2” into Quantity');
    expect(await card.locator('.approval-sentence em').allTextContents()).toEqual([
      '2',
      'Quantity',
    ]);
    // The raw parameters are one click away.
    const raw = card.locator('details.approval-params');
    expect(await raw.getAttribute('open')).toBeNull();
    expect(await raw.locator('pre').textContent()).toContain('"text": "2"');
    await screenshots(page, 'approval-summary-en');
    a11y.push(...(await axeBothSchemes(page, 'approval-summary')));
    await card.locator('[data-decision="allow_site"]').click();
    await expect
      .poll(async () => (await page.locator('.msg.assistant').last().textContent())?.trim(), {
        timeout: 20_000,
      })
      .toBe('Two oat milks are in your cart.');
    await waitIdle(page);

    const lines = await page.locator('.messages .tool-line').allTextContents();
    expect(lines).toEqual([
      'Read the page 3 times',
      'Typed “2” into Quantity',
      'Clicked Add to cart',
      `Opened 127.0.0.1:${port}/cart`,
    ]);
    await screenshots(page, 'tool-summaries-en');
    await page.locator('.reads-fold > summary').click();
    await expect
      .poll(() => page.locator('.reads-fold-body .tool-line').allTextContents())
      .toEqual([
        'Read the page “Shop: product”',
        'Looked for “Quantity” (2 found)',
        'Read the page’s text',
      ]);
    await screenshots(page, 'tool-summaries-open-en');
    a11y.push(...(await axeBothSchemes(page, 'tool-summaries')));

    await chooseLanguage(page, 'zh-CN');
    await backToChat(page);
    expect(await page.locator('.messages > .row .tool-line').allTextContents()).toContain(
      '在 Quantity 中输入了“2”',
    );
    await screenshots(page, 'tool-summaries-zh');
    // Another site asks again, in Chinese.
    s.replies.push(
      {
        toolCalls: [
          { name: 'browser_navigate', args: { url: `http://localhost:${port}/cart`, tabId } },
        ],
      },
      { text: '好的，不打开。' },
    );
    await typeAndPress(page, '打开 localhost 的购物车');
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('.approval-sentence').textContent()).toBe(
      `打开 localhost:${port}/cart`,
    );
    expect(await card.locator('details.approval-params summary').textContent()).toBe('原始参数');
    await screenshots(page, 'approval-summary-zh');
    a11y.push(...(await axeBothSchemes(page, 'approval-summary-zh')));
    await card.locator('[data-decision="deny"]').click();
    await waitIdle(page);
    await chooseLanguage(page, 'en');
    await backToChat(page);
  });

  it('a skill gets its own card: its name and what it is for', async () => {
    const { page } = s;
    await openSettings(page);
    await page
      .locator('.settings-view input[type="file"]')
      .setInputFiles({ name: 'SKILL.md', mimeType: 'text/markdown', buffer: Buffer.from(SKILL) });
    await page.locator('[data-skill="gift-wrap"]').waitFor();
    await backToChat(page);
    await page.locator('[data-action="new-thread"]').click();
    // A new thread's options need the thread: send first, then enable the skill for the next turn.
    s.replies.push({ text: 'Happy to. Shall I use your wrapping skill?' });
    await typeAndPress(page, 'Please wrap the gift for Sam');
    await waitIdle(page);
    await page.locator('.thread-options > summary').click();
    await page.locator('.skill-toggles label', { hasText: 'gift-wrap' }).locator('input').check();
    await page.locator('.thread-options > summary').click();
    s.replies.push(
      { toolCalls: [{ name: 'get_skill', args: { name: 'gift-wrap' } }] },
      { text: 'Wrapped in recycled paper, with a card.' },
    );
    await typeAndPress(page, 'Yes, use it');
    await waitIdle(page);
    const skill = page.locator('.skill-card');
    await skill.waitFor();
    expect(await skill.locator('.skill-name').textContent()).toBe('gift-wrap');
    expect(await skill.locator('.skill-desc').textContent()).toBe(
      'Wraps presents in recycled paper and writes the card.',
    );
    expect(await page.locator('.tool-card').count()).toBe(0);
    await screenshots(page, 'skill-card-en');
    a11y.push(...(await axeBothSchemes(page, 'skill-card')));
    await chooseLanguage(page, 'zh-CN');
    await backToChat(page);
    expect(await skill.locator('.skill-kind').textContent()).toBe('技能');
    await screenshots(page, 'skill-card-zh');
    await chooseLanguage(page, 'en');
    await backToChat(page);
  });

  it('Export downloads readable Markdown and complete JSON, redacted, with approvals and durations', async () => {
    const { page } = s;
    await page
      .locator('.thread-row .thread-open')
      .first()
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await page.locator('[data-action="threads"]').click();
    await page
      .locator('.thread-row', { hasText: 'Oat milk order' })
      .locator('.thread-open')
      .click();
    await page.locator('[data-action="export"]').click();
    await page.locator('.export-pop').waitFor();
    await screenshots(page, 'export-en');
    a11y.push(...(await axeBothSchemes(page, 'export')));

    const [md] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-export="md"]').click(),
    ]);
    expect(md.suggestedFilename()).toBe('keel-Oat-milk-order.md');
    const markdown = readFileSync((await md.path())!, 'utf8');
    expect(markdown).toContain('# Oat milk order');
    expect(markdown).toContain('Put two of these in my basket please');
    expect(markdown).toMatch(/- Typed “2” into Quantity \(`browser_type`\) — ok · \d+\.\d s · you/);
    expect(markdown).toMatch(
      /- Clicked Add to cart \(`browser_click`\) — ok · \d+\.\d s · site rules \(not asked\)/,
    );
    expect(markdown).toMatch(
      new RegExp(
        `\\| \`browser_type\` \\| http://127\\.0\\.0\\.1:${port} \\| Always allow on this site \\| you \\| \\d+\\.\\d s \\|`,
      ),
    );
    expect(markdown).toMatch(/\| `browser_navigate` \| http:\/\/localhost:\d+ \| Deny \| you \|/);

    const [js] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-export="json"]').click(),
    ]);
    const text = readFileSync((await js.path())!, 'utf8');
    const exported = JSON.parse(text) as {
      approvals: Array<Record<string, unknown>>;
      steps: Array<Record<string, unknown>>;
    };
    expect(
      exported.approvals.map((a) => [a.tool, a.decision, a.scope ?? null, a.decidedBy]),
    ).toEqual([
      ['browser_type', 'allow_site', 'site', 'user'],
      ['browser_navigate', 'deny', null, 'user'],
    ]);
    expect(
      exported.steps
        .filter((st) => st.kind === 'tool_call')
        .every((st) => typeof st.durationMs === 'number'),
    ).toBe(true);
    for (const out of [markdown, text]) expect(out).not.toContain(KEY);

    await chooseLanguage(page, 'zh-CN');
    await backToChat(page);
    await page.locator('[data-action="export"]').click();
    await page.locator('.export-pop').waitFor();
    expect(await page.locator('[data-export="md"]').getAttribute('aria-label')).toBe(
      '导出为 Markdown（便于阅读）',
    );
    await screenshots(page, 'export-zh');
    await page.keyboard.press('Escape');
    await page.locator('.export-pop').waitFor({ state: 'hidden' });
    await chooseLanguage(page, 'en');
    await backToChat(page);
  });

  it('the thread list finds threads by what was said and shows what each cost', async () => {
    const { page } = s;
    await page.locator('[data-action="threads"]').click();
    const search = page.locator('#thread-search');
    await search.fill('recycled paper');
    // Only in the messages (the title is "Gift for Sam"): found by the engine's text search.
    await expect
      .poll(() => page.locator('.thread-row .thread-title').allTextContents())
      .toEqual(['Gift for Sam']);
    expect(await page.locator('.thread-snippet').first().textContent()).toContain('recycled paper');
    await search.fill('oat milk');
    await expect
      .poll(() => page.locator('.thread-row .thread-title').allTextContents())
      .toEqual(['Oat milk order']);
    expect(
      await page.locator('.thread-row .thread-cost [aria-hidden]').first().textContent(),
    ).toMatch(/^\$0\.\d+$/);
    await screenshots(page, 'thread-search-en');
    a11y.push(...(await axeBothSchemes(page, 'thread-search')));
    await search.fill('');
    await chooseLanguage(page, 'zh-CN');
    await page
      .locator('[data-action="threads"]')
      .click()
      .catch(() => undefined);
    await backToChat(page);
    await page.locator('[data-action="threads"]').click();
    await page.locator('#thread-search').fill('recycled');
    await expect
      .poll(() => page.locator('.thread-row .thread-title').allTextContents())
      .toEqual(['Gift for Sam']);
    await screenshots(page, 'thread-search-zh');
    a11y.push(...(await axeBothSchemes(page, 'thread-search-zh')));
    await chooseLanguage(page, 'en');
    expect(a11y).toEqual([]);
    expect(s.unscripted).toEqual([]);
  });
});
