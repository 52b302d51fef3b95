import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, launchExtension, startModelServer } from '../harness';
import type { LaunchedExtension, ModelServer, RecordedRequest, ScriptedReply } from '../harness';
import { installTraps, readTraps } from './dom-audit';
import { DIST, isTitleRequest, serveSites, type Sites } from './support';

/**
 * Issue 9, rendering: an XSS corpus through every place the side panel shows untrusted text —
 * assistant markdown, the user's own message, the thread title (first line, then the model's),
 * the approval card (a page whose <title> is a payload, a URL with a payload in its query), tool
 * cards (parameters and results), the todo card, an ask_user card and a provider error. The real
 * panel UI is driven like a user (composer, approval buttons, tool cards, thread list). Nothing may
 * run: a `window.__xss` trap, dialogs, CSP violation reports, and a DOM audit (recorded for every
 * mutation, not just the end state) of scripts, handlers, javascript:/data: URLs and link attributes.
 */

const TITLE_PAYLOAD = '<img src=x onerror=alert(document.domain)><svg onload=alert(1)>';
const PAGE_TITLE = `<img src=x onerror="window.__xss='page-title'"><script>alert('page-title')</script>Shop`;
const USER_TEXT = [
  // The first line becomes the thread's first title (at most 60 characters are kept).
  '<img src=x onerror=window.__xss=1><script>alert(1)</script>',
  `[click](javascript:window.__xss='user-md') <iframe src="javascript:alert('user-frame')"></iframe>`,
].join('\n');

const MARKDOWN = [
  '# Results <script>window.__xss="md-script"</script>',
  `<img src=x onerror="window.__xss='md-img'">`,
  `<svg onload="window.__xss='md-svg'"><circle r="5"/></svg> <svg><script>window.__xss='svg-script'</script></svg>`,
  `<a href="javascript:window.__xss='html-js-link'">html js link</a> <a href="data:text/html,<script>alert(1)</script>">html data link</a>`,
  `[md js link](javascript:window.__xss='md-js') [md entity](&#106;avascript:alert(1)) [md colon](javascript&colon;alert(1))`,
  '[md data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [md vbscript](vbscript:msgbox(1)) [md spaced]( javascript:alert(1) )',
  '[ref js][evil] and [ref data][evil2] and [ref ok][good]',
  '',
  `[evil]: javascript:window.__xss='ref'`,
  '[evil2]: data:text/html,<script>alert(2)</script>',
  '[good]: https://example.com/ref',
  '',
  '![img js](javascript:alert(1)) ![img svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) ![img http](http://127.0.0.1:9/x.png)',
  `<iframe src="javascript:window.__xss='iframe'"></iframe> <iframe srcdoc="<script>parent.__xss='srcdoc'</script>"></iframe>`,
  '<form action="javascript:alert(1)"><input name=q><button formaction="javascript:alert(2)">Go</button></form>',
  '<style>@import "javascript:alert(1)"; body { display: none }</style>',
  '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)"> <base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  `<details open ontoggle="window.__xss='details'"><summary>x</summary></details>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="window.__xss='mxss'">`,
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  `<a href="https://example.com/ok" onclick="window.__xss='onclick'" target="_self">ok link with a handler</a>`,
  '<div style="background:url(javascript:alert(1))" class="approval-card">a fake approval card</div>',
  '&lt;script&gt;alert("entity")&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;',
  'Autolinks: <javascript:alert(1)> and https://example.com/safe and <https://example.com/auto>',
  '[safe link](https://example.com/docs "a title") and [mail](mailto:a@example.com)',
  '```html\n<script>window.__xss="code"</script>\n```',
  '`<img src=x onerror=alert(1)>` <scr<script>ipt>alert(1)</script>',
  '<a href="  javascript:alert(1)">spaced</a> <a href="JaVaScRiPt:alert(1)">mixed</a> <a href="&#x6A;avascript:alert(1)">hex</a>',
  '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |',
].join('\n\n');

