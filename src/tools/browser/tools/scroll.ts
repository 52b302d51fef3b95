import { z } from 'zod';
import type { ScrollResult } from '../../../../content-scripts/actions/scroll';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { FrameIdParam, RefParam, TabIdParam } from '../params';
import { parseRef } from '../refs';
import { pageTarget, readablePage, tabIdFor } from '../target';
import { untrustedPageContent } from '../untrusted';

const Params = z.object({
  direction: z
    .enum(['down', 'up', 'left', 'right', 'top', 'bottom'])
    .optional()
    .describe('Scroll the page (or the ref’s scroll area) this way.'),
  amount: z
    .number()
    .positive()
    .max(20)
    .default(1)
    .describe('How far, in screens (0.5 = half a screen).'),
  ref: RefParam.optional().describe(
    'Without direction: scroll this element into view. With direction: scroll inside it.',
  ),
  text: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Scroll to the first visible occurrence of this text.'),
  tabId: TabIdParam,
  frameId: FrameIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_scroll: move the viewport (page, element, ref or text). The page observes it: a write. */
export function scrollTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_scroll',
    label: 'Scroll',
    description:
      'Scroll the page down/up (by screens), to the top or bottom, inside a scrollable element (ref + direction), to an element (ref), or to a text. Then use browser_snapshot with mode viewport to read what is on screen (lazy-loaded content appears after scrolling).',
    onDemand: { brief: 'scroll the page, an element, or to an element or text' },
    parameters: Params,
    level: 'L1',
    // The page sees scroll events and where it is scrolled to: a write (verdict.ts).
    effects: 'write',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) =>
      pageTarget(
        deps.host,
        tabIdFor(params, ctx),
        params.ref ? parseRef(params.ref).frameId : (params.frameId ?? 0),
      ),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const tab = await readablePage(deps.host, tabId);
      const parsed = params.ref ? parseRef(params.ref) : undefined;
      const frameId = parsed?.frameId ?? params.frameId ?? 0;
      const docId = parsed ? await deps.client.docOf(tabId, frameId) : undefined;
      const r = await deps.client.call<ScrollResult>(
        tabId,
        frameId,
        {
          op: 'scroll',
          ref: parsed?.local,
          docId,
          toRef: parsed !== undefined && params.direction === undefined,
          text: params.text,
          direction: params.direction ?? 'down',
          amount: params.amount,
        },
        { signal, modelRef: params.ref },
      );
      // Let lazy content and scroll-triggered loads start before the model looks.
      await deps.host.sleep(150, signal);
      const edge = r.atBottom && r.maxY > 0 ? ' (at the bottom)' : r.atTop ? ' (at the top)' : '';
      const base = `Scrolled tab ${tabId}: now at ${r.y} of ${r.maxY} px${edge}. Use browser_snapshot with mode viewport to see what is on screen.`;
      const text = params.text ? `${base}\n${untrustedPageContent(tab.url, r.note)}` : base;
      return {
        content: [{ type: 'text', text }],
        details: { tabId, frameId, urlAfter: tab.url, info: { y: r.y, maxY: r.maxY } },
      };
    },
  };
}
