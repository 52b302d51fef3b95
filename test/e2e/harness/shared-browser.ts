import { rmSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, CDPSession, Worker } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumExecutable } from './chromium-flags';
import { runDir } from './run-dir';

/**
 * One headless Chromium per test worker process, reused by every e2e file that worker runs
 * (`vitest.e2e.config.ts` sets `isolate: false`, so the process outlives a file).
 *
 * Isolation between files comes from the extension, not the profile: each lease installs a copy
 * of the build through CDP `Extensions.loadUnpacked`, and the release uninstalls it. Uninstalling
 * deletes everything the extension owns (IndexedDB, `chrome.storage`, alarms, granted
 * permissions) and ends its service worker, so the next file starts from a first install, exactly
 * like a fresh profile. The copy lives in a new directory, and an unpacked extension's id is
 * derived from its path, so every lease has an id of its own: Chromium deletes an uninstalled
 * extension's data in the background, and a reinstall under the same id could race with that. What the profile itself holds is reset at release as well: tabs are
 * closed, cookies and web permissions cleared. A file that changes the context in ways a release
 * cannot undo (init scripts, routes, bindings, …) taints the browser, which is then closed rather
 * than reused.
 *
 * `KEEL_E2E_SHARED_BROWSER=0` turns sharing off: every launch gets its own browser again.
 */
interface SharedBrowser {
  context: BrowserContext;
  session: CDPSession;
  profileDir: string;
  /** A lease is out: a second launch in the same file gets a browser of its own. */
  leased: boolean;
  /** Chromium exited or was closed: the next lease launches a new one. */
  closed: boolean;
}

/** Per process, not per module: survives a module registry reset between files. */
const SLOT = Symbol.for('keel.e2e.sharedBrowser');
type Slot = { [SLOT]?: Promise<SharedBrowser> };
const slot = globalThis as Slot;

export function sharingEnabled(): boolean {
  return process.env.KEEL_E2E_SHARED_BROWSER !== '0';
}

/** Context calls whose effect outlives the file and that a release cannot undo. */
const TAINTING = new Set<PropertyKey>([
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'route',
  'routeFromHAR',
  'routeWebSocket',
  'setExtraHTTPHeaders',
  'setGeolocation',
  'setHTTPCredentials',
  'setOffline',
  'setDefaultTimeout',
  'setDefaultNavigationTimeout',
]);

/** Context events a file may listen to; its listeners are removed at release. */
const CONTEXT_EVENTS = [
  'backgroundpage',
  'close',
  'console',
  'dialog',
  'page',
  'request',
  'requestfailed',
  'requestfinished',
  'response',
  'serviceworker',
  'weberror',
] as const;

