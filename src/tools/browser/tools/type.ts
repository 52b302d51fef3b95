import { z } from 'zod';
import { keysOfText } from '../../../protocol/key-names';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext } from '../element-target';
import { runPageAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';

const Params = z.object({
  ref: RefParam,
  text: z
    .string()
    .max(100_000)
    .describe('Text to type. Dates as 2024-05-31, times as 14:30, colours as #ff8800.'),
  clear: z
    .boolean()
    .default(true)
    .describe('Replace the current content (default) instead of appending.'),
  submit: z.boolean().default(false).describe('Press Enter afterwards (submits a search or form).'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_type: fill a text field or editor. */
export function typeTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_type',
    label: 'Type',
    description:
      'Type text into a text field, search box, textarea or rich-text editor by ref. Replaces the content unless clear is false; submit presses Enter afterwards. For pages that need real key presses, use browser_keyboard.',
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    // A "\n" or "\r" in the text is typed as an Enter key press: judged as submitting, like submit.
    resolveTarget: async (params, ctx) =>
      elementTarget(deps, await refContext(deps, params, ctx), {
        submits: params.submit || keysOfText(params.text).includes('Enter'),
      }),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const r = await refContext(deps, params, ctx);
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          guardDialogs: true,
          verb: `Typed ${params.text.length} character${params.text.length === 1 ? '' : 's'}${params.submit ? ' and pressed Enter' : ''} into`,
          perform: () =>
            deps.client.call<ActionAck>(
              r.tabId,
              r.frameId,
              {
                op: 'type',
                ref: r.local,
                docId: r.docId,
                text: params.text,
                clear: params.clear,
                submit: params.submit,
              },
              { signal, modelRef: r.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
