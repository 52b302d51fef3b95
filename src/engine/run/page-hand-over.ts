import type { PageLook, RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';

/**
 * The two effects of giving the page to the user (issue 28), shared by Take over and
 * request_takeover: looking at the tab (through the host; the engine never calls chrome.*), and
 * letting go of it, so nothing of the agent shows on the page while the user holds it.
 */

/** The tab's URL and title now; undefined without a browser, without a tab, or for a closed tab. */
export async function lookAtTab(
  ctx: EngineContext,
  tabId: number | undefined,
): Promise<PageLook | undefined> {
  if (tabId === undefined || !ctx.browser?.tabLook) return undefined;
  try {
    const look = await ctx.browser.tabLook(tabId);
    return look ? { tabId, url: look.url, title: look.title } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The agent lets go of the page: each tool family releases what it holds on it (L2 detaches the
 * debugger, whose bar is the agent's indicator in the browser). Best effort: a failing hook is
 * logged, never fatal to the hand-over.
 */
export async function releasePage(
  ctx: EngineContext,
  run: Pick<RunRecord, 'runId' | 'threadId'>,
): Promise<void> {
  for (const l of ctx.registry.lifecycleHooks) {
    try {
      await l.runHandedOver?.(run.runId, run.threadId);
    } catch (e) {
      ctx.log.warn('tool lifecycle hook failed', {
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
}
