/**
 * The navigation and request guard, the backstop of the Gatekeeper (docs/permissions.md "Where
 * each decision is made", docs/security.md "The navigation and request guard"). Every
 * write-capable browser tool runs inside it: before the tool starts, the tab gets
 * declarativeNetRequest rules (guard-policy.ts) that block what the action could cause toward an
 * origin the user has not allowed: a top-frame navigation (a label that submits a form, an SVG or
 * shadow-wrapped link, a redirect in any spelling, a GET form whose typed field is an address,
 * a history entry), a subframe POST, a non-GET request sent by a document that is not allowed.
 * The rules stay while the tool runs and its page action settles, then go.
 *
 * What was blocked is judged with `ctx.gate.check(…, 'destination')` and becomes
 * `ToolResult.held` naming the real destination; the engine asks the user about it. After a top
 * frame navigation was blocked the tab shows Chrome's error page: the guard goes back to the page
 * the action started on. When the user approves a held GET navigation, the call runs again and
 * opens exactly that address (a POST cannot be replayed: the action itself runs again).
 */
import type {
  AgentTool,
  DestinationAllowance,
  ToolCallContext,
  ToolCallInfo,
  ToolResult,
  ToolTarget,
} from '../types';
import { guardJudgement, guardRules, heldWhat, type ObservedRequest } from './guard-policy';
import type { BrowserHost } from './host';
import { waitForTabLoad, waitForUrlChange } from './tab-waits';
import { originOf } from './restricted';

/** `ctx.resume` after a held GET navigation was approved: open that address. */
interface GuardResume {
  guard: 'open';
  url: string;
}

function guardResume(resume: unknown): GuardResume | undefined {
  const r = resume as Partial<GuardResume> | null | undefined;
  return r?.guard === 'open' && typeof r.url === 'string' ? (r as GuardResume) : undefined;
}

const LOAD_MS = 10_000;

/** The first request the policy holds, with how it is held. */
export function firstHeld(blocked: readonly ObservedRequest[], allowance: DestinationAllowance) {
  for (const req of blocked) {
    const j = guardJudgement(req, allowance);
    if (j.kind === 'hold') return { req, as: j.as };
  }
  return undefined;
}

/**
 * Wraps `tool` so that what its action causes passes the guard. Reads are returned as they are.
 *
 * A held GET navigation that the user approves runs again only to open the approved address, so
 * its dispatch re-check is made on what the call was judged on before the hold: the page the
 * action started from was restored (reloaded where Chrome keeps no back/forward cache), and the
 * element's ref from that judgement need not resolve again. Kept in memory: after a worker
 * restart the re-check resolves the target afresh (a stale ref then fails and the model looks
 * again).
 */
