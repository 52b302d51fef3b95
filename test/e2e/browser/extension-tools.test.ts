/**
 * The browser tools end to end inside a real extension: ChromeBrowserHost (tabs, scripting,
 * messaging, debugger, capture), the production content script (manifest and on-demand
 * injection), refs across frames, L2 trusted input and dialogs, approval targets.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolTarget } from '../../../src/tools/types';
import { launchWithExtension } from './support/chromium';
import { FIXTURE_DIR } from './support/page-harness';
import { serveFixtureSite } from './support/server';
import { buildTestExtension } from './support/test-extension';

interface RunResult {
  ok: boolean;
  error?: string;
  content?: Array<{ type: string; text?: string; mimeType?: string }>;
  details?: Record<string, unknown>;
}

let context: BrowserContext;
let worker: Worker;
let site: Awaited<ReturnType<typeof serveFixtureSite>>;

beforeAll(async () => {
  site = await serveFixtureSite(FIXTURE_DIR);
  const ext = await buildTestExtension();
  context = await launchWithExtension(mkdtempSync(join(tmpdir(), 'keel-profile-')), ext);
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  await worker.evaluate(() => new Promise((r) => setTimeout(r, 50)));
});

afterAll(async () => {
  await context?.close();
  await site?.close();
});

type Ctx = { tabId?: number; runId?: string; model?: { vision: boolean } };

function run(name: string, params: Record<string, unknown>, ctx: Ctx): Promise<RunResult> {
  return worker.evaluate(
    ([n, p, c]) =>
      (
        globalThis as unknown as {
          __keel: { run(n: string, p: unknown, c: unknown): Promise<RunResult> };
        }
      ).__keel.run(n, p, c),
    [name, params, ctx] as const,
  );
}

async function target(
  name: string,
  params: Record<string, unknown>,
  ctx: Ctx,
): Promise<ToolTarget> {
  const r = await worker.evaluate(
    ([n, p, c]) =>
      (
        globalThis as unknown as {
          __keel: {
            target(
              n: string,
              p: unknown,
              c: unknown,
            ): Promise<{ ok: boolean; target?: ToolTarget; error?: string }>;
          };
        }
      ).__keel.target(n, p, c),
    [name, params, ctx] as const,
  );
  if (!r.ok || !r.target) throw new Error(r.error);
  return r.target;
}

function text(r: RunResult): string {
  if (!r.ok) throw new Error(`tool failed: ${r.error}`);
  return (r.content ?? []).map((c) => c.text ?? `[${c.type}]`).join('\n');
}

async function openTab(
  path: string,
  origin = site.main.origin,
): Promise<{ page: Page; tabId: number }> {
  const page = await context.newPage();
  await page.goto(`${origin}/${path}`, { waitUntil: 'load' });
  const tabId = await worker.evaluate(async (url) => {
    const tabs = await chrome.tabs.query({});
    return tabs.find((t) => t.url === url)?.id ?? -1;
  }, page.url());
  expect(tabId).toBeGreaterThan(0);
  return { page, tabId };
}

function ref(snapshotText: string, pattern: RegExp): string {
  for (const line of snapshotText.split('\n')) {
    const m = /\[ref=((?:f\d+)?e\d+)\]/.exec(line);
    if (m && pattern.test(line)) return m[1];
  }
  throw new Error(`no ref for ${pattern} in\n${snapshotText}`);
}

describe('catalog', () => {
  it('exposes every tool of PROTOCOL.md with level, effects and recovery', async () => {
    const names = await worker.evaluate(() =>
      (globalThis as unknown as { __keel: { names(): unknown } }).__keel.names(),
    );
    expect((names as { name: string }[]).map((n) => n.name).sort()).toEqual(
      [
        'browser_tabs',
        'browser_snapshot',
        'browser_get_text',
        'browser_find',
        'browser_screenshot',
        'browser_navigate',
        'browser_go_back',
        'browser_click',
        'browser_type',
        'browser_select',
        'browser_scroll',
        'browser_press_key',
        'browser_hover',
        'browser_wait_for',
        'browser_tab_open',
        'browser_tab_close',
        'browser_tab_switch',
        'browser_mouse',
        'browser_keyboard',
        'browser_upload_file',
        'browser_dialog',
        'browser_console',
        'browser_network',
      ].sort(),
    );
  });
});

describe('reading and acting through the content script', () => {
  it('injects on demand, snapshots as untrusted content, clicks and types', async () => {
    const { page, tabId } = await openTab('forms.html');
    const tabs = text(await run('browser_tabs', {}, { tabId }));
    expect(tabs).toMatch(new RegExp(`- tab ${tabId} \\(this conversation`));
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    expect(snap).toMatch(/^Snapshot of tab \d+ \(whole page; \d+ refs\)/);
    expect(snap.replace(/(untrusted_data|untrusted_page_content)_[0-9a-f]{12}/g, '$1')).toContain(
      `<untrusted_page_content source="${site.main.origin}/forms.html">`,
    );
    expect(snap).toMatch(/- checkbox "Send me the newsletter" \[ref=e\d+\]/);

    const clicked = await run(
      'browser_click',
      { ref: ref(snap, /Send me the newsletter/) },
      { tabId },
    );
    expect(text(clicked)).toMatch(/^Clicked e\d+\. Only the element changed\./);
    expect(text(clicked)).toMatch(
      /element now: - checkbox "Send me the newsletter" \[ref=e\d+\] \[checked\]/,
    );
    expect(clicked.details?.highlight).toMatchObject({ frameId: 0 });
    expect(await page.isChecked('#newsletter')).toBe(true);

    const typed = await run(
      'browser_type',
      { ref: ref(snap, /textbox "Full name"/), text: 'Ada', submit: true },
      { tabId },
    );
    expect(text(typed)).toMatch(/Typed 3 characters and pressed Enter into e\d+/);
    expect(await page.textContent('#result')).toContain('"name":"Ada"');

    const selected = await run(
      'browser_select',
      { ref: ref(snap, /combobox "Country"/), values: ['Japan'] },
      { tabId },
    );
    expect(text(selected)).toContain('done: selected "Japan"');

    const found = text(await run('browser_find', { query: 'save settings' }, { tabId }));
    expect(found).toMatch(/- button "Save settings" \[ref=e\d+\] \[type=submit\]/);
    await page.close();
  });

  it('reports navigation, new tabs and stale refs after navigating', async () => {
    const { page, tabId } = await openTab('nav-a.html');
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    const toB = ref(snap, /link "Go to page B"/);
    const nav = text(await run('browser_click', { ref: toB }, { tabId }));
    expect(nav).toContain(
      `The page navigated: ${site.main.origin}/nav-a.html → ${site.main.origin}/nav-b.html.`,
    );
    expect(nav).toContain('new page title: Page B');
    const stale = await run('browser_click', { ref: toB }, { tabId });
    expect(stale.ok).toBe(false);
    expect(stale.error).toBe(
      `Element ref ${toB} no longer exists (the page changed or navigated). Take a new browser_snapshot and use a ref from it.`,
    );

    const back = text(await run('browser_go_back', {}, { tabId }));
    expect(back).toContain(`Went back to ${site.main.origin}/nav-a.html`);
    const again = text(await run('browser_snapshot', {}, { tabId }));
    const opened = text(
      await run('browser_click', { ref: ref(again, /Open B in a new tab/) }, { tabId }),
    );
    expect(opened).toMatch(/A new tab opened: tab (\d+)/);
    const newTab = Number(/A new tab opened: tab (\d+)/.exec(opened)?.[1]);
    const closed = text(await run('browser_tab_close', { tabId: newTab }, { tabId }));
    expect(closed).toContain(`Closed tab ${newTab}`);
    await page.close();
  });

  it('navigates, waits and opens tabs', async () => {
    const { page, tabId } = await openTab('nav-b.html');
    const nav = text(
      await run('browser_navigate', { url: `${site.main.origin}/dynamic.html` }, { tabId }),
    );
    expect(nav).toContain(
      `Opened ${site.main.origin}/dynamic.html in tab ${tabId}. It has loaded.`,
    );
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    await run('browser_click', { ref: ref(snap, /Show message later/) }, { tabId });
    const waited = text(
      await run(
        'browser_wait_for',
        { condition: 'text', text: 'delayed message', timeoutSeconds: 5 },
        { tabId },
      ),
    );
    expect(waited).toMatch(/^Condition met after/);
    const incremental = text(await run('browser_snapshot', { incremental: true }, { tabId }));
    expect(incremental).toContain('changes since your previous snapshot');
    expect(incremental).toContain('+   The delayed message arrived');

    const opened = text(
      await run('browser_tab_open', { url: `${site.main.origin}/nav-a.html` }, { tabId }),
    );
    const newTab = Number(/Opened tab (\d+)/.exec(opened)?.[1]);
    expect(newTab).toBeGreaterThan(0);
    expect(text(await run('browser_snapshot', { tabId: newTab }, { tabId }))).toContain('# Page A');
    await run('browser_tab_close', { tabId: newTab }, { tabId });
    await page.close();
  });

  it('reads cross-origin frames by frameId with frame-qualified refs', async () => {
    const { page, tabId } = await openTab('iframes.html');
    // The child frames reach the extension shortly after load: snapshot until they are listed.
    let top = '';
    await expect
      .poll(async () => (top = text(await run('browser_snapshot', {}, { tabId }))), {
        timeout: 10_000,
      })
      .toMatch(/- iframe "Partner form" \[frameId=\d+\]/);
    const m =
      /- iframe "Partner form" \[frameId=(\d+)\] \(cross-origin (http:\/\/127\.0\.0\.1:\d+)\)/.exec(
        top,
      );
    expect(top).not.toMatch(/frameId=#/);
    expect(m?.[2]).toBe(site.other.origin);
    const frameId = Number(m?.[1]);
    const inner = text(await run('browser_snapshot', { frameId }, { tabId }));
    expect(inner).toContain('## Child frame (cross)');
    const coupon = ref(inner, /textbox "Coupon code"/);
    expect(coupon).toMatch(new RegExp(`^f${frameId}e\\d+$`));
    await run('browser_type', { ref: coupon, text: 'PARTNER' }, { tabId });
    const applied = text(
      await run('browser_click', { ref: ref(inner, /button "Apply coupon"/) }, { tabId }),
    );
    expect(applied).toMatch(/^Clicked f\d+e\d+\. The page settled/);
    const partner = page.frames().find((f) => f.url().includes('who=cross'));
    expect(await partner?.textContent('#out')).toBe('Applied PARTNER trusted=false');
    // Trusted click inside the cross-origin frame: coordinates are offset by the iframe's position.
    await run(
      'browser_mouse',
      { action: 'click', ref: ref(inner, /button "Apply coupon"/) },
      { tabId, runId: 'run-frames' },
    );
    expect(await partner?.textContent('#out')).toBe('Applied PARTNER trusted=true');
    await worker.evaluate(() =>
      (globalThis as unknown as { __keel: { runEnded(r: string): Promise<void> } }).__keel.runEnded(
        'run-frames',
      ),
    );
    await page.close();
  });

  it('ignores messages from extension pages and malformed requests', async () => {
    const { page, tabId } = await openTab('nav-b.html');
    const extId = new URL(worker.url()).host;
    const probe = await context.newPage();
    await probe.goto(`chrome-extension://${extId}/probe.html`);
    const fromPage = (await probe.evaluate(
      (id) =>
        (
          globalThis as unknown as {
            probe(t: number): Promise<{ replied: boolean; reply?: unknown }>;
          }
        ).probe(id),
      tabId,
    )) as {
      replied: boolean;
      reply?: unknown;
    };
    expect(fromPage.reply).toBeUndefined();
    const sendRaw = (m: unknown) =>
      worker.evaluate(
        ([t, msg]) =>
          (
            globalThis as unknown as {
              __keel: { sendRaw(t: number, m: unknown): Promise<{ ok: boolean; reply?: unknown }> };
            }
          ).__keel.sendRaw(t, msg),
        [tabId, m] as const,
      );
    const good = await sendRaw({ channel: 'keel.page.v1', request: { op: 'ping' } });
    expect(good.reply).toMatchObject({ ok: true });
    const bad = await sendRaw({
      channel: 'keel.page.v1',
      request: { op: 'click', ref: 'e1; alert(1)' },
    });
    expect(bad.reply).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    const foreign = await sendRaw({ hello: 'world' });
    expect(foreign.reply).toBeUndefined();
    await probe.close();
    await page.close();
  });
});

describe('debugger tier', () => {
  it('clicks and types with trusted input, then detaches when the run ends', async () => {
    const { page, tabId } = await openTab('input-events.html');
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    const button = ref(snap, /button "Only real clicks"/);
    text(await run('browser_click', { ref: button }, { tabId }));
    expect(await page.textContent('#out')).toBe('synthetic click ignored');
    const real = text(
      await run('browser_mouse', { action: 'click', ref: button }, { tabId, runId: 'run-l2' }),
    );
    expect(real).toMatch(/^Clicked \(trusted\) e\d+\./);
    expect(await page.textContent('#out')).toBe('real click');

    await run(
      'browser_keyboard',
      { ref: ref(snap, /textbox "Shortcut field"/), text: 'Hi', keys: ['Control+a', 'Enter'] },
      { tabId, runId: 'run-l2' },
    );
    expect(await page.inputValue('#field')).toBe('Hi');
    const keys = await page.evaluate(
      () =>
        (window as unknown as { __keys: { key: string; ctrl: boolean; trusted: boolean }[] })
          .__keys,
    );
    expect(keys.map((k) => k.key)).toEqual(['H', 'i', 'Control', 'a', 'Enter']);
    expect(keys.every((k) => k.trusted)).toBe(true);

    await run(
      'browser_mouse',
      { action: 'drag', ref: ref(snap, /button "Drag me"/), toX: 100, toY: 0, toRef: undefined },
      { tabId, runId: 'run-l2' },
    ).then(() => undefined);
    const attached = () =>
      worker.evaluate(
        (t) =>
          (
            globalThis as unknown as {
              __keel: { ourDebuggerAttached(t: number): Promise<boolean> };
            }
          ).__keel.ourDebuggerAttached(t),
        tabId,
      );
    expect(await attached()).toBe(true);
    await worker.evaluate(() =>
      (globalThis as unknown as { __keel: { runEnded(r: string): Promise<void> } }).__keel.runEnded(
        'run-l2',
      ),
    );
    expect(await attached()).toBe(false);
    await page.close();
  });

  it('answers dialogs: automatically for synthetic clicks, by browser_dialog for trusted ones', async () => {
    const { page, tabId } = await openTab('dialogs.html');
    // Keep Playwright from auto-dismissing: the tools must handle the dialogs.
    page.on('dialog', () => undefined);
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    const synthetic = text(
      await run(
        'browser_click',
        { ref: ref(snap, /button "Delete all"/) },
        { tabId, runId: 'run-d' },
      ),
    );
    expect(synthetic).toContain(
      'The page showed a confirm dialog; it was answered "Cancel" automatically',
    );
    expect(synthetic).toContain('confirm dialog message: Delete everything?');
    expect(await page.textContent('#out')).toBe('cancelled');

    const trusted = text(
      await run(
        'browser_mouse',
        { action: 'click', ref: ref(snap, /button "Delete all"/) },
        { tabId, runId: 'run-d' },
      ),
    );
    expect(trusted).toContain('A JavaScript confirm dialog is open');
    expect(
      text(await run('browser_dialog', { action: 'accept' }, { tabId, runId: 'run-d' })),
    ).toMatch(/^Accepted the confirm dialog/);
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'confirmed');

    const prompt = text(
      await run(
        'browser_mouse',
        { action: 'click', ref: ref(snap, /button "Ask name"/) },
        { tabId, runId: 'run-d' },
      ),
    );
    expect(prompt).toContain('dialog message: Your name?');
    await run(
      'browser_dialog',
      { action: 'accept', promptText: 'Grace' },
      { tabId, runId: 'run-d' },
    );
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'name: Grace');
    const none = await run('browser_dialog', { action: 'dismiss' }, { tabId, runId: 'run-d' });
    expect(none.error).toMatch(new RegExp(`^No JavaScript dialog is open in tab ${tabId}`));
    await worker.evaluate(() =>
      (globalThis as unknown as { __keel: { runEnded(r: string): Promise<void> } }).__keel.runEnded(
        'run-d',
      ),
    );
    await page.close();
  });

  it('uploads generated and local files', async () => {
    const { page, tabId } = await openTab('files.html');
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    const input = ref(snap, /button "Photos"/);
    const t = await target(
      'browser_upload_file',
      { ref: input, files: [{ name: 'a.txt', text: 'alpha' }] },
      { tabId },
    );
    expect(t.alwaysAsk).toBe('uploads files to the page: a.txt');
    const r = text(
      await run(
        'browser_upload_file',
        {
          ref: input,
          files: [
            { name: 'a.txt', text: 'alpha' },
            { name: 'b.csv', text: 'x,y' },
          ],
        },
        { tabId },
      ),
    );
    expect(r).toContain('done: chose a.txt, b.csv');
    await page.waitForFunction(() =>
      document.getElementById('out')?.textContent?.startsWith('photos'),
    );
    expect(await page.textContent('#out')).toBe('photos -> a.txt:5:alpha, b.csv:3:x,y');

    // Local files go through the debugger (DOM.setFileInputFiles).
    const file = join(mkdtempSync(join(tmpdir(), 'keel-upload-')), 'notes.txt');
    writeFileSync(file, 'local notes');
    const local = await run(
      'browser_upload_file',
      { ref: ref(snap, /button "Résumé"/), paths: [file] },
      { tabId, runId: 'run-up' },
    );
    expect(text(local)).toContain('done: chose notes.txt');
    await page.waitForFunction(() =>
      document.getElementById('out')?.textContent?.startsWith('resume'),
    );
    expect(await page.textContent('#out')).toBe('resume -> notes.txt:11:local notes');
    await worker.evaluate(() =>
      (globalThis as unknown as { __keel: { runEnded(r: string): Promise<void> } }).__keel.runEnded(
        'run-up',
      ),
    );
    await page.close();
  });
});

describe('screenshots and approval targets', () => {
  it('captures the visible tab, as an image only for vision models', async () => {
    const { page, tabId } = await openTab('nav-b.html');
    await page.bringToFront();
    await run('browser_tab_switch', { tabId }, { tabId });
    const vision = await run('browser_screenshot', {}, { tabId, model: { vision: true } });
    expect(vision.content?.map((c) => c.type)).toEqual(['text', 'image']);
    expect(vision.content?.[1]?.mimeType).toBe('image/jpeg');
    const blind = await run('browser_screenshot', {}, { tabId, model: { vision: false } });
    expect(blind.content?.map((c) => c.type)).toEqual(['text']);
    expect(text(blind)).toContain('cannot see images');
    expect(blind.details?.image).toBeTruthy();
    await page.close();
  });

  it('forbids browser pages and asks for risky actions', async () => {
    const { page, tabId } = await openTab('payment.html');
    const snap = text(await run('browser_snapshot', {}, { tabId }));
    expect(
      (await target('browser_click', { ref: ref(snap, /button "Pay/) }, { tabId })).alwaysAsk,
    ).toBe('submits a form with payment card fields');
    expect(
      (await target('browser_click', { ref: ref(snap, /button "Subscribe"/) }, { tabId }))
        .alwaysAsk,
    ).toBeUndefined();
    expect(
      (
        await target(
          'browser_type',
          { ref: ref(snap, /textbox "CVC"/), text: '123', submit: true },
          { tabId },
        )
      ).alwaysAsk,
    ).toBe('submits a form with payment card fields');
    const nav = await target(
      'browser_navigate',
      { url: `${site.other.origin}/collect?d=secret` },
      { tabId },
    );
    expect(nav.origin).toBe(site.other.origin);
    expect(nav.alwaysAsk).toMatch(/another site/);
    expect(
      (await target('browser_navigate', { url: `${site.main.origin}/x?q=1` }, { tabId })).alwaysAsk,
    ).toBeUndefined();
    expect(
      (await target('browser_navigate', { url: 'javascript:alert(1)' }, { tabId })).forbidden,
    ).toMatch(/javascript/);
    expect(
      (await target('browser_navigate', { url: 'chrome://settings' }, { tabId })).forbidden,
    ).toMatch(/browser-internal/);
    expect((await target('browser_snapshot', {}, { tabId })).origin).toBe(site.main.origin);

    const ext = await context.newPage();
    await ext.goto(`chrome-extension://${new URL(worker.url()).host}/probe.html`);
    const extTab = await worker.evaluate(
      async () =>
        (await chrome.tabs.query({})).find((t) => t.url?.endsWith('probe.html'))?.id ?? -1,
    );
    expect((await target('browser_snapshot', {}, { tabId: extTab })).forbidden).toMatch(
      /extension's own page/,
    );
    const refused = await run('browser_snapshot', {}, { tabId: extTab });
    expect(refused.error).toMatch(/Cannot use tab \d+: this is the extension's own page/);
    await ext.close();
    await page.close();
  });
});
