import type { ProviderMessage, ToolSpec } from '../../providers/types';
import type { ToolCatalogEntry } from '../../store/records';
import { LOAD_TOOLS } from '../../tools/builtin/load-tools';

/**
 * Which tools one request offers (docs/tools.md "Tools on demand"), decided from the run's
 * catalog and the request's own context, nothing else — so a resumed run, a fork or a retried
 * request offers the same list, and there is no state to lose.
 *
 * Every request re-sends the definitions it offers; for a browser agent they were most of what a
 * task cost (docs/benchmarks.md, the side-by-side profile). Tools marked `onDemand` are therefore
 * offered only once the context shows the model wants them — named in a load_tools call, or
 * called at all (a model may call a tool it read about in load_tools' list; the engine runs any
 * tool of the catalog, and from then on the definition is there for the history that uses it).
 *
 * Order is chosen for the providers' prompt caches, which match a request's longest common
 * prefix with the previous one: the tools always offered first (catalog order), then load_tools
 * with its fixed list, then loaded tools in the order the context first wanted them (a load
 * appends, it never reorders what came before), then the page's own tools, which come and go
 * with the page and so stay last.
 */
export function offeredTools(
  catalog: readonly ToolCatalogEntry[],
  messages: readonly ProviderMessage[],
): ToolSpec[] {
  const loader = catalog.find((e) => e.name === LOAD_TOOLS);
  const onDemand = catalog.filter((e) => e.descriptor.onDemand);
  // Without on-demand tools there is nothing to load; without the loader they could never be
  // offered, so everything is.
  if (!loader || !onDemand.length) return catalog.filter((e) => e !== loader).map(specOf);
  const page = (e: ToolCatalogEntry) => e.descriptor.binding.kind === 'page';
  const wanted = wantedNames(messages);
  const loaded = onDemand
    .filter((e) => wanted.has(e.name))
    .sort((a, b) => (wanted.get(a.name) ?? 0) - (wanted.get(b.name) ?? 0));
  return [
    ...catalog.filter((e) => e !== loader && !e.descriptor.onDemand && !page(e)).map(specOf),
    {
      ...specOf(loader),
      description: `${loader.descriptor.description}\n${onDemand
        .map((e) => `- ${e.name}: ${e.descriptor.onDemand?.brief}`)
        .join('\n')}`,
    },
    ...loaded.map(specOf),
    ...catalog.filter(page).map(specOf),
  ];
}

/** Each tool name the context asked for or called, with the position it was first wanted at. */
function wantedNames(messages: readonly ProviderMessage[]): Map<string, number> {
  const wanted = new Map<string, number>();
  const want = (name: unknown) => {
    if (typeof name === 'string' && !wanted.has(name)) wanted.set(name, wanted.size);
  };
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.toolCalls) {
      if (c.name !== LOAD_TOOLS) want(c.name);
      else {
        const names = (c.args as { names?: unknown } | null)?.names;
        if (Array.isArray(names)) for (const n of names) want(n);
      }
    }
  }
  return wanted;
}

function specOf(e: ToolCatalogEntry): ToolSpec {
  return {
    name: e.name,
    description: e.descriptor.description,
    inputSchema: e.descriptor.inputSchema,
  };
}
