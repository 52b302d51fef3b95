/**
 * Snapshot benchmark: our snapshot vs Playwright's on real pages.
 *
 *   npm run bench:snapshot -- [dir]      (default: ../shared/corpus/pages from the repo root)
 *
 * Each .html is served from 127.0.0.1 and loaded in Chromium with every non-loopback request
 * aborted (captured pages reference the whole web). For each page: our snapshot in whole-page
 * mode with no budget, Playwright's AI-mode snapshot (what Playwright MCP sends; `ariaSnapshot
 * ({ mode: 'ai' })` in playwright-core 1.65) and its default aria snapshot, token counts with
 * o200k_base, our time in the page, and ref coverage: visible interactive elements (by an
 * independent definition below) and how many carry a ref that appears in our snapshot text.
 *
 * Writes bench-results/snapshot.json and bench-results/snapshots/<page>.txt.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser/support/chromium';
import { pageAgentBundle, REPO_ROOT } from '../test/e2e/browser/support/bundle';
import { serveDir } from '../test/e2e/browser/support/server';

interface PageResult {
  name: string;
  bytes: number;
  ourTokens: number;
  playwrightTokens: number;
  playwrightDefaultTokens: number;
  ms: number;
  warmMs: number;
  interactive: number;
  interactiveWithRef: number;
  missing?: string[];
  error?: string;
}

const dir = resolve(REPO_ROOT, process.argv[2] ?? '../shared/corpus/pages');
const outDir = join(REPO_ROOT, 'bench-results');
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Marks elements focusable through tabindex that have a click listener (CDP sees listeners). */
async function markClickHandlers(page: Page, cdp: CDPSession): Promise<void> {
  const { result } = await cdp.send('Runtime.evaluate', {
    expression: `Array.from(document.querySelectorAll('[tabindex]')).filter(e => e.tabIndex >= 0).slice(0, 400)`,
  });
  if (!result.objectId) return;
  const props = await cdp.send('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
  for (const p of props.result) {
    if (!/^\d+$/.test(p.name) || !p.value?.objectId) continue;
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: p.value.objectId });
    if (listeners.some((l) => ['click', 'mousedown', 'pointerdown', 'keydown'].includes(l.type))) {
      await cdp.send('Runtime.callFunctionOn', {
        objectId: p.value.objectId,
        functionDeclaration: 'function () { this.setAttribute("data-bench-click", "1"); }',
      });
    }
  }
  await cdp.send('Runtime.releaseObjectGroup', { objectGroup: '' }).catch(() => undefined);
  void page;
}

/**
 * Visible interactive elements, defined independently of the snapshot code: native controls,
 * interactive ARIA roles, contenteditable, and tabindex-focusable elements with click handlers;
 * visible = checkVisibility (CSS visibility and opacity), not under aria-hidden/inert, a box of
 * more than 1×1 px, and not positioned outside the page.
 */
const COUNT_INTERACTIVE = `(() => {
  const ROLES = ['button','link','checkbox','radio','switch','tab','menuitem','menuitemcheckbox','menuitemradio','option','combobox','textbox','searchbox','slider','spinbutton','treeitem'];
  const SEL = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,[contenteditable]:not([contenteditable=false]),[data-bench-click],' + ROLES.map(r => '[role=' + r + ']').join(',');
  const out = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll(SEL)) out.push(el);
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) visit(host.shadowRoot);
  };
  visit(document);
  const visible = (el) => {
    if (el.closest('[aria-hidden=true],[inert]')) return false;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0) return false;
    if (r.left + scrollX >= Math.max(document.documentElement.scrollWidth, innerWidth)) return false;
    // Clipped away by a zero-size ancestor that hides its overflow.
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const ar = a.getBoundingClientRect();
      if (ar.width < 1 || ar.height < 1) return false;
    }
    // Nested editable descendants are part of their editable root.
    if (el.isContentEditable && el.parentElement && el.parentElement.isContentEditable) return false;
    return true;
  };
  const shown = out.filter(visible);
  const text = window.__benchText || '';
  const missing = [];
  let withRef = 0;
  for (const el of shown) {
    const ref = window.__keelTest.refOf(el);
    if (ref && text.includes('[ref=' + ref + ']')) withRef++;
    else if (missing.length < 8) missing.push(el.outerHTML.slice(0, 160));
  }
  return { interactive: shown.length, withRef, missing };
})()`;

