/** Shared Chromium plumbing for the benchmarks: the built extension, a client page, the probe. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { EngineClient, launchExtension, type LaunchedExtension } from '../../test/e2e/harness';
import type { ChatServer } from '../demo/openai-server';
import { DIST, REPO_ROOT } from '../demo/setup';

export const PROBE_SOURCE = readFileSync(
  join(REPO_ROOT, 'scripts/bench/browser/idb-probe.js'),
  'utf8',
);

export function launch(): Promise<LaunchedExtension> {
  return launchExtension({ dist: process.env.KEEL_DIST || DIST, headless: true });
}

/**
 * An extension page without the panel UI (the manifest shown as text): it can open the engine
 * Port, and no Preact app renders the events, so it does not compete with the worker for CPU.
 */
export async function lightClient(
  ext: LaunchedExtension,
): Promise<{ page: Page; client: EngineClient }> {
  const page = await ext.context.newPage();
  await page.goto(ext.url('manifest.json'));
  const client = await EngineClient.connect(page, { timeoutMs: 30_000 });
  await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  return { page, client };
}

export async function useServer(
  client: EngineClient,
  server: ChatServer,
  model = 'bench-model',
): Promise<void> {
  await client.sendOk({
    type: 'settings.update',
    patch: {
      providers: [{ id: 'bench', kind: 'openai', baseURL: server.baseURL, apiKey: 'bench-key' }],
      defaultModel: { providerId: 'bench', model },
    },
  });
}

/** Tool results since the last user message of an OpenAI chat request. */
export function toolResultsSinceUser(messages: unknown[] | undefined): number {
  const ms = (messages ?? []) as { role: string }[];
  let n = 0;
  for (let i = ms.length - 1; i >= 0 && ms[i].role !== 'user'; i--) if (ms[i].role === 'tool') n++;
  return n;
}

const TURN_CLIENT_SOURCE = readFileSync(
  join(REPO_ROOT, 'scripts/bench/browser/turn-client.js'),
  'utf8',
)
  .replace(/^\/\*[\s\S]*?\*\/\s*/, '')
  .trim()
  .replace(/;$/, '');

/** A turn on a new thread, timed inside the page (see browser/turn-client.js). */
export async function pageTimedTurn(
  page: Page,
  text: string,
  threadId?: string,
): Promise<{ ms: number; threadId: string }> {
  const args = [text, threadId ?? null].map((a) => JSON.stringify(a)).join(', ');
  return (await page.evaluate(`(${TURN_CLIENT_SOURCE})(${args})`)) as {
    ms: number;
    threadId: string;
  };
}

export const PANEL_HOOK_SOURCE = readFileSync(
  join(REPO_ROOT, 'scripts/bench/browser/panel-hook.js'),
  'utf8',
);

function panelPath(): string {
  const dist = process.env.KEEL_DIST || DIST;
  const manifest = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')) as {
    side_panel?: { default_path?: string };
  };
  return manifest.side_panel?.default_path ?? 'sidepanel/index.html';
}

/**
 * The real side panel page as a tab (side-panel sized), with panel-hook.js installed before its
 * scripts, showing `threadId` (the panel keeps its selection in sessionStorage).
 */
export async function openHookedPanel(ext: LaunchedExtension, threadId?: string): Promise<Page> {
  const page = await ext.context.newPage();
  await page.setViewportSize({ width: 420, height: 900 });
  await page.addInitScript(PANEL_HOOK_SOURCE);
  await page.goto(ext.url(panelPath()));
  if (threadId) await selectThread(page, threadId);
  await page.bringToFront();
  return page;
}

/** Selects a thread in the panel by its stored selection and reloads the page. */
export async function selectThread(
  page: Page,
  threadId: string,
  watchRows?: number,
): Promise<void> {
  await page.evaluate(
    ([id, rows]) => {
      sessionStorage.setItem('keel.selectedThread', id as string);
      if (rows) sessionStorage.setItem('keel.bench.watch', JSON.stringify({ threadId: id, rows }));
      else sessionStorage.removeItem('keel.bench.watch');
    },
    [threadId, watchRows ?? 0] as const,
  );
  await page.reload();
  await page.waitForSelector(`.messages[data-thread-id="${threadId}"]`, {
    state: 'attached',
    timeout: 60_000,
  });
}

/**
 * Offset of the page's clock from Node's (page − node, ms), from the round trip with the smallest
 * delay; `uncertaintyMs` is half that round trip.
 */
export async function clockOffset(
  page: Page,
  samples = 15,
): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  const wall = () => performance.timeOrigin + performance.now();
  let best = { offsetMs: 0, uncertaintyMs: Infinity };
  for (let i = 0; i < samples; i++) {
    const t0 = wall();
    const p = await page.evaluate(() => performance.timeOrigin + performance.now());
    const t1 = wall();
    const half = (t1 - t0) / 2;
    if (half < best.uncertaintyMs) best = { offsetMs: p - (t0 + half), uncertaintyMs: half };
  }
  return best;
}