export function guardRequests<P, D>(tool: AgentTool<P, D>, host: BrowserHost): AgentTool<P, D> {
  if (tool.effects !== 'write' || !host.armRequestGuard) return tool;
  const arm = host.armRequestGuard.bind(host);
  const judged = new Map<string, ToolTarget>();
  const opening = new Map<string, ToolTarget>();
  const keyOf = (params: P, ctx: ToolCallInfo) => `${ctx.runId}\u0000${JSON.stringify(params)}`;
  const resolveTarget = tool.resolveTarget?.bind(tool);
  return {
    ...tool,
    ...(resolveTarget
      ? {
          async resolveTarget(params: P, ctx: ToolCallInfo): Promise<ToolTarget> {
            const key = keyOf(params, ctx);
            const held = opening.get(key);
            if (held) return held;
            const target = await resolveTarget(params, ctx);
            judged.set(key, target);
            // Bounded: one entry per recent call.
            if (judged.size > 64) judged.delete(judged.keys().next().value as string);
            return target;
          },
        }
      : {}),
    async execute(id, params, signal, onUpdate, ctx: ToolCallContext): Promise<ToolResult<D>> {
      const key = keyOf(params, ctx);
      opening.delete(key);
      const allowance = ctx.gate.destinations?.();
      const tabId = (params as { tabId?: number }).tabId ?? ctx.tabId;
      if (!allowance || allowance.kind === 'any' || tabId === undefined)
        return tool.execute(id, params, signal, onUpdate, ctx);
      const resumed = guardResume(ctx.resume);
      const startUrl = (await host.getTab(tabId).catch(() => undefined))?.url;
      const guard = await arm(tabId, (firstId) => guardRules({ tabId, allowance, firstId }));
      let result: ToolResult<D> | undefined;
      let failure: unknown;
      try {
        if (resumed) result = await openApproved(host, tabId, resumed.url, signal);
        else result = await tool.execute(id, params, signal, onUpdate, ctx);
      } catch (e) {
        failure = e;
      } finally {
        await guard.disarm();
      }
      const stopped = firstHeld(guard.blocked(), allowance);
      if (!stopped || result?.held) {
        if (failure !== undefined) throw failure;
        return result as ToolResult<D>;
      }
      const { req, as } = stopped;
      const target = {
        tabId,
        frameId: req.frameId,
        url: req.url,
        origin: originOf(req.url),
      };
      const verdict = ctx.gate.check(target, 'destination');
      if (as === 'navigation') await restorePage(host, tabId, req.url, startUrl, tool.name);
      if (verdict.kind === 'deny')
        throw new Error(`Stopped: ${heldWhat(req, as)}, and ${verdict.reason}`);
      if (verdict.kind === 'allow') {
        // The rules and the gate disagree (a spelling DNR matched differently): nothing is lost
        // but the navigation; say so rather than ask about something already allowed.
        if (failure !== undefined) throw failure;
        return result as ToolResult<D>;
      }
      const getNavigation = as === 'navigation' && req.method.toUpperCase() === 'GET';
      const was = judged.get(key);
      if (getNavigation && was) opening.set(key, was);
      return {
        content: [{ type: 'text', text: `Stopped: ${heldWhat(req, as)}.` }],
        held: {
          target,
          what: heldWhat(req, as),
          partial: `${tool.label} reached the page; what it caused toward ${target.origin ?? req.url} was stopped`,
          ...(getNavigation
            ? { resume: { guard: 'open', url: req.url } satisfies GuardResume }
            : {}),
        },
      };
    },
  };
}

/**
 * A blocked top-frame navigation leaves Chrome's error page in the tab, as a new history entry:
 * go back to the page the action started on (it reloads). A blocked Back is left as it is: going
 * back again would skip another entry.
 */
async function restorePage(
  host: BrowserHost,
  tabId: number,
  blockedUrl: string,
  startUrl: string | undefined,
  tool: string,
) {
  if (tool === 'browser_go_back') return;
  const tab = await host.getTab(tabId).catch(() => undefined);
  if (tab?.url !== blockedUrl) return;
  await host.goBack(tabId).catch(() => undefined);
  await waitForUrlChange(host, tabId, blockedUrl, 2000).catch(() => undefined);
  const back = await waitForTabLoad(host, tabId, LOAD_MS).catch(() => undefined);
  // Chrome may have replaced the entry instead of adding one: open the start page again.
  if (startUrl && /^https?:/.test(startUrl) && back?.tab?.url !== startUrl) {
    await host.navigate(tabId, startUrl).catch(() => undefined);
    await waitForTabLoad(host, tabId, LOAD_MS).catch(() => undefined);
  }
}

/** The approved address of a held GET navigation, opened (inside the guard: redirects too). */
async function openApproved<D>(
  host: BrowserHost,
  tabId: number,
  url: string,
  signal: AbortSignal,
): Promise<ToolResult<D>> {
  const before = await host.getTab(tabId);
  const committed = waitForUrlChange(host, tabId, before.url, 2000, signal);
  await host.navigate(tabId, url);
  await committed;
  const loaded = await waitForTabLoad(host, tabId, LOAD_MS, signal);
  return {
    content: [
      {
        type: 'text',
        text: `Opened ${url} in tab ${tabId}, as approved${loaded.timedOut ? ' (still loading)' : ''}. Refs from earlier snapshots are no longer valid: take a new browser_snapshot.`,
      },
    ],
  };
}
