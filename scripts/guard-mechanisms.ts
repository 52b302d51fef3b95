/**
 * Which Chrome mechanism can hold a navigation or request an agent action causes, before it
 * reaches the server? (docs/security.md "The navigation and request guard: how it was chosen")
 *
 * Loads a throwaway MV3 extension (no Keel code) into Debian's Chromium and measures, with two
 * loopback servers whose request logs are the ground truth:
 *   1. declarativeNetRequest session rules scoped with `tabIds` (block in the agent's tab, allow
 *      listed origins at a higher priority): does the victim server receive a POST fetch, a form
 *      POST (top frame), a subframe navigation; is another tab affected; what does the tab show
 *      after a blocked top-frame navigation and does history.back() restore the page; does
 *      webRequest.onErrorOccurred name the blocked URL and method; a popup opened by the page.
 *   2. webNavigation.onBeforeNavigate + cancel by navigating the tab back: does the request still
 *      reach the server?
 *   3. the debugger's Fetch domain (Fetch.enable, failRequest): same-site and cross-site frames.
 *
 * Run: `npx tsx scripts/guard-mechanisms.ts` (prints one JSON object of results).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Worker } from 'playwright-core';

interface Logged {
  method: string;
  url: string;
}

async function server(page: (origin: string, path: string) => string) {
  const hits: Logged[] = [];
  const s = createServer((req, res) => {
    hits.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'access-control-allow-origin': '*',
    });
    res.end(page(origin, req.url ?? '/'));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return { origin, port, hits, close: () => new Promise<void>((r) => s.close(() => r())) };
}

const WORKER = `
const ALL_TYPES = ['main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'object',
  'xmlhttprequest', 'ping', 'csp_report', 'media', 'websocket', 'webtransport', 'webbundle', 'other'];
globalThis.blocked = [];
chrome.webRequest.onErrorOccurred.addListener((d) => {
  if (d.error === 'net::ERR_BLOCKED_BY_CLIENT')
    blocked.push({ url: d.url, method: d.method, type: d.type, tabId: d.tabId, frameId: d.frameId });
}, { urls: ['<all_urls>'] });
globalThis.guard = async (tabId, allowOrigins) => {
  const t0 = performance.now();
  const rules = [
    { id: 1, priority: 1, action: { type: 'block' },
      condition: { tabIds: [tabId], resourceTypes: ['main_frame', 'sub_frame'] } },
    { id: 2, priority: 1, action: { type: 'block' },
      condition: { tabIds: [tabId], excludedRequestMethods: ['get', 'head', 'options'] } },
    ...allowOrigins.map((o, i) => ({ id: 10 + i, priority: 2, action: { type: 'allow' },
      condition: { tabIds: [tabId], urlFilter: '|' + o + '/', resourceTypes: ALL_TYPES } })),
  ];
  const old = (await chrome.declarativeNetRequest.getSessionRules()).map((r) => r.id);
  await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: old, addRules: rules });
  return performance.now() - t0;
};
globalThis.unguard = async () => {
  const old = (await chrome.declarativeNetRequest.getSessionRules()).map((r) => r.id);
  await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: old });
};
globalThis.guardPopups = (opener, allowOrigins) => {
  chrome.tabs.onCreated.addListener(async (t) => {
    if (t.openerTabId !== opener) return;
    await chrome.declarativeNetRequest.updateSessionRules({ addRules: [
      { id: 100 + t.id, priority: 1, action: { type: 'block' },
        condition: { tabIds: [t.id], resourceTypes: ['main_frame'] } },
      ...allowOrigins.map((o, i) => ({ id: 5000 + t.id * 10 + i, priority: 2, action: { type: 'allow' },
        condition: { tabIds: [t.id], urlFilter: '|' + o + '/', resourceTypes: ALL_TYPES } })) ] });
  });
};
globalThis.cancelByNavigation = (tabId, backTo) => {
  chrome.webNavigation.onBeforeNavigate.addListener((d) => {
    if (d.tabId === tabId && d.frameId === 0 && !d.url.startsWith(backTo))
      chrome.tabs.update(tabId, { url: backTo + '/page' });
  });
};
globalThis.fetchGuard = async (tabId, victim) => {
  globalThis.paused = [];
  await chrome.debugger.attach({ tabId }, '1.3');
  chrome.debugger.onEvent.addListener((src, method, p) => {
    if (method !== 'Fetch.requestPaused') return;
    paused.push({ url: p.request.url, method: p.request.method, type: p.resourceType });
    const stop = p.request.url.startsWith(victim);
    chrome.debugger.sendCommand(src, stop ? 'Fetch.failRequest' : 'Fetch.continueRequest',
      stop ? { requestId: p.requestId, errorReason: 'BlockedByClient' } : { requestId: p.requestId });
  });
  await chrome.debugger.sendCommand({ tabId }, 'Fetch.enable', { patterns: [{ urlPattern: '*' }] });
};
globalThis.tabOf = async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id;
globalThis.tabUrl = async (id) => (await chrome.tabs.get(id)).url;
`;

const MANIFEST = {
  manifest_version: 3,
  name: 'guard-probe',
  version: '1',
  background: { service_worker: 'sw.js' },
  permissions: [
    'declarativeNetRequestWithHostAccess',
    'webRequest',
    'webNavigation',
    'tabs',
    'debugger',
  ],
  host_permissions: ['<all_urls>'],
};

async function main() {
  const victim = await server(() => '<!doctype html><title>victim</title><p>victim page</p>');
  const app = await server((_o, path) =>
    path.startsWith('/page')
      ? `<!doctype html><title>app</title><p id=state>fresh</p>
         <form id=f method=post action="${victim.origin}/form-post"><input name=x value=1></form>
         <script>window.state = Math.random();</script>`
      : '<!doctype html><title>app</title>',
  );
  const dir = await mkdtemp(join(tmpdir(), 'guard-probe-'));
  const ext = join(dir, 'ext');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(ext);
  await writeFile(join(ext, 'manifest.json'), JSON.stringify(MANIFEST));
  await writeFile(join(ext, 'sw.js'), WORKER);
  const ctx = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      `--disable-extensions-except=${ext}`,
      `--load-extension=${ext}`,
    ],
  });
  const results: Record<string, unknown> = { chromium: ctx.browser()?.version() };
  try {
    const sw: Worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent('serviceworker'));
    const hitsTo = (path: string) => victim.hits.filter((h) => h.url.startsWith(path)).length;
    const pageUrl = `${app.origin}/page`;

    // A spare tab: closing the last page ends a headless persistent context.
    await ctx.newPage();
    // ---- 1. declarativeNetRequest, tab-scoped -----------------------------------------------
    const agent = await ctx.newPage();
    await agent.goto(pageUrl);
    const other = await ctx.newPage();
    await other.goto(`${app.origin}/page?other`);
    const agentTab = await sw.evaluate(`tabOf(${JSON.stringify(pageUrl)})`);
    const allowed = JSON.stringify([app.origin, `http://localhost:${app.port}`]);
    const ruleMs = await sw.evaluate(`guard(${agentTab}, ${allowed})`);
    results.dnrInstallMs = Math.round(Number(ruleMs) * 10) / 10;
    const fetchOutcome = await agent.evaluate(
      (v) =>
        fetch(`${v}/fetch-post`, { method: 'POST', body: 'x', mode: 'no-cors' }).then(
          () => 'sent',
          (e) => `rejected: ${String(e)}`,
        ),
      victim.origin,
    );
    const getOutcome = await agent.evaluate(
      (v) =>
        fetch(`${v}/fetch-get`, { mode: 'no-cors' }).then(
          () => 'sent',
          (e) => `rejected: ${String(e)}`,
        ),
      victim.origin,
    );
    await agent.evaluate((v) => navigator.sendBeacon(`${v}/beacon`, 'x'), victim.origin);
    await agent.evaluate((v) => {
      const f = document.createElement('iframe');
      f.src = `${v}/frame-nav`;
      document.body.append(f);
    }, victim.origin);
    // A cross-site frame (localhost ≠ 127.0.0.1) runs in its own renderer process.
    await agent.evaluate((u) => {
      const f = document.createElement('iframe');
      f.src = u;
      document.body.append(f);
    }, `http://localhost:${app.port}/page?oopif`);
    await agent.waitForTimeout(800);
    const oopif = agent.frames().find((f) => f.url().includes('?oopif'));
    const oopifOutcome = await oopif
      ?.evaluate(
        (v) =>
          fetch(`${v}/oopif-post`, { method: 'POST', body: 'x', mode: 'no-cors' }).then(
            () => 'sent',
            () => 'rejected',
          ),
        victim.origin,
      )
      .catch((e) => `no frame: ${String(e)}`);
    await agent.waitForTimeout(300);
    await other.evaluate(
      (v) => fetch(`${v}/other-tab-post`, { method: 'POST', body: 'x', mode: 'no-cors' }),
      victim.origin,
    );
    const stateBefore = await agent.evaluate(() => (window as unknown as { state: number }).state);
    await agent.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit());
    await agent.waitForTimeout(800);
    const urlAfterBlock = await sw.evaluate(`tabUrl(${agentTab})`);
    const mainFrameUrl = agent.url();
    await agent.evaluate(() => history.back()).catch(() => undefined);
    await agent.waitForTimeout(800);
    const urlAfterBack = agent.url();
    const stateAfterBack = await agent
      .evaluate(() => (window as unknown as { state?: number }).state)
      .catch(() => undefined);
    results.dnr = {
      fetchPost: { pageSaw: fetchOutcome, serverHits: hitsTo('/fetch-post') },
      fetchGet: { pageSaw: getOutcome, serverHits: hitsTo('/fetch-get') },
      beacon: { serverHits: hitsTo('/beacon') },
      subframeNavigation: { serverHits: hitsTo('/frame-nav') },
      crossSiteFramePost: { pageSaw: oopifOutcome, serverHits: hitsTo('/oopif-post') },
      otherTabPost: { serverHits: hitsTo('/other-tab-post') },
      topFormPost: {
        serverHits: hitsTo('/form-post'),
        tabUrlAfter: urlAfterBlock,
        frameUrlAfter: mainFrameUrl,
        afterHistoryBack: urlAfterBack,
        sameDocumentRestored: stateAfterBack === stateBefore,
      },
      reported: await sw.evaluate('blocked'),
    };

    // Popup: a rule added for the new tab in tabs.onCreated, in time for its first request?
    await sw.evaluate(`guardPopups(${agentTab}, [${JSON.stringify(app.origin)}])`);
    await agent.goto(pageUrl);
    const popups: number[] = [];
    for (let i = 0; i < 5; i++) {
      const popup = ctx.waitForEvent('page');
      await agent.evaluate((u) => window.open(u), `${victim.origin}/popup-${i}`);
      const p = await popup;
      await p.waitForTimeout(400);
      popups.push(hitsTo(`/popup-${i}`));
      await p.close();
    }
    results.popupRuleInOnCreated = { reachedServer: popups.filter((n) => n > 0).length, of: 5 };
    await sw.evaluate('unguard()');
    await agent.close();
    await other.close();

    // ---- 2. webNavigation + cancel by navigation -----------------------------------------------
    const nav = await ctx.newPage();
    await nav.goto(`${pageUrl}?nav`);
    const navTab = await sw.evaluate(`tabOf(${JSON.stringify(`${pageUrl}?nav`)})`);
    await sw.evaluate(`cancelByNavigation(${navTab}, ${JSON.stringify(app.origin)})`);
    await nav.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit());
    await nav.waitForTimeout(1000);
    results.webNavigationCancel = {
      formPostServerHits:
        hitsTo('/form-post') -
        (results.dnr as { topFormPost: { serverHits: number } }).topFormPost.serverHits,
      tabUrlAfter: nav.url(),
    };
    await nav.close();

    // ---- 3. debugger Fetch domain ------------------------------------------------------------
    const dbg = await ctx.newPage();
    await dbg.goto(`${pageUrl}?dbg`);
    const dbgTab = await sw.evaluate(`tabOf(${JSON.stringify(`${pageUrl}?dbg`)})`);
    await sw.evaluate(`fetchGuard(${dbgTab}, ${JSON.stringify(victim.origin)})`);
    await dbg.evaluate(
      (v) => fetch(`${v}/dbg-post`, { method: 'POST', body: 'x', mode: 'no-cors' }).catch(() => 0),
      victim.origin,
    );
    // A cross-site frame (localhost ≠ 127.0.0.1) runs in its own process: its requests belong to
    // another debugger target.
    const crossSite = `http://localhost:${app.port}/page?inner`;
    await dbg.evaluate((u) => {
      const f = document.createElement('iframe');
      f.src = u;
      document.body.append(f);
    }, crossSite);
    await dbg.waitForTimeout(800);
    const inner = dbg.frames().find((f) => f.url().startsWith('http://localhost'));
    await inner
      ?.evaluate(
        (v) =>
          fetch(`${v}/dbg-oopif-post`, { method: 'POST', body: 'x', mode: 'no-cors' }).catch(
            () => 0,
          ),
        victim.origin,
      )
      .catch(() => undefined);
    await dbg.waitForTimeout(300);
    results.debuggerFetch = {
      samePagePost: { serverHits: hitsTo('/dbg-post') },
      crossSiteFramePost: { serverHits: hitsTo('/dbg-oopif-post') },
      paused: await sw.evaluate('paused'),
    };
  } finally {
    await ctx.close();
    await victim.close();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(results, null, 2));
}

await main();
