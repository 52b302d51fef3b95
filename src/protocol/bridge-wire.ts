/**
 * The loopback channel between Keel's MCP bridge (bridge/keel-mcp.ts, a Node process an outside
 * agent starts) and the extension's service worker (src/bridge-link). The worker opens a
 * WebSocket to the bridge on 127.0.0.1; both ends speak these JSON text frames
 * (docs/mcp-server.md §Wire). Every frame is validated with zod on arrival; an invalid frame
 * closes the socket.
 *
 * Trust (docs/mcp-server.md §Security model): the bridge accepts a socket only with an
 * `Origin: chrome-extension://…` header (no web page can send one); then both ends prove they know
 * the pairing secret `H = sha256(token)` without sending it (`proofOf`). The bridge keeps the token
 * in a 0600 file; the extension keeps only H, in its encrypted credentials store. H crosses the
 * wire once, in `pair`, and only becomes usable after the user allowed the pairing in the panel.
 */
import { z } from 'zod';

export const BRIDGE_WIRE_VERSION = 1;
/** The first port the worker tries; it tries `BRIDGE_PORT_SPAN` ports from there (one per bridge). */
export const DEFAULT_BRIDGE_PORT = 17_345;
export const BRIDGE_PORT_SPAN = 4;
/** The worker sends a `ping` this often: Chrome keeps a worker alive while its WebSocket talks. */
export const BRIDGE_PING_MS = 20_000;

const Id = z.string().min(1).max(100);
const ClientInfo = z.object({ name: z.string().min(1).max(100), version: z.string().max(50) });
export type BridgeClientInfo = z.infer<typeof ClientInfo>;

export const McpContent = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
]);
export type McpContent = z.infer<typeof McpContent>;

export const BridgeTool = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type BridgeTool = z.infer<typeof BridgeTool>;

/** Frames the bridge sends. */
export const BridgeFrame = z.discriminatedUnion('t', [
  /** First frame: who is asking, under which pairing, and the bridge's half of the challenge. */
  z.object({
    t: z.literal('hello'),
    v: z.number().int(),
    client: ClientInfo,
    pairingId: Id,
    sessionId: Id,
    nonce: Id,
  }),
  /** Answer to `pair_needed`: the pairing secret's hash, held until the user allows it. */
  z.object({ t: z.literal('pair'), pairingId: Id, client: ClientInfo, secretHash: Id }),
  /** The bridge's proof, answering the extension's `challenge`. */
  z.object({ t: z.literal('auth'), proof: Id }),
  z.object({ t: z.literal('list'), id: Id }),
  /** A tool call; `callId` is stable across reconnects, so a re-sent call is the same call. */
  z.object({
    t: z.literal('call'),
    id: Id,
    callId: Id,
    threadId: Id.optional(),
    name: z.string().min(1).max(200),
    args: z.record(z.string(), z.unknown()),
  }),
  z.object({ t: z.literal('pong') }),
]);
export type BridgeFrame = z.infer<typeof BridgeFrame>;

/** Frames the extension sends. */
export const ExtensionFrame = z.discriminatedUnion('t', [
  /** The pairing is known: the extension's proof and its half of the challenge. */
  z.object({ t: z.literal('challenge'), nonce: Id, proof: Id }),
  /** The pairing id is unknown: send `pair` so the panel can ask the user. */
  z.object({ t: z.literal('pair_needed') }),
  /** The user's answer is awaited in the panel. */
  z.object({ t: z.literal('pair_pending') }),
  /** Both proofs checked: calls are served from now on. */
  z.object({ t: z.literal('ready'), threadId: Id.optional() }),
  /** Nothing is served on this socket; `code` says why (docs/mcp-server.md §Errors). */
  z.object({
    t: z.literal('refused'),
    code: z.enum(['denied', 'revoked', 'bad_proof', 'disabled', 'version']),
    message: z.string(),
  }),
  z.object({ t: z.literal('tools'), id: Id, tools: z.array(BridgeTool) }),
  z.object({ t: z.literal('progress'), id: Id, message: z.string() }),
  z.object({
    t: z.literal('result'),
    id: Id,
    content: z.array(McpContent),
    isError: z.boolean(),
    threadId: Id.optional(),
  }),
  z.object({ t: z.literal('error'), id: Id, message: z.string() }),
  z.object({ t: z.literal('ping') }),
]);
export type ExtensionFrame = z.infer<typeof ExtensionFrame>;

/** A trusted socket's Origin: an extension's (pinned to one id when the bridge knows it). */
export function isExtensionOrigin(origin: string | undefined, extensionId?: string): boolean {
  if (!origin) return false;
  const m = /^chrome-extension:\/\/([a-p]{32})$/.exec(origin);
  return !!m && (!extensionId || m[1] === extensionId);
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The pairing secret as the extension stores it: SHA-256 of the bridge's token, hex. */
export async function secretHashOf(token: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
}

/**
 * One side's proof that it knows H: HMAC-SHA256 keyed by H over its role and both nonces in its
 * own order, so a proof cannot be replayed as the other side's or on another socket.
 */
export async function proofOf(
  secretHash: string,
  role: 'extension' | 'bridge',
  mine: string,
  theirs: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secretHash),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const msg = new TextEncoder().encode(`keel-${role}|${mine}|${theirs}`);
  return hex(await crypto.subtle.sign('HMAC', key, msg));
}

/** Random hex (nonces, tokens, ids). */
export function randomHex(bytes = 16): string {
  return hex(crypto.getRandomValues(new Uint8Array(bytes)).buffer);
}

/** Compare two proofs without an early exit. */
export function sameProof(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}
