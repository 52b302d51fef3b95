import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext, unnamedElementTarget } from '../element-target';
import { parseKeyCombo } from '../input/key-combo';
import { planKeys } from '../input/key-plan';
import { runPageAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';
import { pageTarget, tabIdFor } from '../target';

const Params = z.object({
  key: z
    .string()
    .min(1)
    .max(60)
    .describe(
      'A key or combination: Enter, Escape, Tab, ArrowDown, PageDown, Backspace, a, Control+a, Shift+Tab.',
    ),
  ref: RefParam.optional().describe('Focus this element first. Default: the focused element.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_press_key: one key press with synthetic events and the common default actions. */
export function pressKeyTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_press_key',
    label: 'Press key',
    description:
      'Press a key (or combination) in the page, optionally on an element by ref: Enter submits or activates, Escape closes, Tab moves focus, arrows and PageDown scroll. Synthetic: for shortcuts that need real key presses use browser_keyboard.',
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'never-retry',
    async resolveTarget(params, ctx) {
      // The canonical key (any spelling of Enter is Enter) decides, as it does in the executor.
      const plan = planKeys([parseKeyCombo(params.key)]);
      const checks = plan.kind === 'element' ? plan.checks : {};
      if (!params.ref) {
        // Enter or Space on whatever has focus: judged on that element (a payment field, a link).
        const tabId = tabIdFor(params, ctx);
        return plan.kind === 'element'
          ? unnamedElementTarget(deps, tabId, { focused: true }, checks)
          : pageTarget(deps.host, tabId);
      }
      const r = await refContext(deps, { ref: params.ref, tabId: params.tabId }, ctx);
      return elementTarget(deps, r, checks);
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const combo = parseKeyCombo(params.key);
      const tabId = tabIdFor(params, ctx);
      const r = params.ref ? await refContext(deps, { ref: params.ref, tabId }, ctx) : undefined;
      const frameId = r?.frameId ?? 0;
      return runPageAction(
        deps,
        {
          tabId,
          frameId,
          localRef: r?.local,
          modelRef: r?.modelRef,
          docId: r?.docId,
          verb: `Pressed ${params.key}${r ? ' on' : ''}`,
          guardDialogs: true,
          perform: () =>
            deps.client.call<ActionAck>(
              tabId,
              frameId,
              {
                op: 'press_key',
                key: combo.key,
                modifiers: combo.modifiers,
                ref: r?.local,
                docId: r?.docId,
              },
              { signal, modelRef: r?.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
