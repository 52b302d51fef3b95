/**
 * Page tools (WebMCP) of the tabs the agent works in: discovery and calls, through the registry
 * the page-world content script keeps (content-scripts/webmcp/page-registry.ts), reached with
 * `BrowserHost.runInMainWorld`.
 *
 * Contracts:
 * - `discover(tabId)` never throws: a tab without tools, a restricted page, a page loaded before
 *   Keel (no registry in it) or a malformed listing all give no tools. It registers the tools it
 *   found in the `ToolRegistry` (replacing a same-named tool only when its descriptor changed)
 *   and returns them; it never unregisters (another tab may offer the same tool). Runs see page
 *   tools only through their catalog, which the engine refreshes before each model call.
 * - A call re-checks, at the moment it runs, that the tab is still on the tool's origin and still
 *   shows the document whose tools were listed (a reload or navigation drops them), and that the
 *   document it ran in had that origin (read by Keel's own function, not by the page's bridge).
 *   It honours the abort signal (the page is told to stop waiting; its code may keep running).
 */
import type { BrowserHost } from '../browser/host';
import { originOf } from '../browser/restricted';
import { getTabOrThrow, pageTarget, tabIdFor } from '../browser/target';
import type { RegisteredTool, ToolRegistry } from '../registry';
import { describeTool } from '../registry';
import { canonicalJson } from '../../util/canonical-json';
import { createPageTool, type PageInvocation, type PageToolHost } from './page-tool';
import { BRIDGE_KEY, CallOutcome, ListedTool, ToolListing, type PageBridge } from './page-wire';

export interface PageToolsOptions {
  host: BrowserHost;
  registry: ToolRegistry;
  /** Why a listed tool was left out (a schema too deep…): for the log, never for the model. */
  onSkipped?(origin: string, name: string, reason: string): void;
  /** Upper bound on one call, so a page that never answers cannot hold the run. */
  callTimeoutMs?: number;
  /**
   * Upper bound on listing a tab's tools before a model call. A page showing a JavaScript dialog
   * (alert, confirm, "leave this page?") runs no script until it is answered, and the model must
   * be asked in the meantime (it is the one that answers it): the tools listed before stand.
   */
  listTimeoutMs?: number;
}

/** The document whose tools were last listed in a tab. */
interface SeenDocument {
  origin: string;
  docId: string;
}

export class PageTools {
  private readonly seen = new Map<number, SeenDocument>();
  /** The tools last listed per tab: what a listing that timed out keeps offering. */
  private readonly listed = new Map<number, RegisteredTool[]>();

  constructor(private readonly opts: PageToolsOptions) {}

  private readonly toolHost: PageToolHost = {
    invoke: (call) => this.call(call),
    target: (ctx) => pageTarget(this.opts.host, tabIdFor({}, ctx)),
  };

