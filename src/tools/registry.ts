import type { ToolCatalogEntry } from '../store/records';
import { deepFreeze, digestOf } from '../util/canonical-json';
import { toolJsonSchema } from './json-schema';
import type { AgentTool, ToolDescriptor, ToolLifecycle } from './types';
import type { ToolSpec } from '../providers/types';

export class ToolRegistrationError extends Error {}

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Normalize a tool into its frozen descriptor, applying the defaults of spec/001 §4 in this one
 * place: read → retry-safe, write → never-retry; builtin trusted with provenance 'tool'; MCP
 * untrusted with provenance 'mcp'; L0–L2 untrusted with provenance 'page'.
 */
export function describeTool(tool: AgentTool): ToolDescriptor {
  if (!NAME_RE.test(tool.name)) throw new ToolRegistrationError(`invalid tool name "${tool.name}"`);
  if (!tool.label?.trim()) throw new ToolRegistrationError(`tool ${tool.name} needs a label`);
  if (!tool.description?.trim())
    throw new ToolRegistrationError(`tool ${tool.name} needs a description`);
  if (tool.onDemand && !/^[^\n]{1,120}$/.test(tool.onDemand.brief.trim()))
    throw new ToolRegistrationError(
      `tool ${tool.name}: an on-demand brief is one line of ≤ 120 characters`,
    );
  const binding = tool.binding ?? { kind: 'local' as const };
  if (tool.level === 'mcp' && binding.kind !== 'mcp') {
    throw new ToolRegistrationError(
      `MCP tool ${tool.name} must carry an MCP binding (server, endpoint, auth identity)`,
    );
  }
  if (binding.kind === 'page' && (tool.level !== 'L1' || tool.provenance !== 'page')) {
    throw new ToolRegistrationError(`page tool ${tool.name} must be an L1 tool of provenance page`);
  }
  if (tool.level !== 'mcp' && binding.kind === 'mcp') {
    throw new ToolRegistrationError(
      `tool ${tool.name} at level ${tool.level} may only use a local binding`,
    );
  }
  const provenance =
    tool.provenance ?? (tool.level === 'builtin' ? 'tool' : tool.level === 'mcp' ? 'mcp' : 'page');
  return deepFreeze({
    name: tool.name,
    label: tool.label,
    description: tool.description,
    inputSchema: tool.inputSchema ?? toolJsonSchema(tool.parameters),
    level: tool.level,
    effects: tool.effects,
    recovery: tool.recovery ?? (tool.effects === 'read' ? 'retry-safe' : 'never-retry'),
    visibility: tool.visibility ?? 'tool',
    trusted: tool.trusted ?? tool.level === 'builtin',
    provenance,
    binding,
    skipApproval: tool.skipApproval ?? false,
    ...(tool.interaction ? { interactionKind: tool.interaction.kind } : {}),
    ...(tool.onDemand ? { onDemand: { brief: tool.onDemand.brief } } : {}),
  });
}

function summary(d: ToolDescriptor): string {
  const b =
    d.binding.kind === 'mcp'
      ? `mcp:${d.binding.serverId}@${d.binding.endpoint}`
      : d.binding.kind === 'page'
        ? `page:${d.binding.origin}`
        : 'local';
  return `level=${d.level} effects=${d.effects} recovery=${d.recovery} binding=${b}`;
}

export interface RegisteredTool {
  readonly tool: AgentTool;
  readonly descriptor: ToolDescriptor;
}

/**
 * The registry of tools available to runs. A generation counter changes on every mutation, and
 * `snapshot()` returns an immutable view (implementation + descriptor pairs), so a run that
 * computes digests asynchronously never re-reads a tool that an MCP reconnect has replaced.
 */
export class ToolRegistry {
  private tools = new Map<string, RegisteredTool>();
  private lifecycles: ToolLifecycle[] = [];
  private gen = 0;

  get generation(): number {
    return this.gen;
  }

  register(tool: AgentTool, options: { replace?: boolean } = {}): ToolDescriptor {
    const descriptor = describeTool(tool);
    const existing = this.tools.get(tool.name);
    if (existing && !options.replace) {
      throw new ToolRegistrationError(
        `tool "${tool.name}" is already registered (existing: ${summary(existing.descriptor)}; new: ${summary(descriptor)})`,
      );
    }
    this.tools.set(tool.name, Object.freeze({ tool, descriptor }));
    this.gen += 1;
    return descriptor;
  }

  unregister(name: string): boolean {
    const had = this.tools.delete(name);
    if (had) this.gen += 1;
    return had;
  }

  /** Remove every tool whose name starts with `prefix` (an MCP server's tools). */
  unregisterPrefix(prefix: string): void {
    for (const name of [...this.tools.keys()]) if (name.startsWith(prefix)) this.tools.delete(name);
    this.gen += 1;
  }

  addLifecycle(l: ToolLifecycle): void {
    this.lifecycles.push(l);
  }

  get lifecycleHooks(): readonly ToolLifecycle[] {
    return this.lifecycles;
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  snapshot(): ReadonlyMap<string, RegisteredTool> {
    return new Map(this.tools);
  }

  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }
}

/** One catalog entry per tool, each with the SHA-256 of its canonical descriptor. */
export async function catalogOf(tools: Iterable<RegisteredTool>): Promise<ToolCatalogEntry[]> {
  const out: ToolCatalogEntry[] = [];
  for (const { descriptor } of tools) {
    out.push({ name: descriptor.name, digest: await digestOf(descriptor), descriptor });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function toolSpecs(catalog: ToolCatalogEntry[]): ToolSpec[] {
  return catalog.map((e) => ({
    name: e.name,
    description: e.descriptor.description,
    inputSchema: e.descriptor.inputSchema,
  }));
}
