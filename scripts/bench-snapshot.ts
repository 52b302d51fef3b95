/**
 * Snapshot benchmark: our snapshot vs Playwright's, page by page.
 *
 *   npm run bench:snapshot                  the generated page set
 *   KEEL_CORPUS_PAGES=<dir> npm run bench:snapshot
 *                                           the generated set, plus a real-site corpus read in place
 *   npm run bench:snapshot -- <dir>         only the .html pages of <dir>
 *   BENCH_SEED=7 npm run bench:snapshot     another generated set (default seed 1)
 *   npm run bench:snapshot -- --set forms   only the named sets (generated, forms, corpus)
 *
 * The forms sets (scripts/bench/form-pages.ts) are generated form pages, one per seed, in two
 * sets: `forms-dev` (the seeds the snapshot may be tuned on) and `forms-heldout` (seeds only
 * measured, never looked at while changing the snapshot). Their goal (issue 26, point 3) is a
 * median ≤ 0.33× Playwright's tokens with ≥ 99.8 % of visible interactive elements carrying a ref.
 *
 * The generated set (scripts/bench/snapshot-pages.ts) is the project's own: pages written from a
 * seed to cover the structures of the real-site corpus (deep nesting, long tables, forms, iframes,
 * shadow DOM, hidden text, huge lists, ARIA widgets, megabyte pages). The corpus pages belong to
 * their sites and are never copied into the repository; they are measured in place when present.
 * Every line and the JSON say which set a figure comes from.
 *
 * Each .html is served from 127.0.0.1 and loaded in Chromium with every non-loopback request
 * aborted (captured pages reference the whole web). For each page: our snapshot in whole-page
 * mode with no budget, Playwright's AI-mode snapshot (what Playwright MCP sends; `ariaSnapshot
 * ({ mode: 'ai' })` in playwright-core 1.65) and its default aria snapshot, token counts with
 * o200k_base, our time in the page, and ref coverage: visible interactive elements (by an
 * independent definition below) and how many carry a ref that appears in our snapshot text.
 *
 * Writes bench-results/snapshot.json (`sets`: one summary per page set; the top-level figures
 * are those of the first set) and bench-results/snapshots/<set>/<page>.txt.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser/support/chromium';
import { pageAgentBundle, REPO_ROOT } from '../test/e2e/browser/support/bundle';
import { serveDir } from '../test/e2e/browser/support/server';
import { DEV_SEEDS, HELD_OUT_SEEDS, writeFormPages } from './bench/form-pages';
import { writePageSet } from './bench/snapshot-pages';

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
  /** Playwright's snapshot failed (timeout): its tokens are 0 and the page is left out of ratios. */
  playwrightError?: string;
  error?: string;
}

const PLAYWRIGHT_TIMEOUT_MS = 30_000;

const outDir = join(REPO_ROOT, 'bench-results');
// A real-site page corpus is measured only when named: the repository never reaches outside itself.
const CORPUS_DIR = process.env.KEEL_CORPUS_PAGES
  ? resolve(process.env.KEEL_CORPUS_PAGES)
  : undefined;
const SEED = Number(process.env.BENCH_SEED ?? 1);

interface PageSet {
  /** 'generated', 'corpus', or the folder's name when one is given. */
  name: string;
  dir: string;
  source: string;
}

const args = process.argv.slice(2);
const setFlag = args.indexOf('--set');
/** `--set generated,forms,corpus`: the sets to measure (default: all that are available). */
const chosen = setFlag >= 0 ? new Set((args[setFlag + 1] ?? '').split(',')) : null;
const folderArg = args.find((a, i) => !a.startsWith('--') && (setFlag < 0 || i !== setFlag + 1));
const wants = (name: string) => !chosen || chosen.has(name);

/** Which sets this run measures (see the file comment). */
function pageSets(): PageSet[] {
  if (folderArg) {
    const dir = resolve(folderArg);
    return [{ name: basename(dir), dir, source: `the folder given (${dir})` }];
  }
  const sets: PageSet[] = [];
  if (wants('generated')) {
    const generated = join(outDir, 'pages-generated');
    writePageSet(generated, SEED);
    sets.push({
      name: 'generated',
      dir: generated,
      source: `scripts/bench/snapshot-pages.ts, seed ${SEED}`,
    });
  }
  if (wants('forms')) {
    for (const [name, seeds] of [
      ['forms-dev', DEV_SEEDS],
      ['forms-heldout', HELD_OUT_SEEDS],
    ] as const) {
      const dir = join(outDir, `pages-${name}`);
      writeFormPages(dir, seeds);
      sets.push({
        name,
        dir,
        source: `scripts/bench/form-pages.ts, seeds ${seeds.from}–${seeds.to}`,
      });
    }
  }
  if (wants('corpus') && CORPUS_DIR && existsSync(CORPUS_DIR))
    sets.push({
      name: 'corpus',
      dir: CORPUS_DIR,
      source: `${CORPUS_DIR} (real sites, read in place)`,
    });
  return sets;
}
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
  const props = await cdp.send('Runtime.getProperties', {
    objectId: result.objectId,
    ownProperties: true,
  });
  for (const p of props.result) {
    if (!/^\d+$/.test(p.name) || !p.value?.objectId) continue;
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', {
      objectId: p.value.objectId,
    });
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

