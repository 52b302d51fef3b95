import type { RegisteredTool, ToolRegistry } from './registry';

/**
 * The tools Keel offers an outside agent through the MCP bridge (docs/mcp-server.md): its browser
 * tools (L0–L2) and nothing else — not the builtins that talk to the user or plan (the outside
 * agent has its own), not the remote MCP servers' tools (each has its own permission story).
 */
export function bridgeTools(registry: Pick<ToolRegistry, 'list'>): RegisteredTool[] {
  return registry
    .list()
    .filter(
      (t) =>
        t.descriptor.name.startsWith('browser_') &&
        ['L0', 'L1', 'L2'].includes(t.descriptor.level) &&
        t.descriptor.visibility === 'tool' &&
        !t.tool.interaction,
    );
}

/** A tool as MCP's tools/list shows it: its schema, and hints from Keel's effects. */
export function mcpToolOf(t: RegisteredTool): {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
} {
  const d = t.descriptor;
  return {
    name: d.name,
    title: d.label,
    description: d.description,
    inputSchema: d.inputSchema as Record<string, unknown>,
    annotations: { readOnlyHint: d.effects === 'read', openWorldHint: true },
  };
}
