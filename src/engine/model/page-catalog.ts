import { stepMark } from '../../util/step-marks';
/**
 * Page tools (WebMCP) in a run's catalog. A run's catalog is fixed when it starts, except for
 * the tools the pages offer: a page registers and unregisters them at will, and a navigation
 * drops them. Before each model call the engine asks the thread's tab what it offers now and, if
 * that changed, commits the new catalog with the run (so a restart, the dispatch-time lookup and
 * the audit see the catalog the model saw).
 *
 * Page tools always come last, after the run's fixed tools and in name order: a change in what a
 * page offers changes only the tail of the tool list, so the provider's cached prefix (system
 * prompt and fixed tools) still holds. The system prompt never names them for the same reason.
 */
import type { RunRecord, ToolCatalogEntry } from '../../store/records';
import { catalogOf } from '../../tools/registry';
import type { EngineContext } from '../host/engine-context';

/** Bounds on what pages add to a catalog, whatever they register. */
export const PAGE_TOOL_LIMITS = { maxTools: 32, maxBytes: 96 * 1024 } as const;

export function isPageEntry(e: ToolCatalogEntry): boolean {
  return e.descriptor.binding.kind === 'page';
}

/**
 * The catalog with `page` as its page tools (in name order, within PAGE_TOOL_LIMITS: the first
 * ones by name are kept), or null when that is the catalog already.
 */
export function withPageTools(
  catalog: readonly ToolCatalogEntry[],
  page: readonly ToolCatalogEntry[],
): ToolCatalogEntry[] | null {
  const fixed = catalog.filter((e) => !isPageEntry(e));
  const offered: ToolCatalogEntry[] = [];
  let bytes = 0;
  for (const e of [...page].filter(isPageEntry).sort((a, b) => a.name.localeCompare(b.name))) {
    if (offered.length >= PAGE_TOOL_LIMITS.maxTools) break;
    const size = JSON.stringify(e.descriptor).length;
    if (bytes + size > PAGE_TOOL_LIMITS.maxBytes) continue;
    if (fixed.some((f) => f.name === e.name)) continue;
    bytes += size;
    offered.push(e);
  }
  const next = [...fixed, ...offered];
  const same =
    next.length === catalog.length &&
    next.every((e, i) => e.name === catalog[i].name && e.digest === catalog[i].digest);
  return same ? null : next;
}

/**
 * Ask the run's tab for its page tools and commit the run's catalog if they changed. Returns the
 * run as it now is. Without a browser, a tab or tool use, the run is returned as it was.
 */
export async function refreshPageTools(ctx: EngineContext, run: RunRecord): Promise<RunRecord> {
  stepMark('pagetools');
  const discover = ctx.browser?.pageTools;
  if (!discover || run.tabId === undefined || !run.env?.modelInfo.toolUse) return run;
  const entries = await catalogOf(await discover(run.tabId));
  const next = withPageTools(run.env.toolCatalog, entries);
  if (!next) return run;
  return ctx.commit('page_tools', () =>
    ctx.store.runs.update(
      run.runId,
      (r) => {
        if (r.env) r.env = { ...r.env, toolCatalog: next };
      },
      ctx.clock.now(),
    ),
  );
}
