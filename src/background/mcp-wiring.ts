import type { Engine } from '../engine';
import { mcpCredentialId, mcpOAuthClientCredentialId } from '../engine/env/settings-service';
import type { Store } from '../store/store';
import type { StoredMcpServer } from '../store/records';
import {
  createMcpManager,
  type McpAuthStore,
  type McpOAuthHost,
  type McpSavedSession,
  type McpServerConfig,
  type McpSessionStore,
  type McpToolCache,
} from '../tools/mcp';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { acceptsSignIn, isSignInPayload } from '../tools/mcp/sign-in';

const toConfig = (
  s: Pick<
    StoredMcpServer,
    'id' | 'url' | 'enabled' | 'allowedTools' | 'label' | 'isolation' | 'oauthClientId'
  >,
): McpServerConfig => ({
  id: s.id,
  url: s.url,
  enabled: s.enabled,
  ...(s.allowedTools ? { allowedTools: s.allowedTools } : {}),
  ...(s.label ? { label: s.label } : {}),
  ...(s.isolation ? { isolation: s.isolation } : {}),
  // A pre-registered client (the server offers no dynamic registration); its secret, if any, is
  // read by the manager from the credentials store.
  ...(s.oauthClientId ? { oauth: { clientId: s.oauthClientId } } : {}),
});

/** OAuth credentials of a server (tokens, registration, PKCE verifier): one secret, never in settings. */
export const mcpOAuthCredentialId = (serverId: string) => `mcp-oauth:${serverId}`;

function credentialsAuthStore(store: Store): McpAuthStore {
  return {
    load: (id) => store.credentials.getSecret(mcpOAuthCredentialId(id)).catch(() => null),
    save: (id, value) => store.credentials.setSecret(mcpOAuthCredentialId(id), value, Date.now()),
    clear: (id) => store.credentials.delete(mcpOAuthCredentialId(id)),
  };
}

/**
 * Sign-in through chrome.identity.launchWebAuthFlow: Chrome shows the authorization server's page
 * in its own window and hands back the URL it redirected to (https://<extension id>.chromiumapp.org/…),
 * which no web page can intercept. Absent when the identity API is (tests without it).
 */
function identityOAuthHost(store: Store): McpOAuthHost | undefined {
  const identity = (globalThis as { chrome?: typeof chrome }).chrome?.identity;
  if (!identity?.launchWebAuthFlow || !identity.getRedirectURL) return undefined;
  return {
    store: credentialsAuthStore(store),
    redirectUrl: identity.getRedirectURL(),
    clientName: 'Keel',
    getClientSecret: (id) => store.credentials.getSecret(mcpOAuthClientCredentialId(id)),
    authorize: async (url) => {
      const back = await identity.launchWebAuthFlow({ url, interactive: true });
      if (!back) throw new Error('the sign-in window closed without an answer');
      return back;
    },
  };
}

/**
 * Per-thread session ids in chrome.storage.session: they outlive a worker restart (so the next
 * worker resumes the session) but not the browser session, and content scripts cannot read them.
 */
function storageSessionStore(): McpSessionStore | undefined {
  const area = (globalThis as { chrome?: typeof chrome }).chrome?.storage?.session;
  if (!area) return undefined;
  const k = (key: string) => `keel.mcp.session:${key}`;
  return {
    load: async (key) => ((await area.get(k(key)))[k(key)] as McpSavedSession | undefined) ?? null,
    save: (key, session) => area.set({ [k(key)]: session }),
    remove: (key) => area.remove(k(key)),
  };
}

/** Last tool lists, in chrome.storage.session (a new worker registers them before connecting). */
function storageToolCache(): McpToolCache | undefined {
  const area = (globalThis as { chrome?: typeof chrome }).chrome?.storage?.session;
  if (!area) return undefined;
  const k = (key: string) => `keel.mcp.tools:${key}`;
  return {
    load: async (key) => ((await area.get(k(key)))[k(key)] as Tool[] | undefined) ?? null,
    save: (key, tools) => area.set({ [k(key)]: tools }),
  };
}

const LOG = {
  debug: console.debug,
  info: console.info,
  warn: console.warn,
  error: console.error,
} as const;

