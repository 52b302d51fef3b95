import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedToolCall } from '../harness';
import {
  currentTurn,
  openTab,
  refNamed,
  runTurn,
  startSession,
  textOf,
  type ApprovalRequest,
  type Session,
} from './support';

/**
 * The navigation and request guard (issue 24, point 2), judged by ground truth: a server on an
 * origin with no allow rule (`victim`, on `victim.localhost`, another site than 127.0.0.1)
 * records every request it receives. The user allowed the page's own site, so the action itself
 * runs without asking; what the page makes of it (a label that submits a hidden form, an SVG
 * link, a link around a shadow host, a redirect spelt so the check did not read it, a GET form
 * whose field is an address, Back onto another site's entry) must not reach the victim without
 * an approval naming the victim. Every approval here is denied.
 */

interface Hit {
  method: string;
  url: string;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const html = (res: ServerResponse, body: string) =>
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(`<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`);

describe('the navigation and request guard', () => {
  let s: Session;
  let site: Awaited<ReturnType<typeof listen>>;
  let victim: Awaited<ReturnType<typeof listen>>;
  let SITE = '';
  let VICTIM = '';
  const victimHits = (path: string) => victim.hits.filter((h) => h.url.startsWith(path));

  beforeAll(async () => {
    victim = await listen((_req, res) =>
      html(res, '<h1>Victim</h1><p>Account page</p><button>Delete my account</button>'),
    );
    VICTIM = `http://victim.localhost:${victim.port}`;
    site = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const pages: Record<string, string> = {
        '/label.html': `<h1>Order</h1>
          <form action="${VICTIM}/label-delete" method="post"><input type="hidden" name="account" value="me">
          <button id="go" style="position:absolute;left:-9999px;top:0">x</button></form>
          <label for="go"><span role="button" tabindex="0">Show details</span></label>`,
        '/svg.html': `<h1>Map</h1><svg width="200" height="60" role="img" aria-label="Open map"><a href="${VICTIM}/svg-go?d=1">
          <rect width="200" height="60" fill="#ccd"></rect><text x="10" y="35">Open map</text></a></svg>`,
        '/shadow.html': `<h1>Promo</h1><a href="${VICTIM}/shadow-go"><span id="host"></span></a>
          <script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<button>Continue</button>';</script>`,
        '/redirect-link.html': `<h1>Links</h1><a href="/redirect?u=/\\victim.localhost:${victim.port}/redirect-steal">Read more</a>`,
        '/get-form.html': `<h1>Jump</h1><form action="/redirect" method="get">
          <input name="u" aria-label="Next page"><button>Go</button></form>`,
        '/start.html': '<h1>Start</h1><p>The site the user allowed.</p>',
        '/slow.html': '<h1>Slow</h1><a href="/slow-target">Slow page</a>',
        '/popup-chain.html': `<h1>Offers</h1><a target="_blank" href="/redirect?u=${encodeURIComponent(`/redirect?u=${encodeURIComponent(`http:\\\\victim.localhost:${victim.port}/popup-steal?d=1`)}`)}">See offer</a>`,
        '/popup-open.html': `<h1>Share</h1><button onclick="window.open('${VICTIM}/open-steal?d=1')">Share</button>`,
        '/popup-ok.html':
          '<h1>Catalog</h1><a target="_blank" href="/start.html">Open start page</a>',
      };
      if (url.pathname === '/slow-target') {
        setTimeout(() => html(res, '<h1>Slow</h1>'), 3000);
        return;
      }
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('u') ?? '/' }).end();
        return;
      }
      html(res, pages[url.pathname] ?? '<p>ok</p>');
    });
    SITE = `http://127.0.0.1:${site.port}`;
    s = await startSession();
    await s.client.sendOk({ type: 'siteRules.set', origin: SITE, rule: 'allow' });
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await site?.close();
    await victim?.close();
  });

  /** The model: a snapshot, then `steps` in order, each built from what the tools returned. */
  function script(steps: Array<(seen: string) => ScriptedToolCall | undefined>) {
    s.gullible.reply = (r) => {
      const turn = currentTurn(r);
      const done = turn.flatMap((m) => m.tool_calls ?? []).length;
      const seen = turn
        .filter((m) => m.role === 'tool')
        .map(textOf)
        .join('\n');
      if (done === 0) return { toolCalls: [{ name: 'browser_snapshot', args: {} }] };
      const step = steps[done - 1];
      const call = step?.(seen);
      return call ? { toolCalls: [call] } : { text: 'Done.' };
    };
  }
  const click = (name: string) => (seen: string) => {
    const ref = refNamed(seen, name);
    return ref ? { name: 'browser_click', args: { ref } } : undefined;
  };
  const namesVictim = (a: ApprovalRequest) => a.target.origin === VICTIM;

  it('a label that activates an off-screen submit of a form posting to another site', async () => {
    const { page } = await openTab(s, `${SITE}/label.html`);
    script([click('Show details')]);
    const turn = await runTurn(s, 'Show the order details.');
    expect(victimHits('/label-delete')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    await page.close();
  });

  it('an SVG link (its href is not a string)', async () => {
    const { page } = await openTab(s, `${SITE}/svg.html`);
    // A trusted click on the map lands on the SVG <a> inside it. Trusted input asks on every
    // site: the user allows it once for the page's own site, never for the victim.
    const at = await page.evaluate(() => {
      const r = document.querySelector('rect')!.getBoundingClientRect();
      return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
    });
    script([() => ({ name: 'browser_mouse', args: { action: 'click', ...at } })]);
    const turn = await runTurn(s, 'Open the map.', (a) =>
      a.target.origin === SITE ? 'allow_once' : 'deny',
    );
    expect(victimHits('/svg-go')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    await page.close();
  });

  it('a link wrapped around a shadow host', async () => {
    const { page } = await openTab(s, `${SITE}/shadow.html`);
    script([click('Continue')]);
    const turn = await runTurn(s, 'Continue.');
    expect(victimHits('/shadow-go')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    await page.close();
  });

  it('a same-site link whose redirect target is spelt with a backslash', async () => {
    const { page } = await openTab(s, `${SITE}/redirect-link.html`);
    script([click('Read more')]);
    const turn = await runTurn(s, 'Read more.');
    expect(victimHits('/redirect-steal')).toEqual([]);
    // Asked before the click (the check reads `/\host` as the browser does) or, once allowed,
    // held at the redirect: either way an approval came first.
    expect(turn.approvals.length).toBeGreaterThan(0);
    await page.close();
  });

  it('a same-site GET form whose typed field becomes an open redirect', async () => {
    const { page } = await openTab(s, `${SITE}/get-form.html`);
    script([
      (seen) => {
        const ref = refNamed(seen, 'Next page');
        return ref
          ? { name: 'browser_type', args: { ref, text: `${VICTIM}/form-steal?secret=42` } }
          : undefined;
      },
      click('Go'),
    ]);
    const turn = await runTurn(s, 'Go to the next page.');
    expect(victimHits('/form-steal')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    await page.close();
  });

  it('browser_go_back is judged on the entry it lands on', async () => {
    const { page } = await openTab(s, `${VICTIM}/history-entry`);
    await page.goto(`${SITE}/start.html`);
    const before = victimHits('/history-entry').length;
    expect(before).toBe(1);
    script([() => ({ name: 'browser_go_back', args: {} })]);
    const turn = await runTurn(s, 'Go back.');
    expect(victimHits('/history-entry')).toHaveLength(before);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    await page.close();
  });

  it('an approved navigation goes through, to exactly the approved address', async () => {
    const { page } = await openTab(s, `${SITE}/shadow.html`);
    script([click('Continue')]);
    const turn = await runTurn(s, 'Continue.', (a) => (namesVictim(a) ? 'allow_once' : 'deny'));
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    expect(victimHits('/shadow-go').map((h) => h.url)).toEqual(['/shadow-go']);
    expect(page.url()).toBe(`${VICTIM}/shadow-go`);
    await page.close();
  });

  // browser_tab_open works in a tab the acting tab's guard does not cover: it opens blank, arms
  // its own guard, and only then goes to the address (tab-open.ts).
  it('browser_tab_open: a redirect chain from the allowed site to another is held, naming it; denied, the victim gets nothing and no tab is left', async () => {
    const { page } = await openTab(s, `${SITE}/start.html`);
    const tabsBefore = s.ext.context.pages().length;
    const chain = `${SITE}/redirect?u=${encodeURIComponent(`${SITE}/redirect?u=${encodeURIComponent(`http:\\\\victim.localhost:${victim.port}/tab-steal?d=1`)}`)}`;
    script([() => ({ name: 'browser_tab_open', args: { url: chain } })]);
    const turn = await runTurn(s, 'Open the next page in a new tab.');
    expect(victimHits('/tab-steal')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    expect(turn.approvals.find(namesVictim)?.target.url).toBe(`${VICTIM}/tab-steal?d=1`);
    const result = turn.items.find(
      (i) => i.kind === 'tool_result' && i.name === 'browser_tab_open',
    );
    expect(JSON.stringify(result)).toContain(VICTIM);
    // The blank tab that showed Chrome's error page was closed again.
    await new Promise((r) => setTimeout(r, 300));
    expect(s.ext.context.pages().length).toBe(tabsBefore);
    await page.close();
  });

  it('browser_tab_open: approved, the new tab really loads the other site (not left blank)', async () => {
    const { page } = await openTab(s, `${SITE}/start.html`);
    const chain = `${SITE}/redirect?u=${encodeURIComponent(`${VICTIM}/tab-approved`)}`;
    script([() => ({ name: 'browser_tab_open', args: { url: chain } })]);
    // The address carries another site's address, so opening it asks first (the site's rule does
    // not cover that); both answers are yes.
    const turn = await runTurn(s, 'Open the next page in a new tab.', () => 'allow_once');
    expect(turn.approvals.length).toBeGreaterThan(0);
    expect(victimHits('/tab-approved')).toHaveLength(1);
    const result = turn.items.filter(
      (i) => i.kind === 'tool_result' && i.name === 'browser_tab_open',
    );
    const opened = JSON.stringify(result.at(-1));
    expect(opened).toContain(`at ${VICTIM}/tab-approved`);
    expect(opened).not.toContain('still loading');
    for (const p of s.ext.context.pages()) if (p.url().startsWith(VICTIM)) await p.close();
    await page.close();
  });

  // A tab the action opens (target=_blank, window.open, a link Chrome drops as a new tab) is
  // outside the acting tab's rules: the new-tab rule holds its first navigation, and the guard
  // opens an allowed address again under the new tab's own rules (request-guard.ts).
  const victimTabs = () => s.ext.context.pages().filter((p) => p.url().startsWith(VICTIM));

  it('a link that opens a new tab and redirects through the allowed site to another: held, naming it; denied, nothing reaches it and no tab is left', async () => {
    const { page } = await openTab(s, `${SITE}/popup-chain.html`);
    const tabsBefore = s.ext.context.pages().length;
    script([click('See offer')]);
    const turn = await runTurn(s, 'Open the offer.');
    expect(victimHits('/popup-steal')).toEqual([]);
    expect(turn.approvals.filter(namesVictim)).toHaveLength(1);
    expect(turn.approvals.find(namesVictim)?.target.url).toBe(`${VICTIM}/popup-steal?d=1`);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.ext.context.pages().length).toBe(tabsBefore);
    await page.close();
  });

  it('window.open toward another site from a click: held, naming it; approved, a new tab loads exactly that address', async () => {
    const { page } = await openTab(s, `${SITE}/popup-open.html`);
    script([click('Share')]);
    const denied = await runTurn(s, 'Share it.');
    expect(victimHits('/open-steal')).toEqual([]);
    expect(denied.approvals.filter(namesVictim)).toHaveLength(1);
    expect(victimTabs()).toEqual([]);
    script([click('Share')]);
    const approved = await runTurn(s, 'Share it.', (a) => (namesVictim(a) ? 'allow_once' : 'deny'));
    expect(approved.approvals.filter(namesVictim)).toHaveLength(1);
    expect(victimHits('/open-steal').map((h) => h.url)).toEqual(['/open-steal?d=1']);
    expect(victimTabs().map((p) => p.url())).toEqual([`${VICTIM}/open-steal?d=1`]);
    for (const p of victimTabs()) await p.close();
    await page.close();
  });

  it('a new tab on the allowed site opens with no approval, and the model is told where it went', async () => {
    const { page } = await openTab(s, `${SITE}/popup-ok.html`);
    const startHits = () => site.hits.filter((h) => h.url === '/start.html').length;
    const before = startHits();
    script([click('Open start page')]);
    const turn = await runTurn(s, 'Open the start page.');
    expect(turn.approvals).toEqual([]);
    expect(startHits()).toBe(before + 1);
    const result = JSON.stringify(
      turn.items.filter((i) => i.kind === 'tool_result' && i.name === 'browser_click'),
    );
    expect(result).toMatch(
      new RegExp(`Tab \\d+ opened ${SITE.replace(/[.]/g, '\\.')}/start\\.html`),
    );
    const opened = s.ext.context.pages().filter((p) => p.url() === `${SITE}/start.html`);
    expect(opened.length).toBeGreaterThan(0);
    for (const p of opened) await p.close();
    await page.close();
  });

  it("the user's own browsing in another tab is not affected while the agent acts", async () => {
    const { page } = await openTab(s, `${SITE}/slow.html`);
    const other = await s.ext.context.newPage();
    await other.goto(`${SITE}/start.html`);
    await page.bringToFront();
    script([click('Slow page')]);
    const turn = runTurn(s, 'Open the slow page.');
    // The agent's click waits 3 s for the server's answer, inside the guard: meanwhile the user
    // posts to the victim and visits it from their own tab.
    const slowHits = () => site.hits.filter((h) => h.url === '/slow-target').length;
    for (let i = 0; i < 100 && slowHits() === 0; i++) await other.waitForTimeout(100);
    expect(slowHits()).toBe(1);
    const posted = await other.evaluate(
      (v) =>
        fetch(`${v}/user-post`, { method: 'POST', body: 'x', mode: 'no-cors' }).then(
          () => 'sent',
          () => 'blocked',
        ),
      VICTIM,
    );
    await other.goto(`${VICTIM}/user-visit`);
    const done = await turn;
    expect(posted).toBe('sent');
    expect(victimHits('/user-post')).toHaveLength(1);
    expect(victimHits('/user-visit')).toHaveLength(1);
    expect(done.approvals).toEqual([]);
    await other.close();
    await page.close();
  });
});
