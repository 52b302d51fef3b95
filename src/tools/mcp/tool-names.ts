/**
 * Registered names of MCP tools: `mcp__<serverId>__<toolName>`, within the registry's
 * `[a-zA-Z0-9_-]{1,64}`. MCP allows any characters and any length, so a name that is not already
 * valid is cleaned (other characters become `_`), clipped, and tagged with a hash of the original:
 * `a.b` and `a_b` stay distinct, and a tool keeps its name whatever else the server lists.
 */

import { fnv1a } from '../../util/fnv1a';

const MAX_NAME = 64;
const INVALID = /[^a-zA-Z0-9_-]/g;
const VALID = /^[a-zA-Z0-9_-]+$/;
export const SERVER_ID_RE = /^[A-Za-z0-9_-]{1,40}$/;

export function mcpToolPrefix(serverId: string): string {
  return `mcp__${serverId}__`;
}

/**
 * The name for `toolName` of `serverId`. `isTaken(name)` tells whether another (server, tool)
 * already owns a candidate; a clash (only possible between odd ids such as server `a` + tool `_x`
 * and server `a_` + tool `x`) moves to the next salted hash, so names never collide.
 */
export function mcpToolName(
  serverId: string,
  toolName: string,
  isTaken: (name: string) => boolean,
): string {
  const prefix = mcpToolPrefix(serverId);
  const plain = prefix + toolName;
  if (VALID.test(toolName) && plain.length <= MAX_NAME && !isTaken(plain)) return plain;
  const clean = toolName.replace(INVALID, '_');
  const room = Math.max(0, MAX_NAME - prefix.length - 9);
  for (let salt = 0; ; salt++) {
    const tag = fnv1a(
      salt === 0 ? `${serverId}\u0000${toolName}` : `${serverId}\u0000${toolName}\u0000${salt}`,
    );
    const name = `${prefix}${clean.slice(0, room)}_${tag}`;
    if (!isTaken(name)) return name;
  }
}
