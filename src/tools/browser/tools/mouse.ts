import { z } from 'zod';
import type { AgentTool, ToolTarget } from '../../types';
import {
  mouseClick,
  mouseDrag,
  mouseMove,
  settleInput,
  type InputGuard,
  type Point,
} from '../input/cdp-input';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { elementTarget, refContext, unnamedElementTarget } from '../element-target';
import { checkInput, receiverAtPoint, type InputCheck } from '../input/input-receiver';
import { armReceivers } from '../input/receiver-guard';
import { locateRef } from '../locate';
import { runPageAction, type PerformedAction } from '../page-action';
import { ModifiersParam, RefParam, TabIdParam } from '../params';
import { assertPageAllowed, getTabOrThrow, pageTarget, tabIdFor } from '../target';

const Coord = z.number().min(0).max(100_000);

const Params = z.object({
  action: z.enum(['click', 'double_click', 'right_click', 'move', 'drag']),
  ref: RefParam.optional().describe('Element to act on (its centre). Or give x and y.'),
  x: Coord.optional().describe('Viewport x in CSS pixels (from a screenshot), instead of ref.'),
  y: Coord.optional(),
  toRef: RefParam.optional().describe('drag: drop on this element. Or give toX and toY.'),
  dropAt: z
    .enum(['center', 'top', 'bottom'])
    .default('center')
    .describe(
      'drag with toRef: release at its centre, or near its top / bottom edge (sortable lists insert before / after it).',
    ),
  toX: Coord.optional(),
  toY: Coord.optional(),
  modifiers: ModifiersParam,
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

/** browser_mouse: trusted mouse input through the debugger (the page sees isTrusted true). */
export function mouseTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_mouse',
    label: 'Mouse (trusted)',
    description:
      'Real mouse input through the browser debugger, for pages that ignore synthetic clicks, CSS :hover menus, drag and drop, canvases and sliders. Acts at an element (ref) or at viewport coordinates (x, y in CSS px). Chrome shows a "debugging" bar while it is in use.',
    onDemand: { brief: 'real mouse input: drag and drop, hover menus, canvases, sliders' },
    parameters: Params,
    level: 'L2',
    effects: 'write',
    recovery: 'never-retry',
    async resolveTarget(params, ctx): Promise<ToolTarget> {
      if (params.ref) {
        const r = await refContext(deps, { ref: params.ref, tabId: params.tabId }, ctx);
        return elementTarget(deps, r, { activates: params.action !== 'move' });
      }
      // A click at coordinates is judged on the element under the point, as a click on its ref.
      const tabId = tabIdFor(params, ctx);
      if (params.action !== 'move' && params.x !== undefined && params.y !== undefined) {
        return unnamedElementTarget(deps, tabId, { x: params.x, y: params.y }, { activates: true });
      }
      return pageTarget(deps.host, tabId);
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      await assertPageAllowed(deps.host, await getTabOrThrow(deps.host, tabId));
      const r = params.ref ? await refContext(deps, { ref: params.ref, tabId }, ctx) : undefined;
      if (!r && (params.x === undefined || params.y === undefined))
        throw new Error('Give a ref, or both x and y.');
      if (
        params.action === 'drag' &&
        !params.toRef &&
        (params.toX === undefined || params.toY === undefined)
      ) {
        throw new Error('drag needs toRef, or both toX and toY.');
      }
      const mods = params.modifiers ?? [];
      // The document the call was judged on: input landing there is what was approved.
      const judgedOrigin = r
        ? (await pageTarget(deps.host, tabId, r.frameId, r.modelRef)).origin
        : undefined;
      let stopped: Exclude<InputCheck, { kind: 'deliver' }> | undefined;
      const action = params.action === 'move' ? 'the mouse move' : `the ${params.action}`;
      // Every event is hit-tested at its exact point just before it is sent (docs/permissions.md
      // "Receiver checks at dispatch"): a frame slid over the button gets nothing.
      const guard: InputGuard = async (p) => {
        const check = checkInput(ctx.gate, await receiverAtPoint(deps, tabId, p, signal), {
          action,
          judgedOrigin,
        });
        if (check.kind === 'deliver') return true;
        stopped = check;
        return false;
      };
      const verb = {
        click: 'Clicked (trusted)',
        double_click: 'Double-clicked (trusted)',
        right_click: 'Right-clicked (trusted)',
        move: 'Moved the mouse to',
        drag: 'Dragged',
      }[params.action];
      return runPageAction(
        deps,
        {
          tabId,
          frameId: r?.frameId ?? 0,
          localRef: r?.local,
          modelRef: r?.modelRef ?? `(${params.x}, ${params.y})`,
          docId: r?.docId,
          verb,
          trackBeforeInput: true,
          dialogProbe: () => deps.debuggers.dialogOf(tabId),
          perform: async (): Promise<PerformedAction> => {
            let point: Point = { x: params.x ?? 0, y: params.y ?? 0 };
            const performed: PerformedAction = {};
            if (r) {
              const loc = await locateRef(deps, r, signal);
              point = { x: loc.x, y: loc.y };
              performed.element = { ...loc.element, box: loc.box };
            }
            await deps.debuggers.acquire(tabId, ctx.runId);
            const input = async () => {
              if (params.action === 'move') {
                if (await guard(point)) await mouseMove(deps.debuggers, tabId, point, mods);
              } else if (params.action === 'drag') {
                let to: Point = { x: params.toX ?? 0, y: params.toY ?? 0 };
                if (params.toRef) {
                  const target = await locateRef(
                    deps,
                    await refContext(deps, { ref: params.toRef, tabId }, ctx),
                    signal,
                  );
                  const { box } = target;
                  const y =
                    params.dropAt === 'top'
                      ? box.y + box.height * 0.2
                      : params.dropAt === 'bottom'
                        ? box.y + box.height * 0.8
                        : target.y;
                  to = { x: target.x, y };
                }
                await mouseDrag(deps.debuggers, tabId, point, to, { mods, guard });
              } else {
                const button = params.action === 'right_click' ? 'right' : 'left';
                await mouseClick(deps.debuggers, tabId, point, {
                  button,
                  clickCount: params.action === 'double_click' ? 2 : 1,
                  mods,
                  guard,
                });
              }
            };
            // The documents refuse what reaches them uncleared between a probe and its event
            // (receiver-guard.ts): a frame slid under the pointer after the hit test gets nothing.
            const armed = await armReceivers({
              deps,
              tabId,
              gate: ctx.gate,
              judgedOrigin,
              kinds: ['pointer'],
              ttlMs: 30_000,
            });
            try {
              await settleInput(
                input(),
                () => deps.debuggers.dialogOf(tabId) !== undefined,
                deps.host.sleep,
                3000,
                signal,
              );
            } finally {
              const tally = await armed.disarm();
              if (tally.swallowed > 0 && !stopped)
                performed.note = `${tally.swallowed} pointer events reached a frame Keel may not act on and were refused there`;
            }
            if (stopped?.kind === 'denied') throw new Error(stopped.message);
            if (stopped?.kind === 'held') performed.held = stopped.held;
            return performed;
          },
        },
        signal,
      );
    },
  };
}
