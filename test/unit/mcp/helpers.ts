import { ToolRegistry } from '../../../src/tools/registry';
import type { AgentTool, ToolCallContext, ToolResult, ToolUpdate } from '../../../src/tools/types';
import { createMcpManager, type McpManager, type McpManagerOptions } from '../../../src/tools/mcp';
import { openGateForTests } from '../../../src/gatekeeper/receiver';

export interface Harness {
  registry: ToolRegistry;
  manager: McpManager;
  logs: { level: string; message: string; data?: Record<string, unknown> }[];
}

export function harness(
  opts: Partial<McpManagerOptions> & { tokens?: Record<string, string> } = {},
): Harness {
  const registry = opts.registry ?? new ToolRegistry();
  const logs: Harness['logs'] = [];
  const manager = createMcpManager({
    registry,
    getToken: opts.getToken ?? (async (id) => opts.tokens?.[id] ?? null),
    log: (level, message, data) => logs.push({ level, message, data }),
    timing: {
      reconnectBaseMs: 200,
      reconnectMaxMs: 1_000,
      listChangedDebounceMs: 50,
      ...opts.timing,
    },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.oauth ? { oauth: opts.oauth } : {}),
    ...(opts.sessionStore ? { sessionStore: opts.sessionStore } : {}),
    ...(opts.toolCache ? { toolCache: opts.toolCache } : {}),
  });
  return { registry, manager, logs };
}

export function ctx(over: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    threadId: 't1',
    runId: 'r1',
    model: { vision: false },
    gate: openGateForTests(),
    ...over,
  };
}

export function tool(registry: ToolRegistry, name: string): AgentTool {
  const reg = registry.get(name);
  if (!reg)
    throw new Error(
      `tool ${name} is not registered (have: ${registry
        .list()
        .map((r) => r.tool.name)
        .join(', ')})`,
    );
  return reg.tool;
}

export async function call(
  registry: ToolRegistry,
  name: string,
  params: Record<string, unknown>,
  c: ToolCallContext = ctx(),
  opts: { signal?: AbortSignal; updates?: ToolUpdate[] } = {},
): Promise<ToolResult> {
  const t = tool(registry, name);
  const parsed = t.parameters.parse(params);
  return t.execute(
    `call-${Math.random()}`,
    parsed,
    opts.signal ?? new AbortController().signal,
    (u) => opts.updates?.push(u),
    c,
  );
}

export function textOf(result: ToolResult): string {
  return result.content
    .map((b) => (b.type === 'text' ? b.text : `<image ${b.mimeType}>`))
    .join('\n');
}

export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function mcpNames(registry: ToolRegistry): string[] {
  return registry
    .list()
    .map((r) => r.tool.name)
    .filter((n) => n.startsWith('mcp__'))
    .sort();
}
