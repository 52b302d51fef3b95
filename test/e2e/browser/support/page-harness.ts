/**
 * Chromium + the fixture site + the page agent injected through the test hook: drives the same
 * requests the service worker sends, without the extension.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PageResponse } from '../../../../src/protocol/page-messages';
import { pageAgentBundle, REPO_ROOT } from './bundle';
import { launchChromium } from './chromium';
import { serveFixtureSite } from './server';

export const FIXTURE_DIR = join(REPO_ROOT, 'test/fixtures/site');

export interface Harness {
  browser: Browser;
  context: BrowserContext;
  main: string;
  other: string;
  open(path: string): Promise<Page>;
  close(): Promise<void>;
}

/** `fixtureDir`: the directory served (default: test/fixtures/site). */
export async function startHarness(opts: { fixtureDir?: string } = {}): Promise<Harness> {
  const site = await serveFixtureSite(opts.fixtureDir ?? FIXTURE_DIR);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const bundle = await pageAgentBundle();
  // The hook is installed in every document (frames too), like the manifest content script.
  await context.addInitScript({
    content: `document.addEventListener('DOMContentLoaded', () => { ${bundle} }, { once: true });`,
  });
  return {
    browser,
    context,
    main: site.main.origin,
    other: site.other.origin,
    async open(path) {
      const page = await context.newPage();
      await page.goto(`${site.main.origin}/${path}`, { waitUntil: 'load' });
      await page.waitForFunction(() => Boolean(window.__keelTest));
      return page;
    },
    async close() {
      await browser.close();
      await site.close();
    },
  };
}

export async function call<R = unknown>(page: Page, request: Record<string, unknown>): Promise<R> {
  const res = (await page.evaluate(
    (r) => window.__keelTest!.handle(r),
    request,
  )) as PageResponse<R>;
  if (!res.ok) throw Object.assign(new Error(res.error.message), { code: res.error.code });
  return res.result;
}

export async function callRaw(page: Page, request: Record<string, unknown>): Promise<PageResponse> {
  return (await page.evaluate((r) => window.__keelTest!.handle(r), request)) as PageResponse;
}

export interface SnapOptions {
  mode?: 'full' | 'viewport';
  incremental?: boolean;
  maxTokens?: number;
  textLimit?: number;
  includeUrls?: boolean;
}

export async function snapshot(page: Page, o: SnapOptions = {}) {
  return call<{
    text: string;
    docId: string;
    kind: string;
    truncated: boolean;
    refs: number;
    ms: number;
    estTokens: number;
  }>(page, {
    op: 'snapshot',
    mode: o.mode ?? 'full',
    incremental: o.incremental ?? false,
    maxTokens: o.maxTokens ?? 20_000,
    textLimit: o.textLimit ?? 200,
    includeUrls: o.includeUrls ?? false,
    refPrefix: '',
  });
}

/** The ref of the first snapshot line matching `pattern`. */
export function refOf(text: string, pattern: RegExp): string {
  for (const line of text.split('\n')) {
    if (!pattern.test(line)) continue;
    const m = /\[ref=(e\d+)\]/.exec(line);
    if (m) return m[1];
  }
  throw new Error(`no line matches ${pattern}:\n${text}`);
}

/** An action request, then the settle that follows it, as the service worker does. */
export async function act<A = Record<string, unknown>>(
  page: Page,
  request: Record<string, unknown>,
) {
  const ack = await call<A>(page, request);
  const settled = await call<{
    quiet: boolean;
    mutations: number;
    url: string;
    appeared: string[];
    element?: { line: string } | { gone: true };
  }>(page, {
    op: 'settle',
    quietMs: 150,
    timeoutMs: 2000,
    ref: request.ref,
  });
  return { ack, settled };
}
