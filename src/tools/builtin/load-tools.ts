import { z } from 'zod';
import type { ToolCatalogEntry } from '../../store/records';
import type { AgentTool } from '../types';

export const LOAD_TOOLS = 'load_tools';

const Params = z.object({
  names: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(20)
    .describe('Names of tools from the list in this description.'),
});
type Params = z.infer<typeof Params>;

/**
 * The static part of load_tools' description. The request adds the list of tools it can load
 * (offered-tools.ts), built from the run's catalog, so it is the same on every request of a run.
 */
export const LOAD_TOOLS_DESCRIPTION =
  'Load tools that are not offered yet. Rarely needed tools are listed below with one line each; name the ones you need and they are offered from your next step on, and stay offered in this conversation.';

/**
 * load_tools (docs/tools.md "Tools on demand"): the model names rarely needed tools and they are
 * offered from the next request on. The call changes nothing but the context: which tools a
 * request offers is worked out from the calls in the context itself (offered-tools.ts), so a
 * resumed run, a fork or an edit offers exactly what its own history loaded. No card, no approval.
 */
export function createLoadToolsTool(deps: {
  /** The run's tool catalog as it was captured when the run started. */
  catalogOf(runId: string): Promise<readonly ToolCatalogEntry[] | null>;
}): AgentTool<Params> {
  return {
    name: LOAD_TOOLS,
    label: 'Load tools',
    description: LOAD_TOOLS_DESCRIPTION,
    parameters: Params,
    level: 'builtin',
    effects: 'read',
    recovery: 'retry-safe',
    visibility: 'internal',
    skipApproval: true,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const catalog = (await deps.catalogOf(ctx.runId)) ?? [];
      return { content: [{ type: 'text', text: loadAnswer(catalog, params.names) }] };
    },
  };
}

/** What the model is told about each name it asked for; throws when none of them can be loaded. */
export function loadAnswer(catalog: readonly ToolCatalogEntry[], names: readonly string[]): string {
  const byName = new Map(catalog.map((e) => [e.name, e]));
  const loaded: string[] = [];
  const offered: string[] = [];
  const unknown: string[] = [];
  for (const n of new Set(names)) {
    const e = byName.get(n);
    if (!e || n === LOAD_TOOLS) unknown.push(n);
    else if (e.descriptor.onDemand) loaded.push(n);
    else offered.push(n);
  }
  const loadable = catalog.filter((e) => e.descriptor.onDemand).map((e) => e.name);
  if (!loaded.length && !offered.length)
    throw new Error(
      `No tool is called ${unknown.map((n) => `"${n}"`).join(', ')}. Tools you can load: ${loadable.join(', ') || 'none'}.`,
    );
  return [
    loaded.length ? `Loaded: ${loaded.join(', ')}. Call them from your next step.` : '',
    offered.length ? `Already offered: ${offered.join(', ')}.` : '',
    unknown.length
      ? `Not known: ${unknown.join(', ')} (tools you can load: ${loadable.join(', ')}).`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
}
