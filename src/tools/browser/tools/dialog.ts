import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { TabIdParam } from '../params';
import { frameTarget, getTabOrThrow, pageTarget, tabIdFor } from '../target';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../untrusted';

const Params = z.object({
  action: z.enum(['accept', 'dismiss']).describe('accept = OK / Leave; dismiss = Cancel / Stay.'),
  promptText: z
    .string()
    .max(10_000)
    .optional()
    .describe('Answer typed into a prompt() dialog before accepting.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_dialog: answers alert / confirm / prompt / beforeunload (Page.handleJavaScriptDialog). */
export function dialogTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_dialog',
    label: 'Answer dialog',
    description:
      'Accept or dismiss the JavaScript dialog (alert, confirm, prompt, or "leave this page?") that blocks the tab, optionally typing an answer into a prompt. Reports the dialog’s message.',
    onDemand: {
      brief: 'accept or dismiss a JavaScript dialog (alert, confirm, prompt) blocking the tab',
    },
    parameters: Params,
    level: 'L2',
    effects: 'write',
    recovery: 'never-retry',
    async resolveTarget(params, ctx) {
      const tabId = tabIdFor(params, ctx);
      const target = await pageTarget(deps.host, tabId);
      // A dialog an embedded page of another origin opened is that site's: judged as a write there.
      const from = deps.debuggers.dialogOf(tabId)?.url;
      return from && !target.forbidden ? frameTarget(target, from) : target;
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const tab = await getTabOrThrow(deps.host, tabId);
      await deps.debuggers.acquire(tabId, ctx.runId);
      // The dialog event may still be on its way from the input that opened it.
      for (let i = 0; i < 10 && !deps.debuggers.dialogOf(tabId); i++)
        await deps.host.sleep(50, signal);
      const dialog = deps.debuggers.dialogOf(tabId);
      try {
        await deps.debuggers.send(tabId, 'Page.handleJavaScriptDialog', {
          accept: params.action === 'accept',
          ...(params.promptText !== undefined ? { promptText: params.promptText } : {}),
        });
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        if (/no dialog/i.test(why)) {
          throw new Error(
            `No JavaScript dialog is open in tab ${tabId} that the agent can answer. (A dialog that opened while the debugger could not see it cannot be answered here: ask the user to answer it.)`,
          );
        }
        throw e;
      }
      deps.debuggers.clearDialog(tabId);
      const kind = dialog ? `${dialog.type} dialog` : 'dialog';
      const answered = `${params.action === 'accept' ? 'Accepted' : 'Dismissed'} the ${kind} in tab ${tabId}${params.promptText !== undefined ? ' with the given answer' : ''}.`;
      const text = dialog?.message
        ? `${answered}\n${UNTRUSTED_NOTE}\n${untrustedPageContent(dialog.url || tab.url, `message: ${clipPageString(dialog.message)}`)}`
        : answered;
      return {
        content: [{ type: 'text', text }],
        details: {
          tabId,
          urlAfter: tab.url,
          info: dialog ? { type: dialog.type, message: dialog.message } : {},
        },
      };
    },
  };
}
