import { McpManager } from './manager';
import type { McpManagerOptions } from './types';

/**
 * Remote MCP servers as tools (docs/mcp.md). Wire it once in the service worker:
 *   const mcp = createMcpManager({ registry, getToken });
 *   await mcp.sync(settings.mcpServers);
 * then call `sync` again whenever settings change, `closeThread` when a thread is deleted, and
 * show `status()` / `onStatusChange` in the settings UI.
 */
export function createMcpManager(options: McpManagerOptions): McpManager {
  return new McpManager(options);
}

export { McpManager } from './manager';
export {
  validateElicitationResponse,
  toElicitResult,
  McpElicitationResponseSchema,
} from './elicitation';
export { mcpToolName, mcpToolPrefix } from './tool-names';
export { toToolResult } from './results';
export type {
  FetchLike,
  McpElicitationPayload,
  McpElicitationResponse,
  McpElicitationValue,
  McpIsolation,
  McpLogger,
  McpLogLevel,
  McpManagerOptions,
  McpOAuthConfig,
  McpSavedSession,
  McpSessionStore,
  McpToolCache,
  McpOAuthHost,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
  McpTiming,
  McpToolDetails,
} from './types';
export { DEFAULT_MCP_TIMING } from './types';
export { memoryAuthStore, type McpAuthStore, type McpAuthSummary } from './oauth/auth-record';
export { isSignInPayload, type McpSignInPayload } from './sign-in';
