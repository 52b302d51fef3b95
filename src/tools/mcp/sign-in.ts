import { describeMcpError, type McpSignInRequiredError, type SignInChallenge } from './errors';
import type { ToolCallContext } from '../types';
import type { McpElicitationPayload } from './types';

/**
 * "Sign in to X to continue": a call that the server refused for want of an OAuth sign-in pauses
 * the run as an interaction. It travels as an `elicitation` with one yes/no field `signIn` (so
 * every UI that shows a server's question can show it, and the engine keeps it across a worker
 * restart like any other), marked by `signIn` in the payload. `{action:'accept', content:{signIn:
 * true}}`: Keel opens the server's sign-in page, then sends the call again (it did not run).
 * Anything else: the call fails with a note for the model.
 */
export interface McpSignInPayload extends McpElicitationPayload {
  signIn: { serverId: string; scope?: string };
}

export function signInPayload(
  base: Omit<McpElicitationPayload, 'message' | 'requestedSchema'>,
  challenge: SignInChallenge,
  why: string,
): McpSignInPayload {
  const name = base.serverLabel ?? base.serverId;
  return {
    ...base,
    message: `Sign in to ${name} to continue. (${why}.)`,
    requestedSchema: {
      type: 'object',
      properties: { signIn: { type: 'boolean', title: `Sign in to ${name} now` } },
      required: ['signIn'],
    },
    signIn: { serverId: base.serverId, ...(challenge.scope ? { scope: challenge.scope } : {}) },
  };
}

/** Whether the user's answer says to sign in. */
export function acceptsSignIn(response: unknown): boolean {
  const r = response as { action?: unknown; content?: { signIn?: unknown } } | null;
  return r?.action === 'accept' && r.content?.signIn === true;
}

export function isSignInPayload(payload: unknown): payload is McpSignInPayload {
  const p = payload as { signIn?: { serverId?: unknown } } | null;
  return typeof p === 'object' && p !== null && typeof p.signIn?.serverId === 'string';
}

/**
 * The call's result when the answer arrives after a worker restart: the call never ran (the
 * server refused it before running), and the sign-in itself needs the live worker, so the model
 * is told to call again once the user has signed in.
 */
export function signInAnsweredAfterRestart(payload: McpSignInPayload, response: unknown): string {
  const accepted = acceptsSignIn(response);
  const name = `MCP server "${payload.serverId}"`;
  return accepted
    ? `${name} needed a sign-in, so "${payload.serverTool}" did not run. Keel restarted while the user was asked; they chose to sign in, and Keel opened the server's sign-in page for them. Call the tool again once they have signed in (if it still asks, they can also sign in from settings → MCP servers → Connect).`
    : `${name} needed a sign-in and the user did not sign in, so "${payload.serverTool}" did not run. Do not call it again unless they sign in.`;
}

/**
 * Ask the user of the call ("sign in to X to continue"); on yes, sign in. Throws, with a message
 * for the model saying the call did not run, when they say no, the run is interrupted, or the
 * sign-in fails.
 */
export async function askToSignIn(
  err: McpSignInRequiredError,
  call: {
    serverTool: string;
    ctx: ToolCallContext;
    onProgress(text: string): void;
    elicitation: Omit<McpElicitationPayload, 'message' | 'requestedSchema'>;
  },
  server: {
    serverId: string;
    serverLabel?: string;
    signIn(challenge: SignInChallenge): Promise<void>;
  },
): Promise<void> {
  const id = `MCP server "${server.serverId}"`;
  let answer: unknown;
  try {
    answer = await call.ctx.requestInteraction!(
      'elicitation',
      signInPayload(call.elicitation, err.challenge, err.message),
    );
  } catch {
    throw new Error(`Signing in to ${id} was cancelled; "${call.serverTool}" did not run.`);
  }
  if (!acceptsSignIn(answer)) {
    throw new Error(
      `The user did not sign in to ${id}, so "${call.serverTool}" did not run. Do not call it again unless they sign in (settings → MCP servers → Connect).`,
    );
  }
  call.onProgress(`Signing in to ${server.serverLabel ?? server.serverId}…`);
  try {
    await server.signIn(err.challenge);
  } catch (e) {
    throw new Error(
      `Signing in to ${id} failed (${describeMcpError(e)}); "${call.serverTool}" did not run.`,
    );
  }
}