describe('untrusted text rendered by the side panel runs nothing', () => {
  let ext: LaunchedExtension;
  let server: ModelServer;
  let sites: Sites;
  let panel: Page;
  let client: EngineClient;
  let shopTab: number;
  const replies: Array<ScriptedReply | ((r: RecordedRequest) => ScriptedReply)> = [];
  const unscripted: RecordedRequest[] = [];
  const dialogs: string[] = [];
  let titleHang = 0;

  const expectClean = async (where: string) => {
    const traps = await readTraps(panel);
    expect({ where, ...traps }).toEqual({ where, xss: 0, findings: [], csp: [] });
    expect(dialogs).toEqual([]);
  };

  /** Types in the composer like a user (Enter sends) and waits for the turn to end. */
  async function say(text: string, whileRunning?: () => Promise<void>): Promise<void> {
    const from = client.mark();
    await panel.locator('#composer-input').fill(text);
    await panel.locator('#composer-input').press('Enter');
    await whileRunning?.();
    await client.waitForEvent('turn.complete', undefined, 30_000, from);
    await panel.locator('.stop-btn').waitFor({ state: 'detached' });
  }

  /** Opens every tool card so its parameters and result are rendered. */
  async function openToolCards(): Promise<void> {
    for (const summary of await panel.locator('.tool-card summary').all()) {
      if (!(await summary.evaluate((s) => (s.parentElement as HTMLDetailsElement).open)))
        await summary.click();
    }
    await panel.locator('.tool-card details[open] .tool-body').first().waitFor();
  }

  beforeAll(async () => {
    sites = await serveSites();
    server = await startModelServer({
      respond(r) {
        if (isTitleRequest(r))
          return { text: TITLE_PAYLOAD, hangMs: titleHang, hangAfterDeltas: 0 };
        const next = replies.shift();
        if (!next) {
          unscripted.push(r);
          return { text: 'Unscripted.' };
        }
        return typeof next === 'function' ? next(r) : next;
      },
    });
    ext = await launchExtension({ dist: DIST });
    const shop = await ext.context.newPage();
    await shop.goto(`${sites.site.origin}/xss.html`);
    panel = await ext.openPanel();
    await panel.setViewportSize({ width: 400, height: 900 });
    panel.setDefaultTimeout(15_000);
    panel.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await panel.locator('.app-header').waitFor();
    await panel.evaluate(installTraps);
    shopTab = await panel.evaluate(
      async (o) => (await chrome.tabs.query({})).find((t) => t.url?.startsWith(o))!.id!,
      sites.site.origin,
    );
    client = await EngineClient.connect(panel);
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
    await sites?.close();
  });

  it('the audit itself catches planted payloads (so a clean result means something)', async () => {
    const probe = await ext.openPanel();
    await probe.locator('.app-header').waitFor();
    await probe.evaluate(installTraps);
    await probe.evaluate(() => {
      const md = document.createElement('div');
      md.className = 'markdown';
      md.innerHTML =
        '<img src="x" onerror="window.__xss=1"><a href="javascript:void 0">js</a><a href="https://example.com/">no target</a><form></form>';
      document.body.append(md);
    });
    // The img's error event fires asynchronously: wait until the CSP has refused its handler
    // (the moment the handler would have run) and the four traps have reported.
    await expect
      .poll(
        async () => {
          const seen = await readTraps(probe);
          return seen.findings.length >= 4 && seen.csp.some((c) => c.includes('script-src'));
        },
        { timeout: 5_000 },
      )
      .toBe(true);
    const traps = await readTraps(probe);
    await probe.close();
    expect(traps.findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^onerror= on img/),
        expect.stringMatching(/^href="javascript:void 0"/),
        expect.stringMatching(/^link without target=_blank: https:\/\/example.com\//),
        '<form> inside rendered markdown',
      ]),
    );
    // The panel's CSP refused the inline handler, and said so.
    expect(traps.csp.join('\n')).toMatch(/script-src/);
    expect(traps.xss).toBe(0);
  });

  it('assistant markdown, the user message and both thread titles', async () => {
    replies.push({ text: MARKDOWN, chunkChars: 40 });
    titleHang = 2500;
    await say(USER_TEXT, async () => {
      // Until the model's title arrives, the title is the first line of the user's message.
      await expect
        .poll(() => panel.locator('.app-header h1').textContent(), { timeout: 10_000 })
        .toBe(USER_TEXT.split('\n')[0]);
    });
    await expect
      .poll(() => panel.locator('.app-header h1').textContent(), { timeout: 10_000 })
      .toBe(TITLE_PAYLOAD);
    titleHang = 0;

    const md = panel.locator('.msg.assistant .markdown').last();
    // Rendered as text, not markup: the payloads are there to read.
    expect(await md.textContent()).toContain('<script>window.__xss="md-script"</script>');
    expect(await panel.locator('.msg.user').last().textContent()).toContain(
      USER_TEXT.split('\n')[0],
    );
    // Only the safe links kept a target (unsafe ones stay as inert text without href; raw HTML
    // is shown as text), each opening a new tab without an opener.
    const links = await md
      .locator('a[href]')
      .evaluateAll((as) =>
        as.map((a) => [a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]),
      );
    expect(links.map(([h]) => h).sort()).toEqual(
      [
        'https://example.com/auto',
        'https://example.com/docs',
        'https://example.com/ref',
        'https://example.com/safe',
        'mailto:a@example.com',
      ].sort(),
    );
    for (const [, target, rel] of links)
      expect([target, rel]).toEqual(['_blank', 'noopener noreferrer']);
    expect(await md.locator('img').count()).toBe(0);
    await expectClean('markdown');
  });

  it('approval cards and tool cards: a page whose title is a payload, a URL with a payload in its query', async () => {
    const payloadUrl = `${sites.site.origin}/xss.html?q=<script>alert('url')</script>"><img src=x onerror=alert('url')>&r=javascript:alert(1)`;
    replies.push(
      {
        text: 'Reading the shop.',
        toolCalls: [{ name: 'browser_snapshot', args: { tabId: shopTab } }],
      },
      (r) => {
        const ref = /- button "[^\n]*Buy" \[ref=(e\d+)\]/.exec(
          r.raw.replace(/\\n/g, '\n').replace(/\\"/g, '"'),
        )?.[1];
        return ref
          ? { toolCalls: [{ name: 'browser_click', args: { ref, tabId: shopTab } }] }
          : { text: 'no Buy button in the snapshot' };
      },
      { toolCalls: [{ name: 'browser_navigate', args: { url: payloadUrl, tabId: shopTab } }] },
      {
        toolCalls: [
          {
            name: 'todo',
            args: {
              todos: [
                {
                  text: `<img src=x onerror="window.__xss='todo'"> [t](javascript:alert(1))`,
                  status: 'in_progress',
                },
              ],
            },
          },
        ],
      },
      {
        text: 'Done: [the deal](javascript:alert("deal")) and [the shop](https://example.com/shop).',
      },
    );
    const card = panel.locator('.approval-card');
    await say('Look at the shop tab and open the deal.', async () => {
      // 1: the click, on a page whose <title> is a payload.
      await card.waitFor();
      expect(await card.locator('.approval-tool-name').textContent()).toBe('browser_click');
      expect(await card.locator('.approval-page-title').textContent()).toBe(PAGE_TITLE);
      expect(await card.locator('.approval-origin').textContent()).toBe(sites.site.origin);
      await expectClean('approval card (page title)');
      await card.locator('button[data-decision="allow_once"]').click();
      // 2: the navigation to a URL carrying payloads.
      await expect
        .poll(() =>
          card
            .locator('.approval-tool-name')
            .textContent()
            .catch(() => null),
        )
        .toBe('browser_navigate');
      expect(await card.locator('.approval-params pre').textContent()).toContain(
        `"url": ${JSON.stringify(payloadUrl)}`,
      );
      await expectClean('approval card (URL)');
      await card.locator('button[data-decision="allow_once"]').click();
    });
    expect(unscripted).toEqual([]);
    await openToolCards();
    const bodies = (await panel.locator('.tool-card .tool-body').allTextContents()).join('\n');
    expect(bodies).toContain(PAGE_TITLE);
    expect(bodies).toContain("window.__xss='page-text'");
    expect(await panel.locator('.todo-card').textContent()).toContain(`window.__xss='todo'`);
    await expectClean('tool cards');
  });

  it('an ask_user card and a provider error', async () => {
    const q = `<img src=x onerror="window.__xss='ask'"> Which <script>alert('ask')</script>?`;
    replies.push(
      {
        toolCalls: [
          {
            name: 'ask_user',
            args: {
              question: q,
              fields: [
                {
                  id: 'pick',
                  label: `<svg onload=alert('label')>`,
                  type: 'choice',
                  options: [`<img src=x onerror=alert('opt')>`, 'fine'],
                },
              ],
            },
          },
        ],
      },
      { text: 'You declined.' },
    );
    await say('Ask me something.', async () => {
      const ask = panel.locator('.interaction-card');
      await ask.waitFor();
      expect(await ask.locator('.interaction-question').textContent()).toContain(q);
      await expectClean('ask_user card');
      await ask.locator('.approval-actions button:not(.primary)').click();
    });
    replies.push({
      httpStatus: 400,
      errorMessage: `<img src=x onerror="window.__xss='error'"> bad request [x](javascript:alert(1))`,
    });
    await say('One more.');
    await expect
      .poll(() => panel.locator('main.chat').textContent())
      .toContain(`window.__xss='error'`);
    await expectClean('provider error');
  });

  it('the thread list shows the payload titles as text', async () => {
    await panel.locator('[data-action="threads"]').click();
    await panel.locator('.thread-title').first().waitFor();
    expect(await panel.locator('.thread-title').allTextContents()).toContain(TITLE_PAYLOAD);
    await expectClean('thread list');
    expect(client.invalidEvents).toEqual([]);
  });
});
