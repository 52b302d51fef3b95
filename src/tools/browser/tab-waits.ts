/**
 * Bounded waits on a tab through chrome.tabs events (no webNavigation permission needed):
 * until it finished loading, or until its URL changes. A timeout is an answer, not an error.
 *
 * Start waiting *before* causing the change (navigate, create): Chrome may report it before
 * the call that caused it returns.
 */
import type { BrowserHost, TabInfo } from './host';

export interface TabWaitResult {
  tab: TabInfo | undefined;
  timedOut: boolean;
}

export interface PendingTabWait {
  done: Promise<TabWaitResult>;
}

/** Resolves when the tab has loaded a real page (status complete, not the initial about:blank). */
export function waitForTabLoad(
  host: BrowserHost,
  tabId: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TabWaitResult> {
  return waitForTab(
    host,
    tabId,
    timeoutMs,
    signal,
    (tab) => tab.status === 'complete' && !(tab.url === 'about:blank' && tab.pendingUrl),
  );
}

/**
 * Resolves when the tab's current document finished loading, whatever it is (about:blank too).
 * A tab just created blank must reach this before it is sent anywhere: Chrome drops a navigation
 * that starts while the initial about:blank is still loading and leaves the tab "unloaded" on
 * about:blank (measured on Chromium 156; the page never loads, though its server got the request).
 */
export function waitForTabSettled(
  host: BrowserHost,
  tabId: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TabWaitResult> {
  return waitForTab(host, tabId, timeoutMs, signal, (tab) => tab.status === 'complete');
}

/** Resolves when the tab's URL differs from `fromUrl` (commit of a navigation, pushState, fragment). */
export function waitForUrlChange(
  host: BrowserHost,
  tabId: number,
  fromUrl: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TabWaitResult> {
  return waitForTab(host, tabId, timeoutMs, signal, (tab) => tab.url !== fromUrl && tab.url !== '');
}

/**
 * Resolves when a navigation has started in a settled tab: it is loading, or shows an address
 * other than `fromUrl`. Unlike a URL change this also sees the same address opened again (a
 * tab on Chrome's error page for the address it is now sent to).
 */
export function waitForNavigationStart(
  host: BrowserHost,
  tabId: number,
  fromUrl: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TabWaitResult> {
  return waitForTab(
    host,
    tabId,
    timeoutMs,
    signal,
    (tab) => tab.status === 'loading' || (tab.url !== fromUrl && tab.url !== ''),
  );
}

function waitForTab(
  host: BrowserHost,
  tabId: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  ready: (tab: TabInfo) => boolean,
): Promise<TabWaitResult> {
  return new Promise<TabWaitResult>((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('Interrupted.'));
    let finished = false;
    const cleanup = () => {
      finished = true;
      unsubscribe();
      unsubscribeRemoved();
      cancelTimer();
      signal?.removeEventListener('abort', onAbort);
    };
    const finish = (tab: TabInfo | undefined, timedOut: boolean) => {
      if (finished) return;
      cleanup();
      resolve({ tab, timedOut });
    };
    const onAbort = () => {
      if (finished) return;
      cleanup();
      reject(new Error('Interrupted.'));
    };
    // Events carry only what changed: re-read the tab and test the whole state.
    const check = () => {
      host.getTab(tabId).then(
        (tab) => {
          if (ready(tab)) finish(tab, false);
        },
        () => finish(undefined, false),
      );
    };
    const unsubscribe = host.onTabChanged((change) => {
      if (change.tabId === tabId && (change.status !== undefined || change.url !== undefined))
        check();
    });
    const unsubscribeRemoved = host.onTabRemoved((id) => {
      if (id === tabId) finish(undefined, false);
    });
    const cancelTimer = host.setTimer(timeoutMs, () => {
      host.getTab(tabId).then(
        (tab) => finish(tab, true),
        () => finish(undefined, true),
      );
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}

/**
 * Resolves `true` once `seen()` holds (checked every `everyMs`), `false` at the timeout, an abort
 * or `cancel()`. For state with no event to wait on, e.g. what the request guard has blocked: a
 * navigation it stops may never commit, so no tab event says it ended.
 */
export function pollUntil(
  host: Pick<BrowserHost, 'setTimer'>,
  seen: () => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
  everyMs = 100,
): { done: Promise<boolean>; cancel: () => void } {
  let stop = () => {};
  const done = new Promise<boolean>((resolve) => {
    let left = Math.ceil(timeoutMs / everyMs);
    let cancelTimer = () => {};
    let over = false;
    stop = () => {
      if (over) return;
      over = true;
      cancelTimer();
      resolve(false);
    };
    const tick = () => {
      if (over) return;
      if (seen()) {
        over = true;
        return resolve(true);
      }
      if (signal?.aborted || left-- <= 0) return stop();
      cancelTimer = host.setTimer(everyMs, tick);
    };
    tick();
  });
  return { done, cancel: () => stop() };
}
