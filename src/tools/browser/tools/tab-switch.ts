import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { getTabOrThrow, targetOfTab } from '../target';

const Params = z.object({ tabId: z.number().int().nonnegative().describe('The tab to show.') });
type Params = z.infer<typeof Params>;

/** browser_tab_switch: bring a tab to the front (screenshots need the tab visible). */
export function tabSwitchTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_tab_switch',
    label: 'Switch tab',
    description:
      'Make a tab the visible tab of its window (see browser_tabs). Other tools can already work in background tabs with tabId; switch when the user should see it or for browser_screenshot.',
    onDemand: { brief: 'make a tab the visible one' },
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'retry-safe',
    resolveTarget: async (params) => targetOfTab(await getTabOrThrow(deps.host, params.tabId)),
    async execute(_id, params) {
      const tab = await getTabOrThrow(deps.host, params.tabId);
      await deps.host.activateTab(params.tabId);
      return {
        content: [
          {
            type: 'text',
            text: `Tab ${params.tabId} (${clipPageString(tab.url)}) is now visible.`,
          },
        ],
        details: { tabId: params.tabId, urlAfter: tab.url, title: tab.title },
      };
    },
  };
}
