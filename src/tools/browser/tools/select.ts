import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext } from '../element-target';
import { runPageAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';

const Params = z.object({
  ref: RefParam,
  values: z
    .array(z.string().max(1000))
    .min(1)
    .max(100)
    .describe('Option labels or values to select (several only for multi-selects).'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_select: choose options of a native <select>. */
export function selectTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_select',
    label: 'Select option',
    description:
      'Choose option(s) of a dropdown (a combobox or listbox line with [options: …] or [N options] in the snapshot) by label or value; a long list is only counted: pass the label you want (browser_find with the label finds the select). For custom dropdowns without a native select, click them and then click the option.',
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    resolveTarget: async (params, ctx) =>
      elementTarget(deps, await refContext(deps, params, ctx), {}),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const r = await refContext(deps, params, ctx);
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          guardDialogs: true,
          verb: 'Selected in',
          perform: () =>
            deps.client.call<ActionAck>(
              r.tabId,
              r.frameId,
              { op: 'select', ref: r.local, docId: r.docId, values: params.values },
              { signal, modelRef: r.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
