import { describeMcpError, type McpFailureKind } from './errors';
import type { McpIsolation } from './types';

/**
 * What to do after a call failed (on a session that is then replaced):
 * - `rethrow`: not a session or connection failure (a JSON-RPC error, a sign-in, a timeout…);
 * - `resend`: send it once more on a new session;
 * - `fail`: end it with `message`, which says what is known about whether it ran.
 * An expired session means the server refused the request before running it: on a `shared`
 * (stateless) server a new session is all it takes, so any call is sent again (the first write
 * after a server restart goes through); on a `per_thread` server the state the call may depend on
 * is gone, so only a read is. A dropped connection may have run the call: only a read is re-sent.
 */
export type AfterFailedCall =
  | { kind: 'rethrow' }
  | { kind: 'resend' }
  | { kind: 'fail'; message: string };

export function afterFailedCall(f: {
  kind: McpFailureKind;
  readOnly: boolean;
  isolation: McpIsolation;
  serverId: string;
  tool: string;
  error: unknown;
}): AfterFailedCall {
  const id = `MCP server "${f.serverId}"`;
  const tool = `"${f.tool}"`;
  if (f.kind === 'unauthorized')
    return { kind: 'fail', message: `${id}: ${describeMcpError(f.error)}.` };
  if (f.kind !== 'session_expired' && f.kind !== 'unreachable') return { kind: 'rethrow' };
  if (f.readOnly || (f.kind === 'session_expired' && f.isolation === 'shared'))
    return { kind: 'resend' };
  return {
    kind: 'fail',
    message:
      f.kind === 'session_expired'
        ? `${id} no longer knew this thread's session (it restarted or the session expired), so ${tool} did not run. A new session is being opened; the state the server kept for this thread is gone. Call it again if that is still right.`
        : `The connection to ${id} failed during ${tool} (${describeMcpError(f.error)}); it is unknown whether the call took effect. Check before calling it again.`,
  };
}
