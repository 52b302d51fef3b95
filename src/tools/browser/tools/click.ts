import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext } from '../element-target';
import { runPageAction } from '../page-action';
import { ModifiersParam, RefParam, TabIdParam } from '../params';

const Params = z.object({
  ref: RefParam,
  button: z.enum(['left', 'right', 'middle']).default('left'),
  doubleClick: z.boolean().default(false),
  modifiers: ModifiersParam,
  force: z
    .boolean()
    .default(false)
    .describe('Click even if another element (an overlay) covers it.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_click: a synthetic click on a ref (browser_mouse does a trusted one). */
export function clickTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_click',
    label: 'Click',
    description:
      'Click an element by ref (links, buttons, checkboxes, tabs, menu items…). Waits for the page to settle and reports what changed (navigation, dialogs, the element’s new state). If the page ignores the click (it checks for real user input), use browser_mouse.',
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'never-retry',
    resolveTarget: async (params, ctx) =>
      elementTarget(deps, await refContext(deps, params, ctx), { activates: true }),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const r = await refContext(deps, params, ctx);
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          guardDialogs: true,
          verb: params.doubleClick
            ? 'Double-clicked'
            : params.button === 'left'
              ? 'Clicked'
              : `${params.button === 'right' ? 'Right' : 'Middle'}-clicked`,
          perform: () =>
            deps.client.call<ActionAck>(
              r.tabId,
              r.frameId,
              {
                op: 'click',
                ref: r.local,
                docId: r.docId,
                button: params.button,
                clickCount: params.doubleClick ? 2 : 1,
                modifiers: params.modifiers ?? [],
                force: params.force,
              },
              { signal, modelRef: r.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
