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
} from '../../types';
import {
  firstHeld,
  guardJudgement,
  guardRules,
  heldWhat,
  type ObservedRequest,
} from './guard-policy';
import type { BrowserHost } from '../host';
import { waitForTabLoad, waitForUrlChange } from '../tab-waits';
import { originOf } from '../restricted';
import { openUnderGuard } from './guarded-open';

/**
 * `ctx.resume` after a held GET navigation was approved: open that address, in the tab
 * (`open`) or, when the action had opened a new tab for it, in a new tab (`open-tab`).
 */
interface GuardResume {
  guard: 'open' | 'open-tab';
  url: string;
}

function guardResume(resume: unknown): GuardResume | undefined {
  const r = resume as Partial<GuardResume> | null | undefined;
  return (r?.guard === 'open' || r?.guard === 'open-tab') && typeof r.url === 'string'
    ? (r as GuardResume)
    : undefined;
}

const LOAD_MS = 10_000;

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
      if (resumed?.guard === 'open-tab')
        return openApprovedTab(host, tool, tabId, resumed.url, allowance, ctx, signal);
      const startUrl = (await host.getTab(tabId).catch(() => undefined))?.url;
      const guard = await arm(tabId, (firstId) => guardRules({ tabId, allowance, firstId }), {
        newTabs: true,
      });
      const created: number[] = [];
      const stopWatching = host.onTabCreated((t) => created.push(t.tabId));
      let result: ToolResult<D> | undefined;
      let failure: unknown;
      try {
        if (resumed) result = await openApproved(host, tabId, resumed.url, signal);
        else result = await tool.execute(id, params, signal, onUpdate, ctx);
        await newTabsReached(host, guard, created, signal);
      } catch (e) {
        failure = e;
      } finally {
        stopWatching();
        await guard.disarm();
      }
      const stopped = firstHeld(guard.blocked(), allowance);
      if (!stopped || result?.held) {
        if (failure !== undefined) throw failure;
        if (result?.held) return result;
        const tabs = await settleNewTabs(host, tool, guard.newTabs(), allowance, ctx, signal);
        if (tabs.held) {
          const was = judged.get(key);
          if (tabs.held.resume && was) opening.set(key, was);
          return { content: tabs.content, held: tabs.held };
        }
        return tabs.content.length
          ? {
              ...(result as ToolResult<D>),
              content: [...(result as ToolResult<D>).content, ...tabs.content],
            }
          : (result as ToolResult<D>);
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

const NEW_TAB_MS = 2000;

/**
 * A tab the action opened may send its first request after the action settled (a popup under
 * load: Chrome creates the tab, then starts its navigation): the new-tab rule stays until each such
 * tab's first navigation was held, went through (a tab another guard owns), or never comes (a blank
 * popup, the new-tab page), for at most NEW_TAB_MS.
 */
async function newTabsReached(
  host: BrowserHost,
  guard: { newTabs(): ObservedRequest[] },
  created: readonly number[],
  signal: AbortSignal,
): Promise<void> {
  const settled = new Set<number>();
  const pending = async () => {
    const held = new Set(guard.newTabs().map((r) => r.tabId));
    for (const id of created) {
      if (settled.has(id) || held.has(id)) continue;
      const tab = await host.getTab(id).catch(() => undefined);
      const web = (u: string | undefined) => u !== undefined && /^https?:/.test(u);
      const waiting = tab && (web(tab.pendingUrl) || (web(tab.url) && tab.status !== 'complete'));
      if (!waiting) settled.add(id);
      else return true;
    }
    return false;
  };
  for (let waited = 0; waited < NEW_TAB_MS && !signal.aborted; waited += 100) {
    if (!(await pending())) return;
    await host.sleep(100, signal).catch(() => undefined);
  }
}

/** The first top-frame navigation held in each new tab, oldest first. */
function firstPerTab(reqs: readonly ObservedRequest[]): ObservedRequest[] {
  const seen = new Set<number>();
  return reqs.filter((r) => {
    if (r.tabId === undefined || seen.has(r.tabId)) return false;
    seen.add(r.tabId);
    return true;
  });
}

interface NewTabsOutcome {
  /** Lines for the model about the new tabs (empty when there were none). */
  content: { type: 'text'; text: string }[];
  /** A new tab's destination the user has to approve (the tab was closed). */
  held?: NonNullable<ToolResult['held']>;
}

/**
 * The new tabs an action opened had their first navigation held by the new-tab rule. An address
 * this call may reach is opened again in the same tab under that tab's own rules (so where it
 * redirects is judged too); one it may not reach, there or after a redirect, closes the tab and
 * is held naming the real destination. The first hold wins; later tabs are closed with it.
 */
async function settleNewTabs(
  host: BrowserHost,
  tool: { label: string },
  reqs: readonly ObservedRequest[],
  allowance: DestinationAllowance,
  ctx: ToolCallContext,
  signal: AbortSignal,
): Promise<NewTabsOutcome> {
  const content: NewTabsOutcome['content'] = [];
  let held: NewTabsOutcome['held'];
  for (const first of firstPerTab(reqs)) {
    const tabId = first.tabId as number;
    const get = first.method.toUpperCase() === 'GET';
    let stop: { req: ObservedRequest; as: Parameters<typeof heldWhat>[1] } | undefined;
    if (held) stop = { req: first, as: 'new_tab' };
    else if (guardJudgement({ ...first, type: 'main_frame' }, allowance).kind !== 'pass')
      stop = { req: first, as: 'new_tab' };
    else if (!get) {
      content.push({
        type: 'text',
        text: `A ${first.method.toUpperCase()} form submission the page sent to a new tab (tab ${tabId}, ${first.url}) was stopped: a new tab's form cannot be sent again. Act again in this tab if it is needed.`,
      });
      await host.closeTab(tabId).catch(() => undefined);
      continue;
    } else {
      const opened = await openUnderGuard(host, tabId, first.url, allowance, LOAD_MS, signal).catch(
        () => undefined,
      );
      if (opened?.held)
        stop = {
          req: opened.held.req,
          as: opened.held.as === 'navigation' ? 'new_tab' : opened.held.as,
        };
      else if (opened)
        content.push({
          type: 'text',
          text: `Tab ${tabId} opened ${opened.loaded.tab?.url ?? first.url}${opened.loaded.timedOut ? ' (still loading)' : ''}; the guard checked where it went.`,
        });
    }
    if (!stop) continue;
    if (held) {
      await host.closeTab(tabId).catch(() => undefined);
      continue;
    }
    const { req, as } = stop;
    const target = { tabId, frameId: req.frameId, url: req.url, origin: originOf(req.url) };
    const verdict = ctx.gate.check(target, 'destination');
    if (verdict.kind === 'allow') {
      // The rules and the gate disagree (a spelling DNR matched differently): let it load, with
      // that origin added, so where it redirects next is still judged.
      const widened: DestinationAllowance =
        allowance.kind === 'origins' && target.origin
          ? { kind: 'origins', origins: [...allowance.origins, target.origin] }
          : allowance;
      await openUnderGuard(host, tabId, req.url, widened, LOAD_MS, signal).catch(() => undefined);
      continue;
    }
    // Nothing reached the destination: the tab shows only Chrome's error page.
    await host.closeTab(tabId).catch(() => undefined);
    if (verdict.kind === 'deny')
      throw new Error(`Stopped: ${heldWhat(req, as)}, and ${verdict.reason}`);
    const resumable = as === 'new_tab' && req.method.toUpperCase() === 'GET';
    held = {
      target,
      what: heldWhat(req, as),
      partial: `${tool.label} reached the page; the new tab it opened was closed before reaching ${target.origin ?? req.url}`,
      ...(resumable ? { resume: { guard: 'open-tab', url: req.url } satisfies GuardResume } : {}),
    };
  }
  return held ? { content: [{ type: 'text', text: `Stopped: ${held.what}.` }], held } : { content };
}

/** An approved new tab's address, opened in a new tab beside the acting one, under its own rules. */
async function openApprovedTab<D>(
  host: BrowserHost,
  tool: { label: string },
  openerTabId: number,
  url: string,
  allowance: DestinationAllowance,
  ctx: ToolCallContext,
  signal: AbortSignal,
): Promise<ToolResult<D>> {
  const opener = await host.getTab(openerTabId).catch(() => undefined);
  const tab = await host.createTab({
    url: 'about:blank',
    active: false,
    openerTabId,
    ...(opener ? { windowId: opener.windowId } : {}),
  });
  const blocked = { url, method: 'GET', type: 'main_frame', frameId: 0, tabId: tab.tabId };
  // The approval named this address: it passes now, and where it redirects is judged again.
  const outcome = await settleNewTabs(host, tool, [blocked], allowance, ctx, signal);
  if (outcome.held) return { content: outcome.content, held: outcome.held };
  return {
    content: [
      {
        type: 'text',
        text: `Opened ${url} in a new tab (tab ${tab.tabId}), as approved. ${outcome.content.map((c) => c.text).join(' ')}`.trim(),
      },
    ],
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
