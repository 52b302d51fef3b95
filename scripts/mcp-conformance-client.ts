/**
 * Keel's MCP client as a command-line program, for the MCP conformance runner
 * (@modelcontextprotocol/conformance) and for trying a server by hand. It drives the same code the
 * extension uses (src/tools/mcp: McpManager → ServerConnection → McpSession → SDK Client).
 *
 *   npx tsx scripts/mcp-conformance-client.ts [--tool NAME] [--args JSON] <server-url>
 *
 * The runner appends the server URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. Scenarios:
 *   initialize                      initialize + tools/list, then close (DELETE)
 *   tools-call / tools_call         + call every tool with minimal arguments built from its schema
 *   elicitation-defaults,
 *   elicitation-sep1034-client-defaults
 *                                   + call every tool; elicitations are accepted with empty content,
 *                                     so the requested schema's defaults are what the server gets
 *   sse-retry                       + call the server's tool, which drops the SSE stream before its
 *                                   result: the client reconnects with GET, honouring `retry:` and
 *                                   sending `Last-Event-ID`, and receives the result there
 *   (none)                          initialize + tools/list; with --tool, call that tool (with --args,
 *                                   or minimal arguments built from its schema)
 * A bearer token may be given in MCP_TOKEN (never printed). Output: one JSON object per line.
 * Exit code 0 when the client did its part, 1 otherwise.
 */
import { ToolRegistry } from '../src/tools/registry';
import { createMcpManager } from '../src/tools/mcp';
import type { ToolCallContext } from '../src/tools/types';

interface Cli {
  url: string;
  tool?: string;
  args?: Record<string, unknown>;
}

function parseCli(argv: string[]): Cli {
  const rest = [...argv];
  const cli: Partial<Cli> = {};
  while (rest.length > 1) {
    const flag = rest.shift();
    if (flag === '--tool') cli.tool = rest.shift();
    else if (flag === '--args') cli.args = JSON.parse(rest.shift() ?? '{}') as Record<string, unknown>;
    else throw new Error(`unknown argument ${flag}`);
  }
  const url = rest.shift();
  if (!url) throw new Error('usage: mcp-conformance-client.ts [--tool NAME] [--args JSON] <server-url>');
  return { ...cli, url };
}

const out = (event: string, data: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...data }));

/** Minimal arguments that satisfy a flat object schema: required properties only. */
function minimalArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string; enum?: unknown[]; default?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const key of required) {
    const p = props[key] ?? {};
    if (p.default !== undefined) args[key] = p.default;
    else if (p.enum?.length) args[key] = p.enum[0];
    else if (p.type === 'number' || p.type === 'integer') args[key] = 1;
    else if (p.type === 'boolean') args[key] = true;
    else if (p.type === 'array') args[key] = [];
    else if (p.type === 'object') args[key] = {};
    else args[key] = 'test';
  }
  return args;
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const registry = new ToolRegistry();
  const manager = createMcpManager({
    registry,
    getToken: async () => process.env.MCP_TOKEN || null,
    clientInfo: { name: 'keel-conformance-client', version: '0.1.0' },
    log: (level, message, data) => {
      if (level !== 'debug') console.error(JSON.stringify({ level, message, ...data }));
    },
  });
  const ctx: ToolCallContext = {
    threadId: 'conformance',
    runId: 'conformance',
    model: { vision: true },
    requestInteraction: async (_kind, payload) => {
      out('elicitation', { payload });
      return { action: 'accept', content: {} };
    },
  };

  try {
    await manager.sync([{ id: 'conformance', url: cli.url, enabled: true }]);
    const [status] = manager.status();
    out('initialized', { state: status.state, server: status.server, tools: status.serverToolCount, message: status.message });
    if (status.state !== 'connected') return 1;

    const tools = registry.list().map((r) => r.tool);
    let toCall: typeof tools = [];
    if (/^tools[-_]call$|^elicitation|^sse-retry$/.test(scenario)) {
      // The runner's scenario servers are mocks: calling every tool they offer is the test.
      toCall = tools;
    } else if (cli.tool) {
      // By hand, only the tool asked for: a real server's tools may change things.
      toCall = tools.filter((t) => t.name.endsWith(`__${cli.tool}`));
      if (toCall.length === 0) out('error', { error: `no tool named ${cli.tool}` });
    } else if (scenario && scenario !== 'initialize') {
      out('note', { scenario, message: 'scenario not handled beyond initialize + tools/list' });
    }
    for (const t of toCall) {
      const args = cli.args ?? minimalArgs(t.inputSchema ?? {});
      try {
        const result = await t.execute(`call-${t.name}`, args, new AbortController().signal, (u) => out('progress', { tool: t.name, text: u.progressText }), ctx);
        out('result', { tool: t.name, isError: result.isError ?? false, content: result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)) });
      } catch (err) {
        out('error', { tool: t.name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return 0;
  } finally {
    await manager.close();
    out('closed');
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    out('fatal', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
