import { BridgeLink, type SocketLike } from '../bridge-link/bridge-link';
import type { Engine } from '../engine';
import { DirectTransport } from '../protocol';
import type { Store } from '../store/store';
import { bridgeTools, mcpToolOf } from '../tools/bridge-tools';

/**
 * Keel as an MCP server (docs/mcp-server.md): the worker connects to local bridges when the
 * setting is on. The link is one more client of the engine (an in-process transport), so every
 * pairing and call goes through the engine's ops like the panel's. The browser sets the socket's
 * Origin to this extension's; the bridge checks it.
 */
export function installBridgeLink(engine: Engine, store: Store): BridgeLink {
  const link = new BridgeLink({
    transport: new DirectTransport(engine),
    openSocket: (url) => new WebSocket(url) as unknown as SocketLike,
    secretOf: (pairingId) => store.credentials.getSecret(`bridge:${pairingId}`),
    listTools: () => bridgeTools(engine.registry).map(mcpToolOf),
    log: (line) => console.warn(`[keel] ${line}`),
  });
  link.start();
  return link;
}
