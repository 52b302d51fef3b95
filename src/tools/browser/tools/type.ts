import { placeholdersIn, substituteSecrets } from '../../../secrets/site-secrets';
import { totpCode } from '../../../secrets/totp';
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
      // A site secret's placeholder becomes its value here, at the last moment, and the page is
      // told the one origin it may be typed on: the content script refuses any other document.
      const secret = deps.secrets
        ? await substituteSecrets(params.text, deps.secrets, totpCode)
        : ({ kind: 'none' } as const);
      if (secret.kind === 'refused') throw new Error(secret.message);
      const text = secret.kind === 'ok' ? secret.text : params.text;
      const what =
        secret.kind === 'ok'
          ? `Typed ${placeholdersIn(params.text)
              .map((p) => p.token)
              .join(' and ')}`
          : `Typed ${params.text.length} character${params.text.length === 1 ? '' : 's'}`;
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          guardDialogs: true,
          verb: `${what}${params.submit ? ' and pressed Enter' : ''} into`,
          perform: () =>
            deps.client.call<ActionAck>(
              r.tabId,
              r.frameId,
              {
                op: 'type',
                ref: r.local,
                docId: r.docId,
                text,
                clear: params.clear,
                submit: params.submit,
                ...(secret.kind === 'ok' ? { origin: secret.origin } : {}),
              },
              { signal, modelRef: r.modelRef },
            ),
        },
        signal,
      );
    },
  };
}
