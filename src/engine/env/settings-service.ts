import { placeholderOf } from '../../secrets/site-secrets';
import type { PublicSettings, SettingsPatch } from '../../protocol';
import type {
  SettingsRecord,
  SiteRuleRecord,
  SkillRecord,
  StoredBridgeSettings,
  StoredMcpServer,
  StoredProvider,
} from '../../store/records';
import { DEFAULT_BRIDGE_PORT } from '../../protocol/bridge-wire';
import type { Store } from '../../store/store';
import { mcpOrigin, normalizeOrigin } from '../../gatekeeper/origins';

/** The credential reference of a provider or MCP server: stable, so a rotated key keeps it. */
export const providerCredentialId = (providerId: string) => `provider:${providerId}`;
export const mcpCredentialId = (serverId: string) => `mcp:${serverId}`;
export const mcpOAuthClientCredentialId = (serverId: string) => `mcp-oauth-client:${serverId}`;
/** A bridge pairing's secret hash (docs/mcp-server.md). */
export const bridgeCredentialId = (pairingId: string) => `bridge:${pairingId}`;

export interface SecretWrite {
  credentialId: string;
  /** null deletes the secret. */
  value: string | null;
}

/**
 * Apply a SettingsPatch (PROTOCOL.md): arrays merge by id, `{id, remove: true}` deletes, an
 * omitted apiKey/token keeps the stored secret. Returns the new record and the secrets to write;
 * secrets never enter the settings record itself.
 */
export function applySettingsPatch(
  current: SettingsRecord,
  patch: SettingsPatch,
): { next: SettingsRecord; secrets: SecretWrite[]; removedRules: string[] } {
  const next: SettingsRecord = structuredClone(current);
  const secrets: SecretWrite[] = [];
  /** Permission keys that die with their endpoint (mcp:<id> of a removed or moved server). */
  const removedRules: string[] = [];
  for (const p of patch.providers ?? []) {
    const idx = next.providers.findIndex((x) => x.id === p.id);
    if ('remove' in p) {
      if (idx >= 0) next.providers.splice(idx, 1);
      secrets.push({ credentialId: providerCredentialId(p.id), value: null });
      if (next.defaultModel?.providerId === p.id) next.defaultModel = null;
      if (next.taskModel?.providerId === p.id) next.taskModel = null;
      continue;
    }
    const prev = idx >= 0 ? next.providers[idx] : undefined;
    const entry: StoredProvider = {
      id: p.id,
      kind: p.kind,
      ...(p.baseURL !== undefined
        ? { baseURL: p.baseURL }
        : prev?.baseURL !== undefined && prev.kind === p.kind
          ? { baseURL: prev.baseURL }
          : {}),
      ...(p.label !== undefined ? { label: p.label } : prev?.label ? { label: prev.label } : {}),
      ...(p.models !== undefined
        ? { models: p.models }
        : prev?.models
          ? { models: prev.models }
          : {}),
      ...(prev?.credentialId ? { credentialId: prev.credentialId } : {}),
    };
    // A key was given for one endpoint: a new base URL or kind must not receive it unasked.
    if (
      prev?.credentialId &&
      p.apiKey === undefined &&
      (prev.kind !== entry.kind || (prev.baseURL ?? '') !== (entry.baseURL ?? ''))
    ) {
      secrets.push({ credentialId: providerCredentialId(p.id), value: null });
      delete entry.credentialId;
    }
    if (p.apiKey !== undefined) {
      const key = p.apiKey.trim();
      secrets.push({ credentialId: providerCredentialId(p.id), value: key || null });
      if (key) entry.credentialId = providerCredentialId(p.id);
      else delete entry.credentialId;
    }
    if (idx >= 0) next.providers[idx] = entry;
    else next.providers.push(entry);
  }
  for (const m of patch.mcpServers ?? []) {
    const idx = next.mcpServers.findIndex((x) => x.id === m.id);
    if ('remove' in m) {
      const removed = idx >= 0 ? next.mcpServers.splice(idx, 1)[0] : undefined;
      secrets.push({ credentialId: mcpCredentialId(m.id), value: null });
      removedRules.push(mcpOrigin(m.id));
      if (removed?.oauthClientSecretId)
        secrets.push({ credentialId: removed.oauthClientSecretId, value: null });
      continue;
    }
    const prev = idx >= 0 ? next.mcpServers[idx] : undefined;
    const entry: StoredMcpServer = {
      id: m.id,
      url: m.url,
      enabled: m.enabled,
      // null clears the list (every tool again); absent keeps the stored one.
      ...(m.allowedTools === null
        ? {}
        : m.allowedTools
          ? { allowedTools: m.allowedTools }
          : prev?.allowedTools
            ? { allowedTools: prev.allowedTools }
            : {}),
      ...(m.label !== undefined ? { label: m.label } : prev?.label ? { label: prev.label } : {}),
      ...(m.isolation !== undefined
        ? { isolation: m.isolation }
        : prev?.isolation
          ? { isolation: prev.isolation }
          : {}),
      ...(prev?.credentialId ? { credentialId: prev.credentialId } : {}),
      ...(m.oauthClientId === null
        ? {}
        : m.oauthClientId
          ? { oauthClientId: m.oauthClientId }
          : prev?.oauthClientId
            ? { oauthClientId: prev.oauthClientId }
            : {}),
      ...(prev?.oauthClientSecretId ? { oauthClientSecretId: prev.oauthClientSecretId } : {}),
    };
    // The token and the "always allow" were given for one URL: moving the server drops both.
    if (prev && prev.url !== entry.url) {
      removedRules.push(mcpOrigin(m.id));
      if (prev.credentialId && m.token === undefined) {
        secrets.push({ credentialId: mcpCredentialId(m.id), value: null });
        delete entry.credentialId;
      }
    }
    if (m.oauthClientSecret !== undefined) {
      const secret = m.oauthClientSecret.trim();
      secrets.push({ credentialId: mcpOAuthClientCredentialId(m.id), value: secret || null });
      if (secret) entry.oauthClientSecretId = mcpOAuthClientCredentialId(m.id);
      else delete entry.oauthClientSecretId;
    }
    if (m.token !== undefined) {
      const token = m.token.trim();
      secrets.push({ credentialId: mcpCredentialId(m.id), value: token || null });
      if (token) entry.credentialId = mcpCredentialId(m.id);
      else delete entry.credentialId;
    }
    if (idx >= 0) next.mcpServers[idx] = entry;
    else next.mcpServers.push(entry);
  }
  if (patch.defaultModel !== undefined) next.defaultModel = patch.defaultModel;
  if (patch.taskModel !== undefined) next.taskModel = patch.taskModel;
  if (patch.tokenBudget !== undefined) next.tokenBudget = patch.tokenBudget;
  if (patch.approvalMode !== undefined) next.approvalMode = patch.approvalMode;
  if (patch.locale !== undefined) next.locale = patch.locale;
  if (patch.mcpBridge) next.mcpBridge = { ...bridgeSettings(next), ...patch.mcpBridge };
  if (patch.privateSites !== undefined) {
    // Normalized (https://a.example/x → https://a.example); what is not a web origin is kept
    // as given so validateSettings names it.
    const list = patch.privateSites.map((o) => normalizeOrigin(o) ?? o);
    if (list.length) next.privateSites = [...new Set(list)].sort();
    else delete next.privateSites;
  }
  return { next, secrets, removedRules };
}

