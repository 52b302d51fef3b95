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

const LOG = { debug: console.debug, info: console.info, warn: console.warn, error: console.error } as const;

/**
 * Connect the configured MCP servers and keep them in step with settings: server status flows
 * into PublicSettings (`mcpServers[].status`), and a new run waits (bounded) for the latest sync
 * so a server added a moment ago is in its catalog. Resolves when the first sync finished, or
 * after `maxWaitMs`, so a hung server never holds up recovery.
 */
export function installMcp(engine: Engine, store: Store, maxWaitMs = 5_000): Promise<void> {
  const mcp = createMcpManager({
    registry: engine.registry,
    // The token leaves the credentials store only here, at connect time.
    getToken: (id) => store.credentials.getSecret(mcpCredentialId(id)),
    fetch: (...args) => fetch(...args),
    log: (level, msg, data) => (LOG[level as keyof typeof LOG] ?? console.log)(`[keel/mcp] ${msg}`, data ?? ''),
  });
  let latest: Promise<void> = Promise.resolve();
  const sync = (servers: McpServerConfig[]) => (latest = mcp.sync(servers).then(() => undefined, () => undefined));
  engine.ctx.live.toolsSettled = () => latest;

  const publishStatus = () => {
    engine.ctx.live.mcp = Object.fromEntries(
      mcp.status().map((s) => [s.id, { state: s.state, ...(s.message ? { message: s.message } : {}), toolCount: s.toolCount }]),
    );
    engine.publishSettings();
  };
  let pending: ReturnType<typeof setTimeout> | undefined;
  // Status changes come in bursts (connect → list tools → ready): publish once per burst.
  mcp.onStatusChange(() => {
    clearTimeout(pending);
    pending = setTimeout(publishStatus, 100);
  });

  let lastConfig = '';
  engine.observe((ev) => {
    if (ev.type === 'settings.updated') {
      const configs = ev.settings.mcpServers.map(toConfig);
      const key = JSON.stringify(configs);
      if (key !== lastConfig) {
        lastConfig = key;
        void sync(configs);
      }
    } else if (ev.type === 'thread.deleted') void mcp.closeThread(ev.threadId);
  });
  const first = store.settings.get().then((s) => {
    const configs = s.mcpServers.map(toConfig);
    lastConfig = JSON.stringify(configs);
    return sync(configs);
  });
  return Promise.race([first.then(() => undefined), new Promise<void>((r) => setTimeout(r, maxWaitMs))]);
}
