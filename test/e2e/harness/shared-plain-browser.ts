import type { Browser, BrowserContext } from 'playwright-core';

/**
 * A plain Chromium (no extension) per test worker process, for the page-level tests that drive
 * the page agent without the extension. Each file gets a handle whose contexts are its own
 * (Playwright contexts share nothing: cookies, storage and init scripts are per context);
 * `close()` on the handle closes those contexts and leaves the browser to the next file.
 * The browser ends with the worker process.
 */
const SLOT = Symbol.for('keel.e2e.sharedPlainBrowser');
type Slot = { [SLOT]?: Promise<Browser> };
const slot = globalThis as Slot;

export async function sharedPlainBrowser(launch: () => Promise<Browser>): Promise<Browser> {
  let browser = await slot[SLOT]?.catch(() => undefined);
  if (!browser?.isConnected()) {
    const launching = launch();
    slot[SLOT] = launching;
    launching.catch(() => {
      if (slot[SLOT] === launching) slot[SLOT] = undefined;
    });
    browser = await launching;
  }
  const target = browser;
  const own = new Set<BrowserContext>();
  let closed = false;
  return new Proxy(target, {
    get(_, prop) {
      if (prop === 'newContext')
        return async (...args: Parameters<Browser['newContext']>) => {
          const context = await target.newContext(...args);
          own.add(context);
          return context;
        };
      if (prop === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args);
          own.add(page.context());
          return page;
        };
      if (prop === 'contexts') return () => target.contexts().filter((c) => own.has(c));
      if (prop === 'close')
        return async () => {
          if (closed) return;
          closed = true;
          await Promise.all([...own].map((c) => c.close().catch(() => {})));
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
