import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { FrameIdParam, TabIdParam } from '../params';
import { pageTarget, readablePage, tabIdFor } from '../target';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({
  tabId: TabIdParam,
  frameId: FrameIdParam,
  maxChars: z
    .number()
    .int()
    .min(500)
    .max(100_000)
    .default(12_000)
    .describe('Characters to return.'),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Start here (from a previous call’s next offset).'),
});
type Params = z.infer<typeof Params>;

interface ReadableReply {
  url: string;
  title: string;
  byline?: string;
  text: string;
  totalChars: number;
  offset: number;
  nextOffset?: number;
}

/** browser_get_text: the readable main text (article body) without navigation and clutter. */
export function getTextTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_get_text',
    label: 'Read text',
    description:
      'Read the main text of the page (an article, post or documentation) as plain markdown, without menus, ads or hidden text. Long texts come in pages: call again with the returned offset. Use browser_snapshot to act on the page.',
    onDemand: { brief: 'the main text of an article or documentation page as markdown' },
    parameters: Params,
    level: 'L0',
    effects: 'read',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) =>
      pageTarget(deps.host, tabIdFor(params, ctx), params.frameId ?? 0),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      await readablePage(deps.host, tabId);
      const r = await deps.client.call<ReadableReply>(
        tabId,
        params.frameId ?? 0,
        { op: 'get_text', maxChars: params.maxChars, offset: params.offset },
        { signal, timeoutMs: 15_000 },
      );
      const range = `characters ${r.offset}–${r.offset + r.text.length} of ${r.totalChars}`;
      const more =
        r.nextOffset !== undefined ? ` More text: call again with offset ${r.nextOffset}.` : '';
      const body = `Title: ${clipPageString(r.title)}${r.byline ? `\nBy: ${clipPageString(r.byline)}` : ''}\n\n${r.text}`;
      return {
        content: [
          {
            type: 'text',
            text: `Main text of tab ${tabId} (${range}).${more}\n${UNTRUSTED_NOTE}\n${untrustedPageContent(r.url, body)}`,
          },
        ],
        details: {
          tabId,
          urlAfter: r.url,
          title: r.title,
          info: { totalChars: r.totalChars, offset: r.offset },
        },
      };
    },
  };
}
