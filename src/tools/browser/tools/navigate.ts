import { z } from 'zod';
import { clipPageString } from '../page-strings';
import type { AgentTool, ToolTarget } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { TabIdParam } from '../params';
import { exfiltrationRisk, navigationRestriction, originOf } from '../restricted';
import { waitForTabLoad, waitForUrlChange } from '../tab-waits';
import { getTabOrThrow, tabIdFor } from '../target';
import { untrustedPageContent } from '../untrusted';

const Params = z.object({
  url: z.string().min(1).max(8000).describe('Absolute URL to open (https://…).'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

export const LOAD_TIMEOUT_MS = 10_000;

/** Normalizes "example.com/x" to https://example.com/x: models often omit the scheme. */
export function normalizeUrl(url: string): string {
  const t = url.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return t;
  if (/^[\w-]+(\.[\w-]+)+(:\d+)?(\/|$|\?|#)/.test(t)) return `https://${t}`;
  return t;
}

/** Target of a navigation: the destination decides, and data-carrying cross-site URLs always ask. */
export async function navigationTarget(
  deps: BrowserToolDeps,
  tabId: number | undefined,
  url: string,
  fromUrl: string | undefined,
): Promise<ToolTarget> {
  const target: ToolTarget = { url, origin: originOf(url) };
  if (tabId !== undefined) target.tabId = tabId;
  const why = navigationRestriction(url, {
    fileSchemeAccess: await deps.host.fileSchemeAccess(),
    extensionOrigin: deps.host.extensionOrigin,
  });
  if (why) target.forbidden = why;
  const risk = exfiltrationRisk(fromUrl, url);
  if (risk) target.alwaysAsk = risk;
  return target;
}

/** browser_navigate: load a URL in the tab and wait (bounded) for it to load. */
export function navigateTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_navigate',
    label: 'Open URL',
    description:
      'Load a URL in the tab and wait until it has loaded (up to 10 s). Refs from earlier snapshots become invalid: take a new browser_snapshot afterwards.',
    parameters: Params,
    level: 'L1',
    effects: 'write',
    recovery: 'inspect-first',
    async resolveTarget(params, ctx) {
      const tabId = tabIdFor(params, ctx);
      const tab = await deps.host.getTab(tabId).catch(() => undefined);
      return navigationTarget(deps, tabId, normalizeUrl(params.url), tab?.url);
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const url = normalizeUrl(params.url);
      const why = navigationRestriction(url, {
        fileSchemeAccess: await deps.host.fileSchemeAccess(),
        extensionOrigin: deps.host.extensionOrigin,
      });
      if (why) throw new Error(`Cannot open ${url}: ${why}.`);
      const before = await getTabOrThrow(deps.host, tabId);
      const committed = waitForUrlChange(deps.host, tabId, before.url, 2000, signal);
      await deps.host.navigate(tabId, url);
      await committed;
      const loaded = await waitForTabLoad(deps.host, tabId, LOAD_TIMEOUT_MS, signal);
      return loadedResult(
        tabId,
        before.url,
        loaded.tab?.url ?? url,
        loaded.tab?.title ?? '',
        loaded.timedOut,
        'Opened',
      );
    },
  };
}

export function loadedResult(
  tabId: number,
  urlBefore: string,
  urlAfter: string,
  title: string,
  timedOut: boolean,
  verb: string,
): { content: [{ type: 'text'; text: string }]; details: BrowserToolDetails } {
  const state = timedOut
    ? 'It is still loading; the snapshot may be incomplete.'
    : 'It has loaded.';
  const text = `${verb} ${clipPageString(urlAfter)} in tab ${tabId}. ${state} Take a browser_snapshot to see it.\n${untrustedPageContent(urlAfter, `title: ${clipPageString(title)}`)}`;
  return { content: [{ type: 'text', text }], details: { tabId, urlBefore, urlAfter, title } };
}