async function benchPage(
  page: Page,
  cdp: CDPSession,
  url: string,
  bundle: string,
): Promise<Omit<PageResult, 'name' | 'bytes'>> {
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 20_000 });
  await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => undefined);
  await page.evaluate(bundle);
  const request = {
    op: 'snapshot',
    mode: 'full',
    incremental: false,
    maxTokens: 200_000,
    textLimit: 200,
    includeUrls: false,
    refPrefix: '',
  };
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
  // Playwright's snapshots can fail where ours does not (its AI mode times out on nesting deeper
  // than about 50 elements): the page keeps our figures and records Playwright's failure.
  const playwrightErrors: string[] = [];
  const attempt = (what: string, run: () => Promise<string>) =>
    run().catch((e: unknown) => {
      playwrightErrors.push(
        `${what}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
      );
      return '';
    });
  const pw = await attempt('ai', () =>
    page.ariaSnapshot({ mode: 'ai', timeout: PLAYWRIGHT_TIMEOUT_MS }),
  );
  // When the AI mode timed out the default mode does too (same tree walk): do not wait twice.
  const pwDefault = playwrightErrors.length
    ? ''
    : await attempt('default', () =>
        page.locator('body').ariaSnapshot({ timeout: PLAYWRIGHT_TIMEOUT_MS }),
      );
  await markClickHandlers(page, cdp);
  const cover = (await page.evaluate(COUNT_INTERACTIVE)) as {
    interactive: number;
    withRef: number;
    missing: string[];
  };
  return {
    ourTokens: countTokens(first.text),
    playwrightTokens: countTokens(pw),
    playwrightDefaultTokens: countTokens(pwDefault),
    ms: Math.round(first.ms * 10) / 10,
    warmMs: Math.round(warm * 10) / 10,
    interactive: cover.interactive,
    interactiveWithRef: cover.withRef,
    ...(cover.missing.length ? { missing: cover.missing } : {}),
    ...(playwrightErrors.length ? { playwrightError: playwrightErrors.join('; ') } : {}),
    __text: first.text,
    __playwright: pw,
  } as Omit<PageResult, 'name' | 'bytes'> & { __text: string; __playwright: string };
}

async function runSet(set: PageSet, browser: Browser, bundle: string) {
  const files = readdirSync(set.dir)
    .filter((f) => f.endsWith('.html'))
    .filter((f) => !only || only.test(f))
    .sort();
  if (!files.length) throw new Error(`no .html files in ${set.dir}`);
  const snapshotsDir = join(outDir, 'snapshots', set.name);
  mkdirSync(snapshotsDir, { recursive: true });
  console.log(`\npage set "${set.name}": ${files.length} pages from ${set.source}`);
  const server = await serveDir(set.dir);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    return host === '127.0.0.1' || host === 'localhost' ? route.continue() : route.abort();
  });
  const results: PageResult[] = [];
  try {
    for (const file of files) {
      const name = basename(file, '.html');
      const bytes = statSync(join(set.dir, file)).size;
      const page = await context.newPage();
      page.on('dialog', (d) => void d.dismiss());
      const cdp = await context.newCDPSession(page);
      try {
        const { __text, __playwright, ...r } = (await benchPage(
          page,
          cdp,
          `${server.origin}/${encodeURIComponent(file)}`,
          bundle,
        )) as Omit<PageResult, 'name' | 'bytes'> & { __text?: string; __playwright?: string };
        writeFileSync(join(snapshotsDir, `${name}.txt`), __text ?? '');
        // Playwright's snapshot beside ours, to read where the tokens go.
        writeFileSync(join(snapshotsDir, `${name}.playwright.txt`), __playwright ?? '');
        results.push({ name, bytes, ...r });
      } catch (e) {
        results.push({
          name,
          bytes,
          ourTokens: 0,
          playwrightTokens: 0,
          playwrightDefaultTokens: 0,
          ms: 0,
          warmMs: 0,
          interactive: 0,
          interactiveWithRef: 0,
          error: e instanceof Error ? e.message.split('\n')[0] : String(e),
        });
      } finally {
        await cdp.detach().catch(() => undefined);
        await page.close();
      }
      const r = results[results.length - 1];
      const ratio = r.playwrightTokens ? (r.ourTokens / r.playwrightTokens).toFixed(2) : '-';
      console.log(
        `${set.name}/${name.padEnd(44)} ${String(Math.round(bytes / 1024)).padStart(5)}KB  ours ${String(r.ourTokens).padStart(6)}  pw ${String(
          r.playwrightTokens,
        ).padStart(
          6,
        )}  ratio ${ratio.padStart(5)}  ${String(r.ms).padStart(6)}ms  refs ${r.interactiveWithRef}/${r.interactive}${r.error ? `  ERROR ${r.error}` : ''}${r.playwrightError ? `  (Playwright failed: ${r.playwrightError})` : ''}`,
      );
    }
  } finally {
    await context.close();
    await server.close();
  }

  // Ratios need both snapshots; our own figures (time, refs) count every page we measured.
  const measured = results.filter((r) => !r.error);
  const ok = measured.filter((r) => r.playwrightTokens > 0 && !r.playwrightError);
  const ratios = ok.map((r) => r.ourTokens / r.playwrightTokens);
  const ratiosDefault = ok
    .filter((r) => r.playwrightDefaultTokens > 0)
    .map((r) => r.ourTokens / r.playwrightDefaultTokens);
  const small = measured.filter((r) => r.bytes <= 500 * 1024);
  const interactive = measured.reduce((s, r) => s + r.interactive, 0);
  const withRef = measured.reduce((s, r) => s + r.interactiveWithRef, 0);
  const summary = {
    set: set.name,
    source: set.source,
    pages: results,
    median: {
      tokenRatio: round(percentile(ratios, 50), 3),
      ms: percentile(
        measured.map((r) => r.ms),
        50,
      ),
    },
    p90: {
      ms: percentile(
        measured.map((r) => r.ms),
        90,
      ),
      msUpTo500KB: percentile(
        small.map((r) => r.ms),
        90,
      ),
    },
    totals: {
      pages: results.length,
      errors: results.filter((r) => r.error).length,
      playwrightFailures: measured.filter((r) => r.playwrightError).length,
      ourTokens: ok.reduce((s, r) => s + r.ourTokens, 0),
      playwrightTokens: ok.reduce((s, r) => s + r.playwrightTokens, 0),
      medianRatioVsDefaultAriaSnapshot: round(percentile(ratiosDefault, 50), 3),
      /** Ours over Playwright's, summed over the pages both measured. */
      tokenRatio: round(
        ok.reduce((s, r) => s + r.ourTokens, 0) /
          Math.max(
            1,
            ok.reduce((s, r) => s + r.playwrightTokens, 0),
          ),
        3,
      ),
      interactive,
      interactiveWithRef: withRef,
      refCoverage: interactive ? round(withRef / interactive, 4) : 1,
    },
  };
  const tag = `[${set.name}]`;
  console.log(
    `${tag} median token ratio (ours / Playwright AI snapshot):`,
    summary.median.tokenRatio,
  );
  console.log(
    `${tag} median token ratio (ours / Playwright default aria snapshot):`,
    summary.totals.medianRatioVsDefaultAriaSnapshot,
  );
  console.log(
    `${tag} total tokens: ours`,
    summary.totals.ourTokens,
    'playwright',
    summary.totals.playwrightTokens,
    `(ratio ${summary.totals.tokenRatio})`,
  );
  console.log(
    `${tag} snapshot ms: median`,
    summary.median.ms,
    'p90',
    summary.p90.ms,
    'p90 (pages ≤ 500 KB)',
    summary.p90.msUpTo500KB,
  );
  console.log(
    `${tag} refs: ${withRef}/${interactive} visible interactive elements (${(summary.totals.refCoverage * 100).toFixed(2)}%)`,
  );
  console.log(
    `${tag} errors: ${summary.totals.errors}; Playwright failed on ${summary.totals.playwrightFailures} (left out of the ratios)`,
  );
  return summary;
}

async function main(): Promise<void> {
  const sets = pageSets();
  console.log(`page sets: ${sets.map((s) => `${s.name} (${s.source})`).join('; ')}`);
  if (!sets.length) throw new Error(`no page set named by --set ${[...(chosen ?? [])].join(',')}`);
  if (!folderArg && wants('corpus') && !sets.some((s) => s.name === 'corpus'))
    console.log(
      CORPUS_DIR
        ? `(${CORPUS_DIR} is not present: the real-site corpus is not measured)`
        : '(KEEL_CORPUS_PAGES is not set: the real-site corpus is not measured)',
    );
  const bundle = await pageAgentBundle();
  const browser = await launchChromium();
  const summaries = [];
  try {
    for (const set of sets) summaries.push(await runSet(set, browser, bundle));
  } finally {
    await browser.close();
  }
  const [first] = summaries;
  const out = {
    sets: summaries,
    set: first.set,
    median: first.median,
    p90: first.p90,
    totals: first.totals,
  };
  writeFileSync(join(outDir, 'snapshot.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(
    `\nwritten ${join(outDir, 'snapshot.json')} (sets: ${summaries.map((s) => s.set).join(', ')})`,
  );
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

await main();
