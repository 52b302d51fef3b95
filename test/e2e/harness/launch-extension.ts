import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumExecutable } from './chromium-flags';
import { leaseExtension, sharingEnabled } from './shared-browser';

export { chromiumExecutable } from './chromium-flags';

/** The built extension, relative to the repository root (vitest runs from there). */
export const DEFAULT_DIST = resolve('dist');

export interface LaunchOptions {
  /** Directory of the built extension. Default: `dist/` of this checkout. */
  dist?: string;
  /** Default true: headless Chromium does everything the tests need (TOOLCHAIN.md). */
  headless?: boolean;
  /**
   * Default true (unless `KEEL_E2E_SHARED_BROWSER=0`): install the extension into this test
   * worker's shared headless browser instead of launching one (see `shared-browser.ts`). The
   * extension starts from a first install either way. A launch made while the shared browser is
   * already in use, or a headed one, gets its own browser.
   */
  shared?: boolean;
}

export interface LaunchedExtension {
  context: BrowserContext;
  extensionId: string;
  /** The profile directory (removed by `close()` unless the browser is shared). */
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
  /** Resolves once Chromium reports the extension's service worker running (started again). */
  serviceWorkerRunning(timeoutMs?: number): Promise<void>;
  /**
   * Closes the browser and removes its profile directory; for a shared browser, uninstalls the
   * extension and closes the file's tabs instead. Safe to call twice.
   */
  close(): Promise<void>;
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
  const headless = options.headless ?? true;
  if (headless && options.shared !== false && sharingEnabled()) {
    const lease = await leaseExtension(dist);
    if (lease) {
      return extensionHandle({
        context: lease.context,
        worker: lease.worker,
        profileDir: lease.profileDir,
        panelPath,
        close: lease.release,
      });
    }
  }
  return launchOwnBrowser({ dist, panelPath, headless });
}

async function launchOwnBrowser(options: {
  dist: string;
  panelPath: string;
  headless: boolean;
}): Promise<LaunchedExtension> {
  const { dist, panelPath, headless } = options;
  const profileDir = await mkdtemp(join(tmpdir(), 'keel-e2e-'));
  const removeProfile = () =>
    rm(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumExecutable(),
      headless,
      args: [...CHROMIUM_FLAGS, `--disable-extensions-except=${dist}`, `--load-extension=${dist}`],
    });
  } catch (err) {
    await removeProfile();
    throw err;
  }

  let worker: Worker;
  try {
    worker =
      context.serviceWorkers().find(isExtensionWorker) ??
      (await context.waitForEvent('serviceworker', {
        predicate: isExtensionWorker,
        timeout: 15_000,
      }));
  } catch (err) {
    await context.close().catch(() => {});
    await removeProfile();
    throw new Error(`the extension in ${dist} started no service worker: ${String(err)}`);
  }
  return extensionHandle({
    context,
    worker,
    profileDir,
    panelPath,
    async close() {
      await context.close().catch(() => {});
      // Chromium may still be flushing the profile for a moment after it exits.
      await removeProfile();
    },
  });
}

const isExtensionWorker = (w: Worker) => w.url().startsWith('chrome-extension://');

/** The handle tests use, over a browser of its own or a lease of the shared one. */
function extensionHandle(options: {
  context: BrowserContext;
  worker: Worker;
  profileDir: string;
  panelPath: string;
  close: () => Promise<void>;
}): LaunchedExtension {
  const { context, profileDir, panelPath } = options;
  let worker = options.worker;
  const extensionId = new URL(worker.url()).host;
  const origin = `chrome-extension://${extensionId}/`;
  // A restarted worker is a new Worker object: follow it (a shared browser's release removes this).
  context.on('serviceworker', (w) => {
    if (w.url().startsWith(origin)) worker = w;
  });
  const url = (path: string) => `${origin}${path.replace(/^\//, '')}`;

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
    serviceWorkerRunning: (timeoutMs = 10_000) =>
      extensionWorkerRunning(context, extensionId, timeoutMs),
    async close() {
      if (closed) return;
      closed = true;
      await options.close();
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

/** Waits for a `running` version of the extension's worker (the DevTools protocol's view). */
async function extensionWorkerRunning(
  context: BrowserContext,
  extensionId: string,
  timeoutMs: number,
): Promise<void> {
  const origin = `chrome-extension://${extensionId}/`;
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  let timer: NodeJS.Timeout | undefined;
  try {
    const running = new Promise<void>((resolve) => {
      cdp.on(
        'ServiceWorker.workerVersionUpdated',
        ({ versions }: { versions: WorkerVersion[] }) => {
          if (versions.some((v) => v.scriptURL.startsWith(origin) && v.runningStatus === 'running'))
            resolve();
        },
      );
    });
    await cdp.send('ServiceWorker.enable');
    await Promise.race([
      running,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`service worker of ${extensionId} did not run within ${timeoutMs} ms`),
            ),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await cdp.send('ServiceWorker.disable').catch(() => {});
    await cdp.detach().catch(() => {});
  }
}
