/**
 * The navigation and request guard's chrome.* half (docs/security.md "The navigation and request
 * guard"): declarativeNetRequest session rules scoped to one tab (`tabIds`), and
 * webRequest.onErrorOccurred to learn what they blocked. The rules themselves are plain data from
 * src/tools/browser/guard/guard-policy.ts.
 *
 * Session rules outlive a service worker that dies mid-action: a worker that starts removes every
 * session rule first (Keel writes no other session rules), so a tab is never left guarded.
 *
 * A guard armed with `newTabs` also writes `newTabRule`: every tab that exists when it is armed
 * is excluded, so what it holds is a tab opened during the action. A tab another guard is armed
 * on later (browser_tab_open's own tab, a new tab being opened again under its own rules) is
 * excluded from every new-tab rule first: its navigation belongs to that guard.
 */
import {
  newTabRule,
  type ObservedRequest,
  type GuardRule,
} from '../tools/browser/guard/guard-policy';
import type { ArmedRequestGuard } from '../tools/browser/host';

/** Ids are allocated in blocks; one guard never writes more rules than this. */
const BLOCK = 4096;
const MAX_RULES = BLOCK - 1;

export function createChromeRequestGuard(): (
  tabId: number,
  rules: (firstId: number) => GuardRule[],
  opts?: { newTabs?: boolean },
) => Promise<ArmedRequestGuard> {
  const watching = new Map<number, Set<ObservedRequest[]>>();
  /** Armed new-tab rules: the rule's id, the tabs it leaves alone, what it blocked. */
  const newTabWatches = new Set<{
    ruleId: number;
    excluded: Set<number>;
    seen: ObservedRequest[];
  }>();
  /** Takes `tabId` out of every new-tab rule (the rule is replaced in one atomic update). */
  const adopt = async (tabId: number) => {
    for (const w of newTabWatches) {
      if (w.excluded.has(tabId)) continue;
      w.excluded.add(tabId);
      await chrome.declarativeNetRequest
        .updateSessionRules({
          removeRuleIds: [w.ruleId],
          addRules: [
            newTabRule(w.ruleId, [...w.excluded]) as unknown as chrome.declarativeNetRequest.Rule,
          ],
        })
        .catch(() => undefined);
    }
  };
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
      const sinks = watching.get(d.tabId) ?? [];
      const req: ObservedRequest = {
        url: d.url,
        method: d.method,
        type: d.type,
        frameId: d.frameId,
        ...(d.initiator ? { initiator: d.initiator } : {}),
      };
      for (const s of sinks) s.push(req);
      if (d.type === 'main_frame')
        for (const w of newTabWatches)
          if (!w.excluded.has(d.tabId)) w.seen.push({ ...req, tabId: d.tabId });
    },
    { urls: ['<all_urls>'] },
  );
  let next = 0;

  return async (tabId, build, opts) => {
    await cleared;
    next = (next + 1) % 500_000;
    const base = 1 + next * BLOCK;
    const rules: GuardRule[] = build(base).slice(0, MAX_RULES);
    const seen: ObservedRequest[] = [];
    const sinks = watching.get(tabId) ?? new Set<ObservedRequest[]>();
    sinks.add(seen);
    watching.set(tabId, sinks);
    await adopt(tabId);
    let watch: { ruleId: number; excluded: Set<number>; seen: ObservedRequest[] } | undefined;
    if (opts?.newTabs) {
      // A tab created between this query and the rule is held too: the safe side.
      const open = await chrome.tabs.query({}).catch(() => []);
      const excluded = new Set<number>([-1, tabId, ...watching.keys()]);
      for (const t of open) if (t.id !== undefined) excluded.add(t.id);
      watch = { ruleId: base + MAX_RULES, excluded, seen: [] };
      newTabWatches.add(watch);
      rules.push(newTabRule(watch.ruleId, [...excluded]));
    }
    if (rules.length)
      await chrome.declarativeNetRequest.updateSessionRules({
        addRules: rules as unknown as chrome.declarativeNetRequest.Rule[],
      });
    let disarmed = false;
    return {
      blocked: () => [...seen],
      newTabs: () => [...(watch?.seen ?? [])],
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
        if (watch) newTabWatches.delete(watch);
      },
    };
  };
}
