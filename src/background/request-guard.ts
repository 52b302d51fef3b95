/**
 * The navigation and request guard's chrome.* half (docs/security.md "The navigation and request
 * guard"): declarativeNetRequest session rules scoped to one tab (`tabIds`), and
 * webRequest.onErrorOccurred to learn what they blocked. The rules themselves are plain data from
 * src/tools/browser/guard-policy.ts.
 *
 * Session rules outlive a service worker that dies mid-action: a worker that starts removes every
 * session rule first (Keel writes no other session rules), so a tab is never left guarded.
 */
import type { ObservedRequest, GuardRule } from '../tools/browser/guard-policy';
import type { ArmedRequestGuard } from '../tools/browser/host';

/** Ids are allocated in blocks; one guard never writes more rules than this. */
const BLOCK = 4096;
const MAX_RULES = BLOCK - 1;

export function createChromeRequestGuard(): (
  tabId: number,
  rules: (firstId: number) => GuardRule[],
) => Promise<ArmedRequestGuard> {
  const watching = new Map<number, Set<ObservedRequest[]>>();
  const cleared = (async () => {
    const stale = await chrome.declarativeNetRequest.getSessionRules();
    if (stale.length)
      await chrome.declarativeNetRequest.updateSessionRules({
        removeRuleIds: stale.map((r) => r.id),
      });
  })().catch(() => undefined);
  chrome.webRequest?.onErrorOccurred.addListener(
    (d) => {
      if (d.error !== 'net::ERR_BLOCKED_BY_CLIENT') return;
      const sinks = watching.get(d.tabId);
      if (!sinks) return;
      const req: ObservedRequest = {
        url: d.url,
        method: d.method,
        type: d.type,
        frameId: d.frameId,
        ...(d.initiator ? { initiator: d.initiator } : {}),
      };
      for (const s of sinks) s.push(req);
    },
    { urls: ['<all_urls>'] },
  );
  let next = 0;

  return async (tabId, build) => {
    await cleared;
    next = (next + 1) % 500_000;
    const rules = build(1 + next * BLOCK).slice(0, MAX_RULES);
    const seen: ObservedRequest[] = [];
    const sinks = watching.get(tabId) ?? new Set<ObservedRequest[]>();
    sinks.add(seen);
    watching.set(tabId, sinks);
    if (rules.length)
      await chrome.declarativeNetRequest.updateSessionRules({
        addRules: rules as unknown as chrome.declarativeNetRequest.Rule[],
      });
    let disarmed = false;
    return {
      blocked: () => [...seen],
      async disarm() {
        if (disarmed) return;
        disarmed = true;
        if (rules.length)
          await chrome.declarativeNetRequest
            .updateSessionRules({ removeRuleIds: rules.map((r) => r.id) })
            .catch(() => undefined);
        // Reports of requests blocked just before the rules went away arrive a moment later.
        sinks.delete(seen);
        if (!sinks.size) watching.delete(tabId);
      },
    };
  };
}
