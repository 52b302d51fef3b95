/**
 * Bounded waits on a tab through chrome.tabs events (no webNavigation permission needed):
 * until it finished loading, or until its URL changes. A timeout is an answer, not an error.
 */
import type { BrowserHost, TabInfo } from './host';

export interface TabWaitResult {
  tab: TabInfo | undefined;
  timedOut: boolean;
}

function abortError(): Error {
  return new Error('Interrupted.');
}

/** Resolves when the tab's status is `complete` (immediately if it already is, unless `mustStart`). */
export function waitForTabLoad(
  host: BrowserHost,
  tabId: number,
  timeoutMs: number,
  signal?: AbortSignal,
  mustStart = false,
): Promise<TabWaitResult> {
  return waitForTab(host, tabId, timeoutMs, signal, (change, sawLoading) => {
    return change.status === 'complete' && (!mustStart || sawLoading);
  }, !mustStart);
}

/** Resolves when the tab's URL changes (commit of a navigation, pushState, fragment). */
export function waitForUrlChange(host: BrowserHost, tabId: number, fromUrl: string, timeoutMs: number, signal?: AbortSignal): Promise<TabWaitResult> {
  return waitForTab(host, tabId, timeoutMs, signal, (change) => change.url !== undefined && change.url !== fromUrl, false);
}

function waitForTab(
  host: BrowserHost,
  tabId: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  done: (change: { status?: string; url?: string }, sawLoading: boolean) => boolean,
  checkNow: boolean,
): Promise<TabWaitResult> {
  return new Promise<TabWaitResult>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    let sawLoading = false;
    let finished = false;
    const finish = (timedOut: boolean) => {
      if (finished) return;
      finished = true;
      unsubscribe();
      unsubscribeRemoved();
      cancelTimer();
      signal?.removeEventListener('abort', onAbort);
      host.getTab(tabId).then(
        (tab) => resolve({ tab, timedOut }),
        () => resolve({ tab: undefined, timedOut }),
      );
    };
    const onAbort = () => {
      if (finished) return;
      finished = true;
      unsubscribe();
      unsubscribeRemoved();
      cancelTimer();
      reject(abortError());
    };
    const unsubscribe = host.onTabChanged((change) => {
      if (change.tabId !== tabId) return;
      if (change.status === 'loading') sawLoading = true;
      if (done(change, sawLoading)) finish(false);
    });
    const unsubscribeRemoved = host.onTabRemoved((id) => {
      if (id === tabId) finish(false);
    });
    const cancelTimer = host.setTimer(timeoutMs, () => finish(true));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (checkNow) {
      host.getTab(tabId).then(
        (tab) => {
          if (done({ status: tab.status, url: tab.url }, sawLoading)) finish(false);
        },
        () => finish(false),
      );
    }
  });
}
