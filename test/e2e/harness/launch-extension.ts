import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page, Worker } from 'playwright-core';

/** The built extension, relative to the repository root (vitest runs from there). */
export const DEFAULT_DIST = resolve('dist');

export interface LaunchOptions {
  /** Directory of the built extension. Default: `dist/` of this checkout. */
  dist?: string;
  /** Default true: headless Chromium does everything the tests need (TOOLCHAIN.md). */
  headless?: boolean;
}

export interface LaunchedExtension {
  context: BrowserContext;
  extensionId: string;
  /** The fresh profile directory (removed by `close()`). */
  profileDir: string;
  /**
   * The extension's service worker, as Playwright last reported it. After `stopServiceWorker()`
   * wake the worker (connect a Port, open a page) before evaluating in it.
   */
  readonly worker: Worker;
  /** `chrome-extension://<id>/<path>`. */
  url(path: string): string;
  /** Opens the side panel page (manifest `side_panel.default_path`) as a normal tab. */
  openPanel(): Promise<Page>;
  /**
   * Stops the extension's service worker through CDP and resolves once Chromium reports it stopped
   * (immediately if it already was). Ports to it disconnect; the next connect or event restarts it.
   */
  stopServiceWorker(timeoutMs?: number): Promise<void>;
  /** Closes the browser and removes its profile directory. Safe to call twice. */
  close(): Promise<void>;
}

/** The browser the tests drive: `CHROMIUM_PATH`, else Debian's package. */
export function chromiumExecutable(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}: run \`node scripts/ensure-chromium.mjs\` or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

function readPanelPath(dist: string): string {
  const manifestPath = join(dist, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(`${manifestPath} is missing: build the extension first (\`npm run build\`).`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    side_panel?: { default_path?: string };
  };
  const path = manifest.side_panel?.default_path;
  if (!path) throw new Error(`${manifestPath} has no side_panel.default_path.`);
  return path;
}

export async function launchExtension(options: LaunchOptions = {}): Promise<LaunchedExtension> {
  const dist = resolve(options.dist ?? DEFAULT_DIST);
  const panelPath = readPanelPath(dist);
  const profileDir = await mkdtemp(join(tmpdir(), 'keel-e2e-'));
  const removeProfile = () =>
    rm(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumExecutable(),
      headless: options.headless ?? true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--disable-extensions-except=${dist}`,
        `--load-extension=${dist}`,
      ],
    });
  } catch (err) {
    await removeProfile();
    throw err;
  }

  const isOurs = (w: Worker) => w.url().startsWith('chrome-extension://');
  let worker: Worker;
  try {
    worker =
      context.serviceWorkers().find(isOurs) ??
      (await context.waitForEvent('serviceworker', { predicate: isOurs, timeout: 15_000 }));
  } catch (err) {
    await context.close().catch(() => {});
    await removeProfile();
    throw new Error(`the extension in ${dist} started no service worker: ${String(err)}`);
  }
  context.on('serviceworker', (w) => {
    if (isOurs(w)) worker = w;
  });
  const extensionId = new URL(worker.url()).host;
  const url = (path: string) => `chrome-extension://${extensionId}/${path.replace(/^\//, '')}`;

  let closed = false;
  return {
    context,
    extensionId,
    profileDir,
    get worker() {
      return worker;
    },
    url,
    async openPanel() {
      const page = await context.newPage();
      await page.goto(url(panelPath));
      return page;
    },
    stopServiceWorker: (timeoutMs = 10_000) =>
      stopExtensionWorkers(context, extensionId, timeoutMs),
    async close() {
      if (closed) return;
      closed = true;
      await context.close().catch(() => {});
      // Chromium may still be flushing the profile for a moment after it exits.
      await removeProfile();
    },
  };
}

interface WorkerVersion {
  versionId: string;
  scriptURL: string;
  runningStatus: 'stopped' | 'starting' | 'running' | 'stopping';
}

/**
 * Chromium never stops an idle worker on its own under test (TOOLCHAIN.md), so recovery tests stop
 * it explicitly. `ServiceWorker.enable` reports every known version's state, which is how an
 * already-stopped worker is recognised without waiting for an update that will never come.
 */
async function stopExtensionWorkers(
  context: BrowserContext,
  extensionId: string,
  timeoutMs: number,
): Promise<void> {
  const origin = `chrome-extension://${extensionId}/`;
  const ownPage = context.pages().length === 0 ? await context.newPage() : undefined;
  const page = ownPage ?? context.pages()[0];
  const cdp = await context.newCDPSession(page);
  const status = new Map<string, WorkerVersion['runningStatus']>();
  let settle: () => void = () => {};
  const allStopped = new Promise<void>((r) => (settle = r));
  const check = () => {
    if (status.size > 0 && [...status.values()].every((s) => s === 'stopped')) settle();
  };
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }: { versions: WorkerVersion[] }) => {
    for (const v of versions)
      if (v.scriptURL.startsWith(origin)) status.set(v.versionId, v.runningStatus);
    check();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    check();
    await Promise.race([
      allStopped,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const seen =
            [...status.entries()].map(([id, s]) => `${id}:${s}`).join(', ') ||
            'no versions reported';
          reject(
            new Error(
              `service worker of ${extensionId} did not stop within ${timeoutMs} ms (${seen})`,
            ),
          );
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await cdp.send('ServiceWorker.disable').catch(() => {});
    await cdp.detach().catch(() => {});
    await ownPage?.close().catch(() => {});
  }
}