/**
 * Connect the configured MCP servers and keep them in step with settings: server status flows
 * into PublicSettings (`mcpServers[].status`), and a new run waits (bounded) for the latest sync
 * so a server added a moment ago is in its catalog. Resolves when the first sync finished, or
 * after `maxWaitMs`, so a hung server never holds up recovery.
 */
export function installMcp(engine: Engine, store: Store, maxWaitMs = 5_000): Promise<void> {
  const oauth = identityOAuthHost(store);
  const sessionStore = storageSessionStore();
  const toolCache = storageToolCache();
  const mcp = createMcpManager({
    registry: engine.registry,
    // The token leaves the credentials store only here, at connect time.
    getToken: (id) => store.credentials.getSecret(mcpCredentialId(id)),
    fetch: (...args) => fetch(...args),
    ...(oauth ? { oauth } : {}),
    ...(sessionStore ? { sessionStore } : {}),
    ...(toolCache ? { toolCache } : {}),
    log: (level, msg, data) =>
      (LOG[level as keyof typeof LOG] ?? console.log)(`[keel/mcp] ${msg}`, data ?? ''),
  });
  let latest: Promise<void> = Promise.resolve();
  const sync = (servers: McpServerConfig[]) =>
    (latest = mcp.sync(servers).then(
      () => undefined,
      () => undefined,
    ));
  engine.ctx.live.toolsSettled = () => latest;
  engine.ctx.live.mcpAuth = { signIn: (id) => mcp.signIn(id), signOut: (id) => mcp.signOut(id) };

  const publishStatus = () => {
    engine.ctx.live.mcp = Object.fromEntries(
      mcp.status().map((s) => [
        s.id,
        {
          state: s.state,
          ...(s.message ? { message: s.message } : {}),
          toolCount: s.toolCount,
          ...(s.auth ? { auth: s.auth } : {}),
        },
      ]),
    );
    engine.publishSettings();
  };
  let pending: ReturnType<typeof setTimeout> | undefined;
  // Status changes come in bursts (connect → list tools → ready): publish once per burst.
  mcp.onStatusChange(() => {
    clearTimeout(pending);
    pending = setTimeout(publishStatus, 100);
  });

  // "Sign in to X to continue" answered after a worker restart: the call that asked is gone (the
  // tool step tells the model it did not run), but the user's yes still opens the sign-in page.
  const signInAfterRestart = async (interactionId: string) => {
    const rec = await store.interactions.get(interactionId);
    if (
      !rec ||
      rec.kind !== 'elicitation' ||
      rec.status !== 'answered' ||
      !isSignInPayload(rec.payload) ||
      !acceptsSignIn(rec.response)
    )
      return;
    await mcp.signIn(rec.payload.signIn.serverId).catch(() => undefined);
  };

  let lastConfig = '';
  let knownIds = new Set<string>();
  engine.observe((ev) => {
    if (ev.type === 'settings.updated') {
      const configs = ev.settings.mcpServers.map(toConfig);
      // A removed server's sign-in goes with it (a URL change is handled when it reconnects).
      const ids = new Set(configs.map((c) => c.id));
      for (const id of knownIds)
        if (!ids.has(id))
          void store.credentials.delete(mcpOAuthCredentialId(id)).catch(() => undefined);
      knownIds = ids;
      // A token or client secret set or cleared must reconnect too (the manager reads secrets).
      const key = JSON.stringify([
        configs,
        ev.settings.mcpServers.map((m) => [m.hasToken, m.hasOAuthClientSecret ?? false]),
      ]);
      if (key !== lastConfig) {
        lastConfig = key;
        void sync(configs);
      }
    } else if (ev.type === 'thread.deleted') void mcp.closeThread(ev.threadId);
    else if (ev.type === 'interaction.resolved') void signInAfterRestart(ev.interactionId);
  });
  const first = store.settings.get().then((s) => {
    const configs = s.mcpServers.map(toConfig);
    lastConfig = JSON.stringify([
      configs,
      s.mcpServers.map((m) => [Boolean(m.credentialId), Boolean(m.oauthClientSecretId)]),
    ]);
    knownIds = new Set(configs.map((c) => c.id));
    return sync(configs);
  });
  return Promise.race([
    first.then(() => undefined),
    new Promise<void>((r) => setTimeout(r, maxWaitMs)),
  ]);
}
