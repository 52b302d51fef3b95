/**
 * Sends one tab to one address under that tab's own guard (request-guard.ts, guard-policy.ts),
 * and says whether the guard held where it really went. Used where a tab is outside the acting
 * tab's rules:
 * - browser_tab_open: the new tab opens blank, and only this sends it to the address;
 * - a tab the action opened (a popup, a dropped link): its first navigation was held by the
 *   new-tab rule; when that address is allowed it is opened again here;
 * - a held new tab the user approved: opened here, in a new tab.
 * Redirect chains run inside the rules, so a hop through a site the user never allowed is held
 * naming that site, whatever the first address was.
 */
import type { DestinationAllowance } from '../../types';
import { firstHeld, guardRules, type ObservedRequest } from './guard-policy';
import type { BrowserHost } from '../host';
import {
  pollUntil,
  waitForNavigationStart,
  waitForTabLoad,
  waitForTabSettled,
  type TabWaitResult,
} from '../tab-waits';

export interface GuardedOpen {
  /** The tab once loaded (`tab` undefined when the navigation was held before it loaded). */
  loaded: TabWaitResult;
  /** What the guard held, first: the tab did not get there. */
  held?: { req: ObservedRequest; as: 'navigation' | 'frame_navigation' | 'request' };
}

export async function openUnderGuard(
  host: BrowserHost,
  tabId: number,
  url: string,
  allowance: DestinationAllowance,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<GuardedOpen> {
  if (!host.armRequestGuard || allowance.kind === 'any') {
    await host.navigate(tabId, url);
    return { loaded: await waitForTabLoad(host, tabId, timeoutMs, signal) };
  }
  const guard = await host.armRequestGuard(tabId, (firstId) =>
    guardRules({ tabId, allowance, firstId }),
  );
  let loaded: TabWaitResult | undefined;
  let failure: unknown;
  try {
    // A tab still loading (its initial about:blank, an error page) drops a navigation sent now
    // (measured on Chromium 156: the tab stays "unloaded").
    const from = (await waitForTabSettled(host, tabId, timeoutMs, signal)).tab?.url ?? '';
    // A navigation the guard stops may never start: stop waiting once it is held.
    const held = pollUntil(
      host,
      () => firstHeld(guard.blocked(), allowance) !== undefined,
      timeoutMs,
      signal,
    );
    // Chrome can drop a navigation sent to a tab that only just settled (seen under load: the
    // tab stays on its blank page): send it once more if nothing started and nothing was held.
    for (let attempt = 1; ; attempt++) {
      const started = waitForNavigationStart(host, tabId, from, timeoutMs / 2, signal);
      // Once the hold wins, an interrupt that later ends `started` is nobody's error.
      started.catch(() => undefined);
      await host.navigate(tabId, url);
      const first = await Promise.race([started, held.done]);
      const dropped = typeof first !== 'boolean' && first.timedOut && first.tab?.url === from;
      if (!dropped || attempt === 2 || firstHeld(guard.blocked(), allowance)) break;
    }
    held.cancel();
    if (!firstHeld(guard.blocked(), allowance))
      loaded = await waitForTabLoad(host, tabId, timeoutMs, signal);
  } catch (e) {
    failure = e;
  } finally {
    await guard.disarm();
  }
  const stopped = firstHeld(guard.blocked(), allowance);
  if (stopped) return { loaded: { tab: undefined, timedOut: false }, held: stopped };
  if (failure !== undefined) throw failure;
  return { loaded: loaded ?? { tab: undefined, timedOut: true } };
}
