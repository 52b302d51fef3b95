/**
 * The requests this document made, from its Resource Timing buffer, for browser_network's view of
 * what happened before the debugger attached. Read in the content script's isolated world: the
 * `performance` object is the document's, but nothing here runs in the page's world or dispatches
 * anything, so the page cannot tell it was read (test/e2e/security/observable-reads.test.ts).
 * Chromium 156 fills `responseStatus` (0 when a cross-origin response hides it or the request
 * failed) and `contentType`. The buffer holds 250 entries unless the page raised the limit.
 */
import type { TimingSnapshot } from '../src/protocol/page-messages';

export function resourceTiming(win: Window, limit: number): TimingSnapshot {
  const perf = win.performance;
  const all = [...perf.getEntriesByType('navigation'), ...perf.getEntriesByType('resource')];
  const entries = all.slice(-limit).map((e) => {
    const r = e as PerformanceResourceTiming & { responseStatus?: number; contentType?: string };
    return {
      name: r.name,
      initiatorType: r.entryType === 'navigation' ? 'navigation' : r.initiatorType,
      startTime: r.startTime,
      duration: r.duration,
      responseStatus: r.responseStatus ?? 0,
      transferSize: r.transferSize ?? 0,
      contentType: r.contentType ?? '',
    };
  });
  return { timeOrigin: perf.timeOrigin, entries };
}
