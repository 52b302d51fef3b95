import { z } from 'zod';
import type { AgentTool } from '../types';

const Params = z.object({
  reason: z
    .string()
    .min(1)
    .max(500)
    .describe('What the user should do themselves, in one sentence ("Sign in to your bank").'),
  tabId: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('The tab the user should act in (default: the tab you are working in).'),
});
type Params = z.infer<typeof Params>;

/** The user's answer: done (with an optional note for the model) or cancelled. */
export const TakeoverResponse = z.union([
  z.object({ done: z.literal(true), note: z.string().max(5_000).optional() }),
  z.object({ cancelled: z.literal(true) }),
]);

/**
 * Hand the page to the user (issue 28): a sign-in, a second factor, a CAPTCHA, a payment
 * confirmation — anything the user should do themselves. The run waits as an interaction, so the
 * wait survives a service-worker restart; the panel brings the tab to the front and shows "Your
 * turn" with Done and Cancel. What the user typed and clicked meanwhile is never reported: the
 * model is told to look at the page afresh.
 */
export function createRequestTakeoverTool(): AgentTool<Params> {
  return {
    name: 'request_takeover',
    label: 'Hand over to you',
    description:
      'Hand the page to the user for something they must do themselves: signing in, a second factor or one-time code, a CAPTCHA, confirming a payment, accepting terms. The task waits until they press Done; then take a browser_snapshot to see the page as they left it. Never ask for passwords or codes in the chat: hand over instead.',
    parameters: Params,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    // Handing over is itself asking the user: there is nothing to approve.
    skipApproval: true,
    interaction: {
      kind: 'takeover',
      prepare: (params) => ({
        reason: params.reason,
        ...(params.tabId !== undefined ? { tabId: params.tabId } : {}),
      }),
      validateResponse(_payload, response) {
        return TakeoverResponse.safeParse(response).success
          ? null
          : 'response must be {done: true, note?} or {cancelled: true}';
      },
      complete(_payload, response, seen) {
        const r = TakeoverResponse.parse(response);
        if ('cancelled' in r)
          return {
            content: [
              {
                type: 'text',
                text: 'The user cancelled the hand-over and did not do it. Do not continue with the part that needed them; say what is left, or ask what to do instead.',
              },
            ],
          };
        const note = r.note?.trim();
        return {
          content: [
            {
              type: 'text',
              text: `The user has finished and handed the page back.${note ? ` Their note: ${note}` : ''} The page may have changed or navigated while they acted: take a browser_snapshot before you continue (refs from before are likely stale).${seen?.freshLook ? `\n${seen.freshLook}` : ''}`,
            },
          ],
        };
      },
    },
    async execute() {
      // Never called: the engine runs interaction tools through `interaction`.
      throw new Error('request_takeover runs as an interaction');
    },
  };
}
