import { z } from 'zod';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { getTabOrThrow, targetOfTab } from '../target';

const Params = z.object({ tabId: z.number().int().nonnegative().describe('The tab to close.') });
type Params = z.infer<typeof Params>;

/** browser_tab_close */
export function tabCloseTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_tab_close',
    label: 'Close tab',
    description: 'Close a tab by tabId (see browser_tabs).',
    onDemand: { brief: 'close a tab' },
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    resolveTarget: async (params) => targetOfTab(await getTabOrThrow(deps.host, params.tabId)),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const tab = await getTabOrThrow(deps.host, params.tabId);
      await deps.host.closeTab(params.tabId);
      const own =
        params.tabId === ctx.tabId
          ? " That was this conversation's tab: pass a tabId to keep browsing."
          : '';
      return {
        content: [{ type: 'text', text: `Closed tab ${params.tabId} (${tab.url}).${own}` }],
        details: { tabId: params.tabId, urlBefore: tab.url },
      };
    },
  };
}