async function benchPage(page: Page, cdp: CDPSession, url: string, bundle: string): Promise<Omit<PageResult, 'name' | 'bytes'>> {
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 20_000 });
  await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => undefined);
  await page.evaluate(bundle);
  const request = { op: 'snapshot', mode: 'full', incremental: false, maxTokens: 200_000, textLimit: 200, includeUrls: false, refPrefix: '' };
  const first = await page.evaluate(async (req) => {
    const r = await window.__keelTest!.handle(req);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as { text: string; ms: number };
    (window as unknown as { __benchText: string }).__benchText = res.text;
    return res;
  }, request);
  const warm = await page.evaluate(async (req) => {
    const r = await window.__keelTest!.handle(req);
    return r.ok ? (r.result as { ms: number }).ms : -1;
  }, request);
  const pw = await page.ariaSnapshot({ mode: 'ai', timeout: 30_000 });
  const pwDefault = await page.locator('body').ariaSnapshot({ timeout: 30_000 });
  await markClickHandlers(page, cdp);
  const cover = (await page.evaluate(COUNT_INTERACTIVE)) as { interactive: number; withRef: number; missing: string[] };
  return {
    ourTokens: countTokens(first.text),
    playwrightTokens: countTokens(pw),
    playwrightDefaultTokens: countTokens(pwDefault),
    ms: Math.round(first.ms * 10) / 10,
    warmMs: Math.round(warm * 10) / 10,
    interactive: cover.interactive,
    interactiveWithRef: cover.withRef,
    ...(cover.missing.length ? { missing: cover.missing } : {}),
    __text: first.text,
  } as Omit<PageResult, 'name' | 'bytes'> & { __text: string };
}

async function main(): Promise<void> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .filter((f) => !only || only.test(f))
    .sort();
  if (!files.length) throw new Error(`no .html files in ${dir}`);
  mkdirSync(join(outDir, 'snapshots'), { recursive: true });
  const bundle = await pageAgentBundle();
  const server = await serveDir(dir);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    return host === '127.0.0.1' || host === 'localhost' ? route.continue() : route.abort();
  });
  const results: PageResult[] = [];
  try {
    for (const file of files) {
      const name = basename(file, '.html');
      const bytes = statSync(join(dir, file)).size;
      const page = await context.newPage();
      page.on('dialog', (d) => void d.dismiss());
      const cdp = await context.newCDPSession(page);
      try {
        const { __text, ...r } = (await benchPage(page, cdp, `${server.origin}/${encodeURIComponent(file)}`, bundle)) as Omit<
          PageResult,
          'name' | 'bytes'
        > & { __text?: string };
        writeFileSync(join(outDir, 'snapshots', `${name}.txt`), __text ?? '');
        results.push({ name, bytes, ...r });
      } catch (e) {
        results.push({
          name, bytes, ourTokens: 0, playwrightTokens: 0, playwrightDefaultTokens: 0, ms: 0, warmMs: 0, interactive: 0, interactiveWithRef: 0,
          error: e instanceof Error ? e.message.split('\n')[0] : String(e),
        });
      } finally {
        await cdp.detach().catch(() => undefined);
        await page.close();
      }
      const r = results[results.length - 1];
      const ratio = r.playwrightTokens ? (r.ourTokens / r.playwrightTokens).toFixed(2) : '-';
      console.log(
        `${name.padEnd(44)} ${String(Math.round(bytes / 1024)).padStart(5)}KB  ours ${String(r.ourTokens).padStart(6)}  pw ${String(
          r.playwrightTokens,
        ).padStart(6)}  ratio ${ratio.padStart(5)}  ${String(r.ms).padStart(6)}ms  refs ${r.interactiveWithRef}/${r.interactive}${r.error ? `  ERROR ${r.error}` : ''}`,
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }

  const ok = results.filter((r) => !r.error && r.playwrightTokens > 0);
  const ratios = ok.map((r) => r.ourTokens / r.playwrightTokens);
  const ratiosDefault = ok.filter((r) => r.playwrightDefaultTokens > 0).map((r) => r.ourTokens / r.playwrightDefaultTokens);
  const small = ok.filter((r) => r.bytes <= 500 * 1024);
  const interactive = ok.reduce((s, r) => s + r.interactive, 0);
  const withRef = ok.reduce((s, r) => s + r.interactiveWithRef, 0);
  const summary = {
    pages: results,
    median: { tokenRatio: round(percentile(ratios, 50), 3), ms: percentile(ok.map((r) => r.ms), 50) },
    p90: { ms: percentile(ok.map((r) => r.ms), 90), msUpTo500KB: percentile(small.map((r) => r.ms), 90) },
    totals: {
      pages: results.length,
      errors: results.filter((r) => r.error).length,
      ourTokens: ok.reduce((s, r) => s + r.ourTokens, 0),
      playwrightTokens: ok.reduce((s, r) => s + r.playwrightTokens, 0),
      medianRatioVsDefaultAriaSnapshot: round(percentile(ratiosDefault, 50), 3),
      interactive,
      interactiveWithRef: withRef,
      refCoverage: interactive ? round(withRef / interactive, 4) : 1,
    },
  };
  writeFileSync(join(outDir, 'snapshot.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log('\nmedian token ratio (ours / Playwright AI snapshot):', summary.median.tokenRatio);
  console.log('median token ratio (ours / Playwright default aria snapshot):', summary.totals.medianRatioVsDefaultAriaSnapshot);
  console.log('total tokens: ours', summary.totals.ourTokens, 'playwright', summary.totals.playwrightTokens);
  console.log('snapshot ms: median', summary.median.ms, 'p90', summary.p90.ms, 'p90 (pages ≤ 500 KB)', summary.p90.msUpTo500KB);
  console.log(`refs: ${withRef}/${interactive} visible interactive elements (${(summary.totals.refCoverage * 100).toFixed(2)}%)`);
  console.log(`errors: ${summary.totals.errors}; written ${join(outDir, 'snapshot.json')}`);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

await main();