/** Playwright's client objects are event emitters; its typings leave `listeners` out. */
interface Listeners {
  listeners(event: string): Array<(...args: unknown[]) => void>;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

async function launchShared(): Promise<SharedBrowser> {
  const profileDir = await mkdtemp(join(runDir(), 'keel-e2e-shared-'));
  try {
    const context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumExecutable(),
      headless: true,
      // Playwright disables extensions unless told otherwise; this browser starts with none and
      // installs each file's build through CDP, which needs the unsafe-debugging switch.
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [...CHROMIUM_FLAGS, '--enable-unsafe-extension-debugging'],
    });
    const browser = context.browser();
    if (!browser) throw new Error('the persistent context has no browser to open a CDP session on');
    const session = await browser.newBrowserCDPSession();
    const shared: SharedBrowser = { context, session, profileDir, leased: false, closed: false };
    context.on('close', () => {
      shared.closed = true;
    });
    // The browser lives until the worker process exits; by then Playwright has killed it (its exit
    // handler was registered first), so the profile can go.
    process.once('exit', () => {
      try {
        rmSync(profileDir, { recursive: true, force: true });
      } catch {
        // The run's directory is removed by the global teardown as well.
      }
    });
    return shared;
  } catch (err) {
    await rm(profileDir, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}

async function sharedBrowser(): Promise<SharedBrowser> {
  const existing = await slot[SLOT]?.catch(() => undefined);
  if (existing && !existing.closed) return existing;
  if (existing) await closeSharedBrowser();
  const launching = launchShared();
  slot[SLOT] = launching;
  launching.catch(() => {
    if (slot[SLOT] === launching) slot[SLOT] = undefined;
  });
  return launching;
}

/** Closes the shared browser (if any); the next lease launches a new one. */
export async function closeSharedBrowser(): Promise<void> {
  const pending = slot[SLOT];
  slot[SLOT] = undefined;
  if (!pending) return;
  const shared = await pending.catch(() => undefined);
  if (!shared) return;
  await shared.context.close().catch(() => {});
  await rm(shared.profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

export interface Lease {
  /** The shared context, watched for calls that would leak into the next file. */
  context: BrowserContext;
  extensionId: string;
  worker: Worker;
  profileDir: string;
  /** Uninstalls the extension and resets the profile, or closes the browser when that cannot. */
  release(): Promise<void>;
}

/**
 * Installs `dist` into this worker's shared browser. Resolves `undefined` when the shared browser
 * is already leased (the caller then launches a browser of its own).
 */
export async function leaseExtension(dist: string): Promise<Lease | undefined> {
  const shared = await sharedBrowser();
  if (shared.leased) return undefined;
  shared.leased = true;
  const { context, session } = shared;
  let copy: string | undefined;
  const emitter = context as unknown as Listeners;
  const before = new Map(CONTEXT_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));

  let extensionId: string;
  let worker: Worker;
  try {
    // The worker may announce itself before loadUnpacked returns the id: collect, then filter.
    const seen: Worker[] = [];
    let wake: () => void = () => {};
    const onWorker = (w: Worker) => {
      seen.push(w);
      wake();
    };
    context.on('serviceworker', onWorker);
    try {
      copy = await mkdtemp(join(runDir(), 'keel-e2e-ext-'));
      await cp(dist, copy, { recursive: true });
      ({ id: extensionId } = (await session.send('Extensions.loadUnpacked', { path: copy })) as {
        id: string;
      });
      const origin = `chrome-extension://${extensionId}/`;
      const ours = (w: Worker) => w.url().startsWith(origin);
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = [...seen, ...context.serviceWorkers()].find(ours);
        if (found) {
          worker = found;
          break;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the extension in ${dist} started no service worker`);
        await new Promise<void>((r) => {
          const timer = setTimeout(r, left);
          wake = () => {
            clearTimeout(timer);
            r();
          };
        });
      }
    } finally {
      context.off('serviceworker', onWorker);
    }
  } catch (err) {
    await closeSharedBrowser();
    if (copy) await rm(copy, { recursive: true, force: true });
    throw err;
  }
  const removeCopy = () => rm(copy!, { recursive: true, force: true }).catch(() => {});

  let tainted = false;
  const watched = new Proxy(context, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (TAINTING.has(prop)) tainted = true;
      return value.bind(target);
    },
  });

  let released = false;
  return {
    context: watched,
    extensionId,
    worker,
    profileDir: shared.profileDir,
    async release() {
      if (released) return;
      released = true;
      try {
        for (const event of CONTEXT_EVENTS) {
          const kept = before.get(event);
          for (const l of emitter.listeners(event)) if (!kept?.has(l)) emitter.off(event, l);
        }
        if (tainted) throw new Error('tainted');
        // Keep one blank tab so the browser has a window; close everything the file opened.
        const pages = context.pages();
        const keeper = pages.find((p) => p.url() === 'about:blank') ?? (await context.newPage());
        await Promise.all(pages.filter((p) => p !== keeper).map((p) => p.close()));
        await session.send('Extensions.uninstall', { id: extensionId });
        await context.clearCookies();
        await context.clearPermissions();
        shared.leased = false;
      } catch {
        await closeSharedBrowser();
      }
      await removeCopy();
    },
  };
}