/** Check references a patch may leave dangling; returns a message for `invalid_command`. */
export function validateSettings(s: SettingsRecord): string | null {
  const ids = new Set(s.providers.map((p) => p.id));
  if (s.defaultModel && !ids.has(s.defaultModel.providerId))
    return `defaultModel refers to unknown provider "${s.defaultModel.providerId}"`;
  if (s.taskModel && !ids.has(s.taskModel.providerId))
    return `taskModel refers to unknown provider "${s.taskModel.providerId}"`;
  const notSite = (s.privateSites ?? []).find((o) => !/^https?:\/\//.test(o));
  if (notSite !== undefined) return `privateSites: "${notSite}" is not a web site origin`;
  return null;
}

export function publicSettings(
  s: SettingsRecord,
  rules: SiteRuleRecord[],
  skills: SkillRecord[] = [],
): PublicSettings {
  return {
    providers: s.providers.map((p) => ({
      id: p.id,
      kind: p.kind,
      ...(p.baseURL ? { baseURL: p.baseURL } : {}),
      ...(p.label ? { label: p.label } : {}),
      hasApiKey: Boolean(p.credentialId),
      ...(p.models ? { models: p.models } : {}),
    })),
    defaultModel: s.defaultModel,
    taskModel: s.taskModel,
    tokenBudget: s.tokenBudget,
    approvalMode: s.approvalMode,
    locale: s.locale,
    mcpServers: s.mcpServers.map((m) => ({
      id: m.id,
      url: m.url,
      enabled: m.enabled,
      hasToken: Boolean(m.credentialId),
      ...(m.allowedTools ? { allowedTools: m.allowedTools } : {}),
      ...(m.label ? { label: m.label } : {}),
      ...(m.isolation ? { isolation: m.isolation } : {}),
      ...(m.oauthClientId ? { oauthClientId: m.oauthClientId } : {}),
      ...(m.oauthClientSecretId ? { hasOAuthClientSecret: true } : {}),
    })),
    siteRules: rules
      .filter((r) => r.rule !== 'ask' || r.pageToolsRead)
      .map((r) => ({
        origin: r.origin,
        rule: r.rule,
        updatedAt: r.updatedAt,
        ...(r.pageToolsRead ? { pageToolsRead: true } : {}),
      }))
      .sort((a, b) => a.origin.localeCompare(b.origin)),
    mcpBridge: bridgeSettings(s),
    skills: skills.map((k) => ({
      name: k.name,
      description: k.description,
      updatedAt: k.updatedAt,
    })),
    siteSecrets: (s.siteSecrets ?? [])
      .map((x) => ({
        origin: x.origin,
        name: x.name,
        kind: x.kind,
        placeholder: placeholderOf(x),
        updatedAt: x.updatedAt,
      }))
      .sort((a, b) => a.placeholder.localeCompare(b.placeholder)),
    ...(s.privateSites?.length ? { privateSites: [...s.privateSites] } : {}),
  };
}

/** The bridge's settings with their defaults (docs/mcp-server.md): off until the user turns it on. */
export function bridgeSettings(s: Pick<SettingsRecord, 'mcpBridge'>): StoredBridgeSettings {
  return s.mcpBridge ?? { enabled: false, port: DEFAULT_BRIDGE_PORT, pairings: [] };
}

export async function readPublicSettings(ctx: {
  store: Store;
  live?: { mcp: Record<string, NonNullable<PublicSettings['mcpServers'][number]['status']>> };
}): Promise<PublicSettings> {
  const pub = publicSettings(
    await ctx.store.settings.get(),
    await ctx.store.siteRules.list(),
    await ctx.store.skills.list(),
  );
  const live = ctx.live?.mcp ?? {};
  pub.mcpServers = pub.mcpServers.map((m) => (live[m.id] ? { ...m, status: live[m.id] } : m));
  return pub;
}
