import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { navigationRestriction } from '../restricted';
import { waitForTabLoad } from '../tab-waits';
import { LOAD_TIMEOUT_MS, navigationTarget, normalizeUrl } from './navigate';
import { untrustedPageContent } from '../untrusted';
import { heldWhat } from '../guard/guard-policy';
import { openUnderGuard } from '../guard/guarded-open';
import { originOf } from '../restricted';

const Params = z.object({
  url: z.string().min(1).max(8000).describe('Absolute URL to open (https://…).'),
  active: z
    .boolean()
    .default(false)
    .describe('Show the new tab to the user (default: open in the background).'),
});
type Params = z.infer<typeof Params>;

/** browser_tab_open: a new tab; the conversation's tab does not change. */
export function tabOpenTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_tab_open',
    label: 'Open tab',
    description:
      'Open a URL in a new tab and wait for it to load. Returns the new tabId: pass it to other browser tools to work in that tab (the conversation keeps its own tab).',
    onDemand: { brief: 'open a URL in a new tab' },
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    async resolveTarget(params, ctx) {
      const from =
        ctx.tabId !== undefined
          ? await deps.host.getTab(ctx.tabId).catch(() => undefined)
          : undefined;
      const target = await navigationTarget(deps, undefined, normalizeUrl(params.url), from?.url);
      return target;
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const url = normalizeUrl(params.url);
      const why = navigationRestriction(url, {
        fileSchemeAccess: await deps.host.fileSchemeAccess(),
        extensionOrigin: deps.host.extensionOrigin,
      });
      if (why) throw new Error(`Cannot open ${url}: ${why}.`);
      const opener =
        ctx.tabId !== undefined
          ? await deps.host.getTab(ctx.tabId).catch(() => undefined)
          : undefined;
      // The new tab is outside the acting tab's guard (request-guard.ts): it opens blank, gets
      // its own guard, and only then goes to the address, so a redirect chain from an allowed
      // site to one the user never allowed is held here too, naming where it really went.
      const allowance = ctx.gate.destinations?.() ?? { kind: 'any' as const };
      const guarded = deps.host.armRequestGuard !== undefined && allowance.kind === 'origins';
      const tab = await deps.host.createTab({
        url: guarded ? 'about:blank' : url,
        active: params.active,
        openerTabId: opener?.tabId,
        windowId: opener?.windowId,
      });
      const opened = guarded
        ? await openUnderGuard(deps.host, tab.tabId, url, allowance, LOAD_TIMEOUT_MS, signal)
        : { loaded: await waitForTabLoad(deps.host, tab.tabId, LOAD_TIMEOUT_MS, signal) };
      const { loaded } = opened;
      if (opened.held) {
        const { req, as } = opened.held;
        const target = {
          tabId: tab.tabId,
          frameId: req.frameId,
          url: req.url,
          origin: originOf(req.url),
        };
        const verdict = ctx.gate.check(target, 'destination');
        if (verdict.kind !== 'allow') {
          // Nothing reached the destination; the tab only shows Chrome's error page: close it.
          await deps.host.closeTab(tab.tabId).catch(() => undefined);
          if (verdict.kind === 'deny')
            throw new Error(`Stopped: ${heldWhat(req, as)}, and ${verdict.reason}`);
          return {
            content: [{ type: 'text', text: `Stopped: ${heldWhat(req, as)}.` }],
            held: {
              target,
              what: heldWhat(req, as),
              partial: 'the new tab was opened and closed again; nothing reached that site',
            },
          };
        }
      }
      const now = loaded.tab ?? tab;
      const text =
        `Opened tab ${tab.tabId} at ${clipPageString(now.url || url)}${loaded.timedOut ? ' (still loading)' : ''}${params.active ? '' : ' in the background'}. ` +
        `Pass tabId ${tab.tabId} to browser tools to work in it.\n${untrustedPageContent(now.url || url, `title: ${clipPageString(now.title)}`)}`;
      return {
        content: [{ type: 'text', text }],
        details: { tabId: tab.tabId, urlAfter: now.url, title: now.title },
      };
    },
  };
}
