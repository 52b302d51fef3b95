import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { scrubSecrets } from '../../util/scrub-secrets';
import type { CallTimeoutKind } from './call-timer';

/**
 * How a failed request to an MCP server is treated:
 * - `session_expired`: the server no longer knows our session (HTTP 404 on a request carrying
 *   `Mcp-Session-Id`, as the spec says; some servers, server-everything among them, answer 400
 *   "No valid session ID" instead). The request was rejected before it ran.
 * - `unreachable`: the network failed or the connection was lost; a call may or may not have run.
 * - `unauthorized`: 401/403; retrying with the same token will not help.
 * - `sign_in`: the server wants an OAuth sign-in (or more scope); the request did not run.
 * - `other`: a JSON-RPC error or anything else; reported as is.
 */
export type McpFailureKind =
  | 'session_expired'
  | 'unreachable'
  | 'unauthorized'
  | 'sign_in'
  | 'other';

/** The connection was lost while a call was in flight (the transport gave up reconnecting). */
export class McpConnectionLostError extends Error {
  override name = 'McpConnectionLostError';
}

/** The session stopped taking calls before this one was sent (it did not run). */
export class McpSessionGoneError extends Error {
  override name = 'McpSessionGoneError';
}

/** The session was closed on our side (settings changed, thread deleted) during the call. */
export class McpSessionClosedError extends Error {
  override name = 'McpSessionClosedError';
}

export class McpCallTimeoutError extends Error {
  override name = 'McpCallTimeoutError';
  constructor(
    readonly kind: CallTimeoutKind,
    serverId: string,
    tool: string,
    ms: number,
  ) {
    super(
      kind === 'idle'
        ? `MCP server "${serverId}" sent no result and no progress for "${tool}" within ${seconds(ms)}; the call was cancelled.`
        : `"${tool}" on MCP server "${serverId}" ran longer than ${seconds(ms)}; the call was cancelled.`,
    );
  }
}

/** The server cannot be reached or its session cannot be opened; the call did not start. */
export class McpUnavailableError extends Error {
  override name = 'McpUnavailableError';
}

/** What a sign-in should ask for, from the server's `WWW-Authenticate` challenge. */
export interface SignInChallenge {
  scope?: string;
  resourceMetadataUrl?: string;
}

/**
 * The server refused the request (401, or 403 asking for more scope) and only the user can fix it
 * by signing in. The request did not run on the server, so it may be sent again after signing in.
 */
export class McpSignInRequiredError extends Error {
  override name = 'McpSignInRequiredError';
  constructor(
    readonly serverId: string,
    message: string,
    readonly challenge: SignInChallenge = {},
  ) {
    super(message);
  }
}

/** The server refuses access in a way signing in again cannot fix (no retry loop). */
export class McpAuthRefusedError extends Error {
  override name = 'McpAuthRefusedError';
}

export function classifyMcpError(err: unknown): McpFailureKind {
  if (err instanceof McpSignInRequiredError) return 'sign_in';
  if (err instanceof McpAuthRefusedError) return 'unauthorized';
  if (err instanceof McpConnectionLostError) return 'unreachable';
  if (err instanceof McpSessionGoneError) return 'session_expired';
  if (err instanceof StreamableHTTPError) {
    const code = err.code ?? 0;
    if (code === 404) return 'session_expired';
    if (code === 400 && /session/i.test(err.message)) return 'session_expired';
    if (code === 401 || code === 403) return 'unauthorized';
    if (code === 408 || code === 429 || code >= 500) return 'unreachable';
    return 'other';
  }
  // fetch rejects with a TypeError when the network fails ("fetch failed", "Failed to fetch").
  if (err instanceof TypeError) return 'unreachable';
  return 'other';
}

/** A message without secrets and without the SDK's noise, for statuses and the model. */
export function describeMcpError(err: unknown): string {
  if (err instanceof StreamableHTTPError) {
    const code = err.code ?? 0;
    if (code === 401 || code === 403)
      return `the server refused the credentials (HTTP ${code}); check the token`;
    if (code === 404) return 'HTTP 404: no MCP endpoint at this URL (or the session expired)';
    const detail = err.message.replace(/^Streamable HTTP error: /, '');
    return code > 0 ? `HTTP ${code}: ${clip(detail)}` : clip(detail);
  }
  if (err instanceof TypeError) {
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : '';
    return `the server could not be reached${why ? ` (${why})` : ''}`;
  }
  if (err instanceof Error) return clip(err.message);
  return clip(String(err));
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function clip(raw: string, max = 300): string {
  const text = scrubSecrets(raw); // response bodies can echo the token: scrubbed before clipping
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
