import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { sha256Hex } from '../../util/canonical-json';
import { createMcpAgentTool, type McpBinding, type McpInvocation } from './agent-tool';
import { toToolResult } from './results';
import { describeMcpError } from './errors';
import { ServerConnection } from './server-connection';
import { createServerAuth } from './oauth/create-server-auth';
import type { McpServerAuth } from './oauth/server-auth';
import { mcpToolName, SERVER_ID_RE } from './tool-names';
import {
  DEFAULT_MCP_TIMING,
  type McpIsolation,
  type McpLogger,
  type McpManagerOptions,
  type McpServerConfig,
  type McpServerStatus,
  type McpTiming,
} from './types';
import type { ToolResult } from '../types';
import type { McpToolDetails } from './types';

/**
 * Keeps the registry's MCP tools in line with the configured servers. `sync` applies settings
 * (add, remove, enable, disable, URL, token, allowed tools, isolation); each enabled server gets a
 * `ServerConnection`, and every complete tool list it reports is diffed into the registry:
 * changed tools are registered again (so their descriptor digests change), removed ones are
 * unregistered, unchanged ones are left alone. Tools stay registered while a server reconnects,
 * so a run's catalog does not flicker; calls then wait for, or fail with, the reconnection.
 */

interface ServerEntry {
  config: McpServerConfig;
  isolation: McpIsolation;
  /** What requires a new connection when it changes (URL, isolation, token). */
  connectionKey: string;
  binding: McpBinding;
  token: string | null;
  connection: ServerConnection | null;
  /** Last full list from the server. */
  tools: Tool[];
  /** server tool name → registered name (stable across refreshes). */
  names: Map<string, string>;
  /** registered name → fingerprint of what was registered. */
  registered: Map<string, string>;
  /** OAuth, for a server without a bearer token when the host supports sign-in. */
  auth: McpServerAuth | null;
  signingIn?: boolean;
  /** Why the last sign-in from settings failed (cleared by the next attempt). */
  signInError?: string;
  /** Set when the entry cannot connect at all (bad id, URL or token lookup). */
  configError?: string;
}

const noopLog: McpLogger = () => undefined;

