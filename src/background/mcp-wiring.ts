import type { Engine } from '../engine';
import { mcpCredentialId } from '../engine/settings-service';
import type { Store } from '../store/store';
import type { StoredMcpServer } from '../store/records';
import { createMcpManager, type McpServerConfig } from '../tools/mcp';

const toConfig = (s: Pick<StoredMcpServer, 'id' | 'url' | 'enabled' | 'allowedTools' | 'label' | 'isolation'>): McpServerConfig => ({
  id: s.id,
  url: s.url,
  enabled: s.enabled,
  ...(s.allowedTools ? { allowedTools: s.allowedTools } : {}),
  ...(s.label ? { label: s.label } : {}),
  ...(s.isolation ? { isolation: s.isolation } : {}),
});

/**
 * Connect the configured MCP servers and keep them in step with settings. Resolves when the
 * first sync finished (or after `maxWaitMs`, so a hung server never holds up recovery).
 */
export function installMcp(engine: Engine, store: Store, maxWaitMs = 5_000): Promise<void> {
  const mcp = createMcpManager({
    registry: engine.registry,
    // The token leaves the credentials store only here, at connect time.
    getToken: (id) => store.credentials.getSecret(mcpCredentialId(id)),
    fetch: (...args) => fetch(...args),
    log: (level, msg, data) => (level === 'error' ? console.error : console.warn)(`[keel/mcp] ${msg}`, data ?? ''),
  });
  engine.observe((ev) => {
    if (ev.type === 'settings.updated') void mcp.sync(ev.settings.mcpServers.map(toConfig));
    else if (ev.type === 'thread.deleted') void mcp.closeThread(ev.threadId);
  });
  const first = store.settings.get().then((s) => mcp.sync(s.mcpServers.map(toConfig)));
  return Promise.race([first.then(() => undefined), new Promise<void>((r) => setTimeout(r, maxWaitMs))]);
}
