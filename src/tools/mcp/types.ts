import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolRegistry } from '../registry';

/**
 * Public types of the MCP client (docs/mcp.md). The manager turns configured remote MCP servers
 * into `AgentTool`s named `mcp__<serverId>__<tool>`; it never reads the store: secrets come from
 * the injected `getToken`, the network from the injected `fetch`.
 */

export type { FetchLike };

/**
 * `shared`: one session per server for every thread (stateless servers, the default).
 * `per_thread`: one session per thread, opened on the thread's first call (servers that keep
 * state per client, spec/000 `per_conversation`); tools are listed with a short-lived probe session.
 */
export type McpIsolation = 'shared' | 'per_thread';

/** One configured server, as settings hold it (the token is fetched with `getToken`). */
export interface McpServerConfig {
  /** `[A-Za-z0-9_-]{1,40}`: part of every tool name and of the permission key `mcp:<id>`. */
  id: string;
  /** The Streamable HTTP endpoint (http or https), e.g. `https://example.com/mcp`. */
  url: string;
  enabled: boolean;
  /**
   * Tool names as the server spells them (or the registered `mcp__…` names). Absent: every tool.
   * An empty list registers no tool.
   */
  allowedTools?: string[];
  label?: string;
  /** Default `shared`. */
  isolation?: McpIsolation;
}

export type McpServerState = 'disabled' | 'connecting' | 'connected' | 'error';

/** What the settings UI shows per server. */
export interface McpServerStatus {
  id: string;
  label?: string;
  url: string;
  isolation: McpIsolation;
  state: McpServerState;
  /** Why the server is in `error` (or what is happening while `connecting`). Never a secret. */
  message?: string;
  /** Tools registered for the model (after `allowedTools`). */
  toolCount: number;
  /** Tools the server offers in total. */
  serverToolCount: number;
  /** `name version` the server reported at initialization. */
  server?: string;
  lastConnectedAt?: number;
  /** When the next reconnection attempt is due, while in `error`. */
  nextRetryAt?: number;
  /** Open sessions: the shared one, or one per thread. */
  sessions: number;
}

export type McpLogLevel = 'debug' | 'info' | 'warn' | 'error';
/** Must not throw. Never receives a token. */
export type McpLogger = (level: McpLogLevel, message: string, data?: Record<string, unknown>) => void;

/** Timeouts and backoff; defaults in `DEFAULT_MCP_TIMING`. */
export interface McpTiming {
  /** Initialize and tools/list requests. */
  requestTimeoutMs: number;
  /** A call fails when the server sends neither a result nor progress for this long. */
  callIdleTimeoutMs: number;
  /** Hard cap of one call's active time (time spent waiting for the user is not counted). */
  callMaxMs: number;
  /** First reconnection delay; doubles per failed attempt up to `reconnectMaxMs`. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** Per-thread sessions unused this long are closed. */
  threadSessionIdleMs: number;
  /** Coalesces bursts of `notifications/tools/list_changed`. */
  listChangedDebounceMs: number;
}

export const DEFAULT_MCP_TIMING: McpTiming = {
  requestTimeoutMs: 30_000,
  callIdleTimeoutMs: 90_000,
  callMaxMs: 30 * 60_000,
  reconnectBaseMs: 1_000,
  reconnectMaxMs: 60_000,
  threadSessionIdleMs: 30 * 60_000,
  listChangedDebounceMs: 200,
};

export interface McpManagerOptions {
  registry: ToolRegistry;
  /** The server's bearer token (credential `mcp:<serverId>`), or null when it has none. */
  getToken(serverId: string): Promise<string | null>;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  log?: McpLogger;
  /** Sent to servers at initialization. */
  clientInfo?: { name: string; version: string };
  timing?: Partial<McpTiming>;
}

/** What `interaction.request{kind:'elicitation'}` carries to the UI. */
export interface McpElicitationPayload {
  serverId: string;
  serverLabel?: string;
  /** The registered tool name (`mcp__…`) whose call asked. */
  tool: string;
  /** The tool's name on the server. */
  serverTool: string;
  message: string;
  /** A flat object schema of primitive fields (MCP form mode). */
  requestedSchema: Record<string, unknown>;
}

/** Primitive answer values MCP form elicitation allows. */
export type McpElicitationValue = string | number | boolean | string[];

/** The UI's answer, sent as `interaction.response{response}`. */
export type McpElicitationResponse =
  | { action: 'accept'; content: Record<string, McpElicitationValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** `details` of an MCP tool result (UI only). */
export interface McpToolDetails {
  serverId: string;
  serverTool: string;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  /** Content that did not reach the model as such (images without vision, audio, blobs). */
  omitted?: { type: string; mimeType?: string; bytes?: number; uri?: string }[];
  truncated?: boolean;
}
