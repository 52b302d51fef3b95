import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AddClientAuthentication } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../registry';
import type { McpAuthStore, McpAuthSummary } from './oauth/auth-record';

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
  /** OAuth details; absent: sign in with dynamic registration (or a Client ID Metadata Document). */
  oauth?: McpOAuthConfig;
}

/**
 * How Keel signs in to a server that requires OAuth (docs/mcp.md). A server with a bearer token
 * configured never uses OAuth.
 */
export interface McpOAuthConfig {
  /** `client_credentials`: a machine server, no user sign-in. Default `authorization_code`. */
  grant?: 'authorization_code' | 'client_credentials';
  /** A pre-registered client (no dynamic registration); its secret comes from `getClientSecret`. */
  clientId?: string;
  /** How a pre-registered or machine client authenticates at the token endpoint. */
  clientAuth?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  /** private_key_jwt signing algorithm (default ES256). */
  jwtAlgorithm?: string;
  /** Scope to ask for when the server's challenge and metadata name none. */
  scope?: string;
}

/** Sign-in support, as the host provides it. */
export interface McpOAuthHost {
  /** Where tokens, registrations and PKCE verifiers are kept (the credentials store). */
  store: McpAuthStore;
  /** The redirect URL registered with authorization servers (chrome.identity.getRedirectURL()). */
  redirectUrl: string;
  /** Opens the authorization page; resolves with the URL the server redirected back to. */
  authorize(url: string, serverId: string): Promise<string>;
  clientName?: string;
  /** An https URL serving Keel's Client ID Metadata Document, where one is published. */
  clientMetadataUrl?: string;
  /** Secret (or private key) of a pre-registered / machine client. */
  getClientSecret?(serverId: string): Promise<string | null>;
  /** private_key_jwt signer (needs a JWT library; not offered in the extension). */
  privateKeyJwt?: (o: {
    clientId: string;
    privateKey: string;
    alg: string;
  }) => AddClientAuthentication;
}

/** `needs_sign_in`: the server requires OAuth and no usable token is held (Connect in settings). */
export type McpServerState = 'disabled' | 'connecting' | 'connected' | 'needs_sign_in' | 'error';

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
  /** OAuth state, for servers that use it (never a token). */
  auth?: McpAuthSummary;
}

export type McpLogLevel = 'debug' | 'info' | 'warn' | 'error';
/** Must not throw. Never receives a token. */
export type McpLogger = (
  level: McpLogLevel,
  message: string,
  data?: Record<string, unknown>,
) => void;

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
  /** OAuth sign-in; absent: servers that require OAuth show an error. */
  oauth?: McpOAuthHost;
  /**
   * Where per-thread session ids are kept so a worker restart resumes them (chrome.storage.session
   * in the extension); absent: they live in memory only.
   */
  sessionStore?: McpSessionStore;
  /**
   * The last tool list of each server, so a new worker registers a server's tools before it
   * connects (a run waiting on a sign-in must still find its tool after a restart); absent: none.
   */
  toolCache?: McpToolCache;
  now?(): number;
}

/** A per-thread session as saved for resuming after a worker restart (no secret in it). */
export interface McpSavedSession {
  sessionId: string;
  protocolVersion?: string;
  server?: string;
}

/** Keys are opaque (server id, URL and thread); values as saved. Must not throw on a missing key. */
export interface McpSessionStore {
  load(key: string): Promise<McpSavedSession | null>;
  save(key: string, session: McpSavedSession): Promise<void>;
  remove(key: string): Promise<void>;
}

/** Last tool lists by opaque key (server id and URL). */
export interface McpToolCache {
  load(key: string): Promise<Tool[] | null>;
  save(key: string, tools: Tool[]): Promise<void>;
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