export class McpManager {
  private readonly servers = new Map<string, ServerEntry>();
  /** registered name → owner, across servers (collision-free naming). */
  private readonly owners = new Map<string, string>();
  private readonly listeners = new Set<(status: McpServerStatus[]) => void>();
  private readonly timing: McpTiming;
  private readonly log: McpLogger;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: McpManagerOptions) {
    this.timing = { ...DEFAULT_MCP_TIMING, ...o.timing };
    this.log = o.log ?? noopLog;
  }

  /**
   * Apply the configured servers. Resolves when every enabled server has made its first attempt
   * (connected or failed; failures retry with backoff). Calls are applied in order.
   */
  sync(servers: McpServerConfig[]): Promise<void> {
    const run = this.chain.then(() => this.applySync(servers));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** List tools again: one server or every enabled one. */
  async refresh(serverId?: string): Promise<void> {
    const entries = serverId
      ? [this.servers.get(serverId)].filter((e) => e !== undefined)
      : [...this.servers.values()];
    await Promise.all(entries.map((e) => e.connection?.refresh()));
  }

  status(): McpServerStatus[] {
    return [...this.servers.values()].map((e) => this.statusOf(e));
  }

  /** Called with the full status list whenever a server's status changes. Returns an unsubscribe. */
  onStatusChange(listener: (status: McpServerStatus[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sign in to a server (settings' Connect button): opens the authorization page through the
   * host's `authorize`, stores the tokens, then connects and lists the tools.
   */
  async signIn(serverId: string): Promise<void> {
    const entry = this.servers.get(serverId);
    if (!entry?.config.enabled) throw new Error(`MCP server "${serverId}" is not enabled`);
    if (!entry.auth)
      throw new Error(
        entry.token
          ? `MCP server "${serverId}" uses a bearer token, not a sign-in`
          : 'signing in is not available here',
      );
    entry.signingIn = true;
    delete entry.signInError;
    this.notify();
    try {
      await entry.auth.signIn();
    } catch (err) {
      entry.signInError = describeMcpError(err);
      throw err;
    } finally {
      entry.signingIn = false;
      this.notify();
    }
    await entry.connection?.refresh().catch(() => undefined);
  }

  /** Sign out: revoke where the server allows it, forget the tokens, close the sessions. */
  async signOut(serverId: string): Promise<void> {
    const entry = this.servers.get(serverId);
    if (!entry?.auth) return;
    await entry.auth.signOut();
    if (entry.connection) {
      await entry.connection.close();
      entry.connection = this.connect(entry);
      this.notify();
      await entry.connection.start();
    }
  }

  /** The thread was deleted: close its per-thread sessions. */
  async closeThread(threadId: string): Promise<void> {
    await Promise.all([...this.servers.values()].map((e) => e.connection?.closeThread(threadId)));
  }

  /** Close every session and unregister every MCP tool. */
  close(): Promise<void> {
    return this.sync([]);
  }

  private async applySync(servers: McpServerConfig[]): Promise<void> {
    const wanted = new Map(servers.map((s) => [s.id, s]));
    for (const [id, entry] of this.servers) {
      if (!wanted.has(id)) {
        await this.teardown(entry);
        this.servers.delete(id);
      }
    }
    const starts: Promise<void>[] = [];
    for (const config of servers) {
      const entry = await this.prepare(config);
      const prev = this.servers.get(config.id);
      if (prev && prev.connectionKey === entry.connectionKey && prev.connection) {
        prev.config = config;
        prev.binding = entry.binding;
        this.applyTools(prev);
        continue;
      }
      if (prev) await this.teardown(prev);
      this.servers.set(config.id, entry);
      if (config.enabled && !entry.configError && !prev) await this.restoreTools(entry);
      if (config.enabled && !entry.configError) {
        entry.connection = this.connect(entry);
        starts.push(entry.connection.start());
      }
    }
    this.notify();
    await Promise.all(starts);
  }

  private async prepare(config: McpServerConfig): Promise<ServerEntry> {
    const isolation = config.isolation ?? 'shared';
    const entry: ServerEntry = {
      config,
      isolation,
      connectionKey: '',
      binding: { serverId: config.id, endpoint: config.url, authIdentity: 'none' },
      token: null,
      connection: null,
      auth: null,
      tools: [],
      names: new Map(),
      registered: new Map(),
    };
    if (!SERVER_ID_RE.test(config.id))
      entry.configError = 'invalid server id (letters, digits, _ and -, at most 40)';
    else if (!isHttpUrl(config.url)) entry.configError = 'the URL must be http(s)://…';
    if (entry.configError || !config.enabled) return entry;
    try {
      entry.token = (await this.o.getToken(config.id)) || null;
    } catch (err) {
      entry.configError = `could not read the token (${err instanceof Error ? err.message : String(err)})`;
      return entry;
    }
    const tokenHash = entry.token ? await sha256Hex(entry.token) : '';
    entry.binding.authIdentity = entry.token ? `bearer:${tokenHash.slice(0, 12)}` : 'none';
    let secretHash = '';
    if (!entry.token && this.o.oauth) {
      try {
        // A pre-registered client's secret, read only when the settings name such a client.
        const oauth = config.oauth ?? {};
        const host = this.o.oauth;
        const secret =
          oauth.clientId && oauth.clientAuth !== 'none' && host.getClientSecret
            ? await host.getClientSecret(config.id)
            : null;
        secretHash = secret ? await sha256Hex(secret) : '';
        entry.auth = await createServerAuth(config, host, secret, {
          fetch: this.o.fetch ?? ((url, init) => fetch(url, init)),
          log: this.log,
          now: this.o.now ?? Date.now,
          onChange: () => {
            if (this.servers.get(config.id)?.auth) this.notify();
          },
        });
        entry.binding.authIdentity = 'oauth';
      } catch (err) {
        entry.configError = `sign-in settings: ${err instanceof Error ? err.message : String(err)}`;
        return entry;
      }
    }
    entry.connectionKey = JSON.stringify([
      config.url,
      isolation,
      tokenHash,
      config.oauth ?? null,
      secretHash,
    ]);
    return entry;
  }

  private connect(entry: ServerEntry): ServerConnection {
    const { config } = entry;
    return new ServerConnection({
      serverId: config.id,
      url: config.url,
      token: entry.token,
      isolation: entry.isolation,
      fetch: entry.auth ? entry.auth.fetch : this.o.fetch,
      ...(entry.auth ? { signIn: (challenge) => entry.auth!.signIn(challenge) } : {}),
      ...(config.label ? { serverLabel: config.label } : {}),
      ...(this.o.sessionStore ? { sessionStore: this.o.sessionStore } : {}),
      clientInfo: this.o.clientInfo ?? { name: 'keel', version: '0.1.0' },
      timing: this.timing,
      log: this.log,
      onTools: (tools) => {
        if (this.servers.get(config.id) !== entry) return;
        entry.tools = tools;
        this.applyTools(entry);
        this.notify();
        void this.o.toolCache?.save(toolCacheKey(config), tools).catch(() => undefined);
      },
      onChange: () => {
        if (this.servers.get(config.id) === entry) this.notify();
      },
    });
  }

  /** A new worker: register the tools the server had, until it answers (or asks for a sign-in). */
  private async restoreTools(entry: ServerEntry): Promise<void> {
    const cached = await this.o.toolCache?.load(toolCacheKey(entry.config)).catch(() => null);
    if (!cached?.length) return;
    entry.tools = cached;
    this.applyTools(entry);
  }

  private async teardown(entry: ServerEntry): Promise<void> {
    const connection = entry.connection;
    entry.connection = null;
    entry.tools = [];
    this.applyTools(entry);
    await connection?.close();
  }

  /** Diff the server's current (filtered) tools into the registry. */
  private applyTools(entry: ServerEntry): void {
    const { registry } = this.o;
    const id = entry.config.id;
    const allowed = entry.config.allowedTools;
    const next = new Map<string, { def: Tool; fingerprint: string }>();
    for (const def of [...entry.tools].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      if (def.execution?.taskSupport === 'required') {
        this.log('info', 'skipping a tool that only runs as an MCP task', {
          serverId: id,
          tool: def.name,
        });
        continue;
      }
      const name =
        entry.names.get(def.name) ??
        mcpToolName(id, def.name, (n) => this.isTaken(n, id) || next.has(n));
      if (allowed && !allowed.includes(def.name) && !allowed.includes(name)) continue;
      entry.names.set(def.name, name);
      next.set(name, {
        def,
        fingerprint: JSON.stringify([def, entry.binding, entry.config.label ?? null]),
      });
    }
    for (const name of [...entry.registered.keys()]) {
      if (next.has(name)) continue;
      registry.unregister(name);
      entry.registered.delete(name);
      this.owners.delete(name);
    }
    for (const [name, { def, fingerprint }] of next) {
      if (entry.registered.get(name) === fingerprint) continue;
      const tool = createMcpAgentTool(def, {
        name,
        binding: { ...entry.binding },
        serverLabel: entry.config.label,
        invoke: (call) => this.invoke(call),
      });
      try {
        registry.register(tool, { replace: true });
        entry.registered.set(name, fingerprint);
        this.owners.set(name, id);
      } catch (err) {
        this.log('warn', 'could not register an MCP tool', {
          serverId: id,
          tool: def.name,
          error: String(err),
        });
      }
    }
  }

  /** Taken by something other than this server: another server's tool or a built-in one. */
  private isTaken(name: string, serverId: string): boolean {
    const owner = this.owners.get(name);
    if (owner !== undefined) return owner !== serverId;
    return this.o.registry.get(name) !== undefined;
  }

  private async invoke(call: McpInvocation): Promise<ToolResult<McpToolDetails>> {
    const entry = this.servers.get(call.binding.serverId);
    const connection = entry?.connection;
    if (!entry || !connection)
      throw new Error(`MCP server "${call.binding.serverId}" is not enabled.`);
    // A tool object from an older catalog must not reach a server that was reconfigured since.
    if (
      entry.binding.endpoint !== call.binding.endpoint ||
      entry.binding.authIdentity !== call.binding.authIdentity
    ) {
      throw new Error(
        `MCP server "${call.binding.serverId}" was reconfigured since this tool was listed; the call was not sent.`,
      );
    }
    const result = await connection.callTool({
      serverTool: call.serverTool,
      args: call.args,
      readOnly: call.readOnly,
      signal: call.signal,
      ctx: call.ctx,
      onProgress: (text) => call.onUpdate({ progressText: text }),
      elicitation: {
        serverId: entry.config.id,
        serverLabel: entry.config.label,
        tool: call.tool,
        serverTool: call.serverTool,
      },
    });
    return toToolResult(result, {
      serverId: entry.config.id,
      serverTool: call.serverTool,
      vision: call.ctx.model.vision,
    });
  }

  private statusOf(e: ServerEntry): McpServerStatus {
    const c = e.connection;
    const base = {
      id: e.config.id,
      ...(e.config.label ? { label: e.config.label } : {}),
      url: e.config.url,
      isolation: e.isolation,
      toolCount: e.registered.size,
      serverToolCount: e.tools.length,
      sessions: c?.sessions ?? 0,
      ...(e.auth
        ? {
            auth: {
              ...e.auth.summary(),
              ...(e.signingIn ? { signingIn: true } : {}),
              ...(e.signInError ? { error: e.signInError } : {}),
            },
          }
        : {}),
    };
    if (!e.config.enabled) return { ...base, state: 'disabled' };
    if (e.configError || !c)
      return { ...base, state: 'error', message: e.configError ?? 'not connected' };
    return {
      ...base,
      state: c.state,
      ...(c.message ? { message: c.message } : {}),
      ...(c.server ? { server: c.server } : {}),
      ...(c.lastConnectedAt ? { lastConnectedAt: c.lastConnectedAt } : {}),
      ...(c.nextRetryAt ? { nextRetryAt: c.nextRetryAt } : {}),
    };
  }

  private notify(): void {
    if (this.listeners.size === 0) return;
    const status = this.status();
    for (const l of this.listeners) {
      try {
        l(status);
      } catch (err) {
        this.log('warn', 'an MCP status listener threw', { error: String(err) });
      }
    }
  }
}

const toolCacheKey = (config: McpServerConfig) => JSON.stringify([config.id, config.url]);

function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
