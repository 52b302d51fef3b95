/**
 * Which tab a call acts on, and the ToolTarget the Gatekeeper decides on. A tool targets the
 * thread's tab (ctx.tabId) unless its params name a tabId.
 */
import type { ToolCallInfo, ToolTarget } from '../types';
import { HostError, type BrowserHost, type TabInfo } from './host';
import { staleRefMessage } from './refs';
import { originOf, pageRestriction } from './restricted';

export function tabIdFor(params: { tabId?: number }, ctx: ToolCallInfo): number {
  const tabId = params.tabId ?? ctx.tabId;
  if (tabId === undefined) {
    throw new Error(
      'No tab to act on: this conversation has no tab. Use browser_tabs to list tabs and pass a tabId.',
    );
  }
  return tabId;
}

export async function getTabOrThrow(host: BrowserHost, tabId: number): Promise<TabInfo> {
  try {
    return await host.getTab(tabId);
  } catch (e) {
    if (e instanceof HostError && e.code === 'no_tab') {
      throw new Error(
        `Tab ${tabId} does not exist (it was closed). Use browser_tabs to list open tabs.`,
      );
    }
    throw e;
  }
}

export function targetOfTab(tab: TabInfo, frameId?: number): ToolTarget {
  const target: ToolTarget = {
    tabId: tab.tabId,
    url: tab.url,
    origin: originOf(tab.url),
    title: tab.title,
  };
  if (frameId !== undefined) target.frameId = frameId;
  if (tab.favIconUrl) target.favIconUrl = tab.favIconUrl;
  return target;
}

/**
 * The target of an action in frame `frameId` of a tab whose top page is `top`: a frame of another
 * origin is its own site (its URL, origin and rule), with the top page kept for the approval card.
 * A frame without a URL of its own (about:blank, about:srcdoc) is judged on the origin it really
 * has, which its creator gave it: an about:blank frame inside another site's frame belongs to that
 * site, not to the top page. `frameOrigin` is that origin as the frame reports it (window.origin);
 * without it (a caller that only knows the URL) such a frame is taken as its parent's.
 */
export function frameTarget(top: ToolTarget, frameUrl: string, frameOrigin?: string): ToolTarget {
  const web = /^https?:/.test(frameUrl);
  if (frameOrigin === 'null') {
    // Sandboxed: an opaque origin no rule or approval can name.
    return { ...top, forbidden: 'the frame is sandboxed: it has no origin Keel can judge' };
  }
  const origin = frameOrigin ?? (web ? originOf(frameUrl) : undefined);
  if (!origin || origin === top.origin) return top;
  const target: ToolTarget = { ...top, url: web ? frameUrl : `${origin}/`, origin };
  if (top.url) target.topUrl = top.url;
  if (top.origin) target.topOrigin = top.origin;
  // The title and icon are the top page's, not the frame's.
  delete target.title;
  delete target.favIconUrl;
  return target;
}

/** Target of a tool that reads or acts inside the page: forbidden on restricted pages. */
export async function pageTarget(
  host: BrowserHost,
  tabId: number,
  frameId = 0,
  modelRef?: string,
): Promise<ToolTarget> {
  const tab = await getTabOrThrow(host, tabId);
  let target = targetOfTab(tab, frameId);
  const env = {
    fileSchemeAccess: await host.fileSchemeAccess(),
    extensionOrigin: host.extensionOrigin,
  };
  const why = pageRestriction(tab.url, env);
  if (why) target.forbidden = why;
  if (frameId !== 0 && !why) {
    const frame = (await host.listFrames(tabId)).find((f) => f.frameId === frameId);
    if (!frame)
      throw new Error(
        modelRef
          ? staleRefMessage(modelRef)
          : `Frame ${frameId} of tab ${tabId} no longer exists: take a new browser_snapshot.`,
      );
    target = frameTarget(target, frame.url, frame.origin);
    // about:blank and about:srcdoc have no address of their own: judged on their origin above.
    const ownUrl = !/^about:(blank|srcdoc)\b/.test(frame.url);
    const frameWhy = target.topOrigin && ownUrl ? pageRestriction(frame.url, env) : undefined;
    if (frameWhy) target.forbidden = frameWhy;
  }
  return target;
}

/** Throws the restriction as a tool error (execute re-checks: the tab may have navigated since approval). */
export async function assertPageAllowed(host: BrowserHost, tab: TabInfo): Promise<void> {
  const why = pageRestriction(tab.url, {
    fileSchemeAccess: await host.fileSchemeAccess(),
    extensionOrigin: host.extensionOrigin,
  });
  if (why) throw new Error(`Cannot use tab ${tab.tabId}: ${why}.`);
}

/** The tab, if it still exists and its page may be used (the preamble of every page-reading tool). */
export async function readablePage(host: BrowserHost, tabId: number): Promise<TabInfo> {
  const tab = await getTabOrThrow(host, tabId);
  await assertPageAllowed(host, tab);
  return tab;
}
