import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { JsonSchema } from '../../providers/types';
import { argumentChecker } from '../argument-checker';
import type { AgentTool, ToolCallContext, ToolResult, ToolUpdate } from '../types';
import type { McpToolDetails } from './types';

/**
 * One MCP tool as an `AgentTool`. The server's input schema goes to the model as is; the zod
 * schema only says "an object" and the arguments are checked against the server's schema here,
 * with @cfworker/json-schema (no eval), so the model gets a precise error to correct itself.
 * Annotations are hints from an untrusted server: `readOnlyHint` sets `effects: 'read'` (which
 * also makes the call retry-safe) but never skips approval: the Gatekeeper asks per server.
 */

export type McpArgs = Record<string, unknown>;

export interface McpBinding {
  serverId: string;
  endpoint: string;
  authIdentity: string;
}

export interface McpInvocation {
  binding: McpBinding;
  /** The registered name. */
  tool: string;
  serverTool: string;
  readOnly: boolean;
  args: McpArgs;
  signal: AbortSignal;
  onUpdate: (update: ToolUpdate<McpToolDetails>) => void;
  ctx: ToolCallContext;
}

export type McpInvoker = (call: McpInvocation) => Promise<ToolResult<McpToolDetails>>;

const MAX_DESCRIPTION = 4000;
const Params = z.record(z.string(), z.unknown());

export function createMcpAgentTool(
  def: Tool,
  opts: { name: string; binding: McpBinding; serverLabel?: string; invoke: McpInvoker },
): AgentTool<McpArgs, McpToolDetails> {
  const { binding } = opts;
  const readOnly = def.annotations?.readOnlyHint === true;
  const title = def.title ?? def.annotations?.title ?? def.name;
  const about = (def.description ?? '').trim() || title;
  const description = `[MCP server "${binding.serverId}"] ${about}`;
  const check = argumentChecker(def.inputSchema as JsonSchema);
  return {
    name: opts.name,
    label: `${title} · ${opts.serverLabel ?? binding.serverId}`.slice(0, 200),
    description:
      description.length > MAX_DESCRIPTION
        ? `${description.slice(0, MAX_DESCRIPTION)}…`
        : description,
    parameters: Params,
    inputSchema: def.inputSchema as JsonSchema,
    level: 'mcp',
    effects: readOnly ? 'read' : 'write',
    trusted: false,
    provenance: 'mcp',
    binding: { kind: 'mcp', ...binding },
    async resolveTarget() {
      return { serverId: binding.serverId };
    },
    async execute(_toolCallId, params, signal, onUpdate, ctx) {
      const problem = check(params);
      if (problem) throw new Error(`Invalid arguments for ${def.name}: ${problem}`);
      return opts.invoke({
        binding,
        tool: opts.name,
        serverTool: def.name,
        readOnly,
        args: params,
        signal,
        onUpdate,
        ctx,
      });
    },
  };
}
