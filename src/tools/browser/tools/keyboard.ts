import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import { settleInput } from '../input/cdp-input';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext, unnamedElementTarget } from '../element-target';
import { deliverStrokes, resumedStrokes, strokesOf, type StrokeRun } from '../input/guarded-keys';
import { parseKeyCombo } from '../input/key-combo';
import { keySequence, planKeys } from '../input/key-plan';
import { runPageAction, type PerformedAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';
import { assertPageAllowed, getTabOrThrow, pageTarget, tabIdFor } from '../target';

const Params = z.object({
  text: z.string().max(20_000).optional().describe('Text to type with real key presses.'),
  keys: z
    .array(z.string().min(1).max(60))
    .max(50)
    .optional()
    .describe('Keys or shortcuts to press, in order: ["Control+a", "Backspace"], ["Enter"].'),
  keysFirst: z.boolean().default(false).describe('Press keys before typing text (default: after).'),
  ref: RefParam.optional().describe('Focus this element first. Default: the focused element.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_keyboard: trusted typing and shortcuts through the debugger. */
export function keyboardTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_keyboard',
    label: 'Keyboard (trusted)',
    description:
      'Real keyboard input through the browser debugger: typing that pages accept only from real key presses, and shortcuts (Control+a, Shift+Tab, Escape). Optionally focuses an element by ref first. Chrome shows a "debugging" bar while it is in use.',
    onDemand: { brief: 'real key presses: shortcuts, and typing that ignores synthetic input' },
    parameters: Params,
    level: 'L2',
    effects: 'write',
    recovery: 'never-retry',
    async resolveTarget(params, ctx) {
      // Enter (any spelling, "\r" in text) submits a form, follows a link, presses a button, and
      // Space presses one: judged on the element the keys start on; Tab then Enter always asks.
      const plan = planKeys(
        keySequence((params.keys ?? []).map(parseKeyCombo), params.text, params.keysFirst),
      );
      const checks = plan.kind === 'element' ? plan.checks : {};
      const tabId = tabIdFor(params, ctx);
      const r = params.ref ? await refContext(deps, { ref: params.ref, tabId }, ctx) : undefined;
      const target = r
        ? await elementTarget(deps, r, checks)
        : plan.kind === 'element'
          ? await unnamedElementTarget(deps, tabId, { focused: true }, checks)
          : await pageTarget(deps.host, tabId);
      if (plan.kind === 'always_ask' && !target.forbidden) target.alwaysAsk ??= plan.reason;
      return target;
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      if (!params.text && !params.keys?.length)
        throw new Error('Give text to type or keys to press.');
      const combos = (params.keys ?? []).map(parseKeyCombo);
      const tabId = tabIdFor(params, ctx);
      await assertPageAllowed(deps.host, await getTabOrThrow(deps.host, tabId));
      const r = params.ref ? await refContext(deps, { ref: params.ref, tabId }, ctx) : undefined;
      const what = [
        params.text ? `typed ${params.text.length} characters` : '',
        params.keys?.length ? `pressed ${params.keys.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' and ');
      return runPageAction(
        deps,
        {
          tabId,
          frameId: r?.frameId ?? 0,
          localRef: r?.local,
          modelRef: r?.modelRef,
          docId: r?.docId,
          verb: `Keyboard: ${what}${r ? ' in' : ''}`,
          trackBeforeInput: true,
          dialogProbe: () => deps.debuggers.dialogOf(tabId),
          perform: async (): Promise<PerformedAction> => {
            const performed: PerformedAction = {};
            const from = resumedStrokes(ctx.resume);
            // Continuing after an approved hold: the keys go on where they were going (the
            // approved receiver), so the ref is not focused again.
            if (r && from === 0) {
              const ack = await deps.client.call<ActionAck>(
                r.tabId,
                r.frameId,
                { op: 'focus', ref: r.local, docId: r.docId },
                { signal, modelRef: r.modelRef },
              );
              performed.element = ack.element;
              await deps.host.sleep(30, signal);
            }
            await deps.debuggers.acquire(tabId, ctx.runId);
            const strokes = strokesOf(combos, params.text, params.keysFirst);
            // The document the call was judged on: keys landing there are what was approved.
            const judgedOrigin = r
              ? (await pageTarget(deps.host, tabId, r.frameId, r.modelRef)).origin
              : undefined;
            let run: StrokeRun = { delivered: from };
            const input = async () => {
              run = await deliverStrokes({
                deps,
                tabId,
                strokes,
                gate: ctx.gate,
                from,
                judgedOrigin,
                signal,
              });
            };
            await settleInput(
              input(),
              () => deps.debuggers.dialogOf(tabId) !== undefined,
              deps.host.sleep,
              Math.max(3000, (params.text?.length ?? 0) * 40),
              signal,
            );
            if (run.stopped?.kind === 'denied') throw new Error(run.stopped.message);
            if (run.stopped?.kind === 'held') performed.held = run.stopped.held;
            if (run.short) performed.note = run.short;
            return performed;
          },
        },
        signal,
      );
    },
  };
}
