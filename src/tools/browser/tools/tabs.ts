import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({});
type Params = z.infer<typeof Params>;

/** browser_tabs: the open tabs, so the model can pick one by id. Titles are page-controlled. */
export function tabsTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_tabs',
    label: 'List tabs',
    description:
      "List the open browser tabs with their ids, titles and URLs. The conversation's own tab is marked; pass another tab's tabId to other browser tools to work in it.",
    onDemand: { brief: 'list the open tabs with their ids, titles and URLs' },
    parameters: Params,
    level: 'L0',
    effects: 'read',
    recovery: 'retry-safe',
    async resolveTarget(_params, ctx) {
      // Listing reads no page content and acts on no page: no URL or origin for the Gatekeeper to
      // judge (a conversation started from an internal page must still be able to list tabs).
      return ctx.tabId === undefined ? {} : { tabId: ctx.tabId };
    },
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      const tabs = await deps.host.listTabs();
      const lines = tabs.map((t) => {
        const marks = [
          t.tabId === ctx.tabId ? 'this conversation' : '',
          t.active ? 'active' : '',
          t.status === 'loading' ? 'loading' : '',
        ]
          .filter(Boolean)
          .join(', ');
        return `- tab ${t.tabId}${marks ? ` (${marks})` : ''}: "${clipPageString(t.title).replace(/"/g, "'")}" ${clipPageString(t.url)}`;
      });
      const text = `${tabs.length} open tab${tabs.length === 1 ? '' : 's'}.\n${UNTRUSTED_NOTE}\n${untrustedPageContent('browser tabs', lines.join('\n'))}`;
      return {
        content: [{ type: 'text', text }],
        details: {
          info: {
            tabs: tabs.map((t) => ({
              tabId: t.tabId,
              title: t.title,
              url: t.url,
              active: t.active,
            })),
          },
        },
      };
    },
  };
}
