import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { refContext } from '../element-target';
import { runPageAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';
import { pageTarget } from '../target';

const Params = z.object({ ref: RefParam, tabId: TabIdParam });
type Params = z.infer<typeof Params>;

/**
 * browser_hover: pointer-over events (menus opened by script). Controls only CSS :hover shows are
 * in the snapshot as `[on hover]` and clicked directly; other CSS :hover content needs
 * browser_mouse.
 */
export function hoverTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_hover',
    label: 'Hover',
    description:
      'Move the pointer over an element by ref (mouseover/mouseenter events), e.g. to open a menu or show a tooltip, and report what appeared. Controls shown only by CSS :hover are already in the snapshot marked [on hover]: click them directly. Other content shown only by CSS :hover needs browser_mouse with action move.',
    parameters: Params,
    level: 'L1',
    // The page sees the pointer events: a write (verdict.ts "Reads are what the page cannot observe").
    effects: 'write',
    recovery: 'retry-safe',
    resolveTarget: async (params, ctx) => {
      const r = await refContext(deps, params, ctx);
      return pageTarget(deps.host, r.tabId, r.frameId);
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const r = await refContext(deps, params, ctx);
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          guardDialogs: true,
          verb: 'Hovered over',
          perform: () =>
            deps.client.call<ActionAck>(
              r.tabId,
              r.frameId,
              { op: 'hover', ref: r.local, docId: r.docId },
              { signal, modelRef: r.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
