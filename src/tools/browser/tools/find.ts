import { z } from 'zod';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { FrameIdParam, TabIdParam } from '../params';
import { refPrefix } from '../refs';
import { pageTarget, readablePage, tabIdFor } from '../target';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({
  query: z
    .string()
    .min(1)
    .max(500)
    .describe('Words to look for (all must match, case-insensitive).'),
  kind: z
    .enum(['any', 'element', 'text'])
    .default('any')
    .describe(
      'element: controls by accessible name, placeholder or value; text: visible text; any: both.',
    ),
  role: z
    .string()
    .max(40)
    .optional()
    .describe('Only elements with this role (button, link, textbox, checkbox…).'),
  limit: z.number().int().min(1).max(100).default(20),
  tabId: TabIdParam,
  frameId: FrameIdParam,
});
type Params = z.infer<typeof Params>;

interface FindReply {
  docId: string;
  matches: string[];
  total: number;
}

/** browser_find: targeted search with refs, cheaper than a full snapshot on big pages. */
export function findTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_find',
    label: 'Find on page',
    description:
      'Find visible elements or text on the page without a full snapshot. Returns matching lines in the snapshot format with refs you can act on (e.g. - button "Checkout" [ref=e52]), and where they are relative to the viewport.',
    parameters: Params,
    level: 'L0',
    effects: 'read',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) =>
      pageTarget(deps.host, tabIdFor(params, ctx), params.frameId ?? 0),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const frameId = params.frameId ?? 0;
      const tab = await readablePage(deps.host, tabId);
      const ask = (kind: 'element' | 'text', limit: number) =>
        deps.client.call<FindReply>(
          tabId,
          frameId,
          {
            op: 'find',
            query: params.query,
            kind,
            role: params.role,
            limit,
            refPrefix: refPrefix(frameId),
          },
          { signal },
        );
      const lines: string[] = [];
      let total = 0;
      let docId = '';
      if (params.kind !== 'text') {
        const r = await ask('element', params.limit);
        lines.push(...r.matches);
        total += r.total;
        docId = r.docId;
      }
      if (params.kind !== 'element' && !params.role && lines.length < params.limit) {
        const r = await ask('text', params.limit - lines.length);
        lines.push(...r.matches);
        total += r.total;
        docId = r.docId;
      }
      if (docId) await deps.client.rememberDoc(tabId, frameId, docId);
      if (!lines.length) {
        return {
          content: [
            {
              type: 'text',
              text: `Nothing visible matches "${params.query}" in tab ${tabId}. Try other words, scroll, or take a browser_snapshot.`,
            },
          ],
          details: { tabId, urlAfter: tab.url, info: { total: 0 } },
        };
      }
      const shown = total > lines.length ? ` (showing ${lines.length} of ${total})` : '';
      return {
        content: [
          {
            type: 'text',
            text: `Matches for "${params.query}" in tab ${tabId}${shown}:\n${UNTRUSTED_NOTE}\n${untrustedPageContent(tab.url, lines.join('\n'))}`,
          },
        ],
        details: { tabId, urlAfter: tab.url, info: { total } },
      };
    },
  };
}