  async discover(tabId: number): Promise<RegisteredTool[]> {
    const { host, registry } = this.opts;
    try {
      const tab = await host.getTab(tabId);
      const origin = originOf(tab.url);
      if (!origin || !/^https?:\/\//.test(origin)) return this.forget(tabId);
      let stop = () => {};
      const late = new Promise<'late'>((resolve) => {
        stop = host.setTimer(this.opts.listTimeoutMs ?? 1500, () => resolve('late'));
      });
      const raw = await Promise.race([
        host.runInMainWorld(tabId, 0, listInPage, [BRIDGE_KEY]),
        late,
      ]).finally(() => stop());
      if (raw === 'late') return this.listed.get(tabId) ?? [];
      if (!raw || raw.origin !== origin) return this.forget(tabId);
      const listing = ToolListing.safeParse(raw.listing);
      if (!listing.success) return this.forget(tabId);
      this.seen.set(tabId, { origin, docId: listing.data.docId });
      const out: RegisteredTool[] = [];
      const names = new Set<string>();
      for (const item of listing.data.tools) {
        const listed = ListedTool.safeParse(item);
        if (!listed.success) continue;
        const built = createPageTool(origin, listed.data, this.toolHost);
        if (!built.ok) {
          this.opts.onSkipped?.(origin, built.name, built.reason);
          continue;
        }
        if (names.has(built.tool.name)) continue;
        names.add(built.tool.name);
        const descriptor = describeTool(built.tool);
        const current = registry.get(built.tool.name);
        if (!current || canonicalJson(current.descriptor) !== canonicalJson(descriptor))
          registry.register(built.tool, { replace: true });
        out.push(registry.get(built.tool.name)!);
      }
      this.listed.set(tabId, out);
      return out;
    } catch {
      return this.forget(tabId);
    }
  }

  private forget(tabId: number): RegisteredTool[] {
    this.seen.delete(tabId);
    this.listed.delete(tabId);
    return [];
  }

  private async call({ origin, pageTool, args, signal, ctx }: PageInvocation): Promise<string> {
    const { host } = this.opts;
    const tabId = ctx.tabId;
    if (tabId === undefined) throw new Error('This conversation has no tab to run a page tool in.');
    const tab = await getTabOrThrow(host, tabId);
    const now = originOf(tab.url);
    const doc = this.seen.get(tabId);
    if (now !== origin || !doc || doc.origin !== origin)
      throw new Error(
        `The tab is no longer on ${origin} (it shows ${now ?? tab.url}): the page's tools went with it. Look at the page again.`,
      );
    signal.throwIfAborted();
    const callId = crypto.randomUUID();
    const running = host.runInMainWorld(tabId, 0, callInPage, [
      BRIDGE_KEY,
      doc.docId,
      pageTool,
      args,
      callId,
    ]);
    let stop = () => {};
    const stopped = new Promise<never>((_, reject) => {
      const onAbort = () => {
        host.runInMainWorld(tabId, 0, abortInPage, [BRIDGE_KEY, callId]).catch(() => undefined);
        reject(new Error('The call was interrupted; the page may have started it.'));
      };
      const timer = host.setTimer(this.opts.callTimeoutMs ?? 60_000, () =>
        reject(new Error('The page did not answer in time; its tool may still be running.')),
      );
      signal.addEventListener('abort', onAbort, { once: true });
      stop = () => {
        timer();
        signal.removeEventListener('abort', onAbort);
      };
    });
    let reply: Awaited<typeof running>;
    try {
      reply = await Promise.race([running, stopped]);
    } catch (e) {
      if (e instanceof Error && !('code' in e)) throw e;
      throw new Error(
        'The page navigated or closed while its tool ran: the outcome is unknown. Look at the page before trying again.',
      );
    } finally {
      stop();
    }
    if (!reply || reply.origin !== origin)
      throw new Error(
        `The tool ran in a document that is not on ${origin}: the page navigated. Look at the page again.`,
      );
    const outcome = CallOutcome.safeParse(reply.outcome);
    if (!outcome.success) throw new Error('The page answered with something that is not a result.');
    if (outcome.data.ok) return outcome.data.text;
    throw new Error(callFailure(pageTool, outcome.data));
  }
}

function callFailure(pageTool: string, o: Extract<CallOutcome, { ok: false }>): string {
  switch (o.code) {
    case 'gone':
      return `The page no longer offers the tool "${pageTool}" (it was unregistered). Its tools are listed again at the next step.`;
    case 'navigated':
      return `The page was reloaded or replaced since its tools were listed; "${pageTool}" is gone with it. Look at the page again.`;
    case 'aborted':
      return 'The call was interrupted; the page may have started it.';
    case 'failed':
      return `The page's tool failed: ${o.error.slice(0, 2000)}`;
  }
}

// --- functions run in the page's world (self-contained: chrome.scripting serializes them) -----

function listInPage(key: string): { origin: string; listing: unknown } | null {
  const bridge = (window as unknown as Record<string, PageBridge | undefined>)[key];
  if (!bridge) return null;
  try {
    // location.origin is read here, by Keel's function: the page cannot forge it.
    return { origin: location.origin, listing: bridge.list() };
  } catch {
    return null;
  }
}

async function callInPage(
  key: string,
  docId: string,
  name: string,
  args: unknown,
  callId: string,
): Promise<{ origin: string; outcome: unknown }> {
  const origin = location.origin;
  const bridge = (window as unknown as Record<string, PageBridge | undefined>)[key];
  if (!bridge)
    return { origin, outcome: { ok: false, code: 'navigated', error: 'no WebMCP registry' } };
  try {
    return { origin, outcome: await bridge.call(docId, name, args, callId) };
  } catch (e) {
    return { origin, outcome: { ok: false, code: 'failed', error: String(e) } };
  }
}

function abortInPage(key: string, callId: string): void {
  try {
    (window as unknown as Record<string, PageBridge | undefined>)[key]?.abort(callId);
  } catch {
    // The page's problem.
  }
}
