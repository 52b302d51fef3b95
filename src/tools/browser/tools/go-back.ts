import { z } from 'zod';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { TabIdParam } from '../params';
import { waitForTabLoad, waitForUrlChange } from '../tab-waits';
import { getTabOrThrow, pageTarget, tabIdFor } from '../target';
import { loadedResult, LOAD_TIMEOUT_MS } from './navigate';

const Params = z.object({ tabId: TabIdParam });
type Params = z.infer<typeof Params>;

/** browser_go_back: the browser's Back button. */
export function goBackTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_go_back',
    label: 'Go back',
    description: "Go back to the previous page in the tab's history and wait for it to load.",
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    async resolveTarget(params, ctx) {
      const target = await pageTarget(deps.host, tabIdFor(params, ctx));
      // Leaving a restricted page is fine; where Back leads is not known in advance.
      delete target.forbidden;
      return target;
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const before = await getTabOrThrow(deps.host, tabId);
      const committed = waitForUrlChange(deps.host, tabId, before.url, 3000, signal);
      // history.back() in the page goes to the previous entry even when the browser's Back would
      // skip it (Chrome skips entries created without a user gesture: every synthetic click).
      const viaPage = await deps.client
        .call(tabId, 0, { op: 'history_back' }, { signal, timeoutMs: 3000 })
        .then(
          () => true,
          () => false,
        );
      if (!viaPage) {
        try {
          await deps.host.goBack(tabId);
        } catch {
          throw new Error(`Tab ${tabId} has no previous page to go back to.`);
        }
      }
      const changed = await committed;
      const loaded = await waitForTabLoad(deps.host, tabId, LOAD_TIMEOUT_MS, signal);
      if (changed.timedOut && loaded.tab?.url === before.url) {
        return {
          content: [
            {
              type: 'text',
              text: `Went back in tab ${tabId}, but the URL did not change (${before.url}). The page may handle history itself; take a browser_snapshot.`,
            },
          ],
          details: { tabId, urlBefore: before.url, urlAfter: before.url },
        };
      }
      return loadedResult(
        tabId,
        before.url,
        loaded.tab?.url ?? '',
        loaded.tab?.title ?? '',
        loaded.timedOut,
        'Went back to',
      );
    },
  };
}
