import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { PublicSettings, type SettingsPatch } from '../../../src/protocol';
import {
  applySettingsPatch,
  publicSettings,
  validateSettings,
} from '../../../src/engine/env/settings-service';
import {
  defaultSettings,
  type SettingsRecord,
  type SiteRuleRecord,
} from '../../../src/store/store';
import { makeRig } from '../engine/harness';

/** Settings as stored after a user configured two providers (p1 with a key) and one MCP server. */
function configured(): SettingsRecord {
  return {
    ...defaultSettings(),
    providers: [
      { id: 'p1', kind: 'anthropic', label: 'Work', credentialId: 'provider:p1' },
      { id: 'p2', kind: 'openai', baseURL: 'http://localhost:11434/v1', label: 'Ollama' },
    ],
    defaultModel: { providerId: 'p1', model: 'claude' },
    taskModel: { providerId: 'p2', model: 'llama' },
    mcpServers: [
      {
        id: 'docs',
        url: 'https://mcp.example/mcp',
        enabled: true,
        allowedTools: ['search'],
        credentialId: 'mcp:docs',
      },
    ],
  };
}

const apply = (patch: SettingsPatch, current = configured()) => applySettingsPatch(current, patch);

describe('applySettingsPatch', () => {
  it('merges providers by id: a known id updates in place, a new id is appended', () => {
    const { next, secrets } = apply({
      providers: [
        { id: 'p2', kind: 'openai', label: 'Local' },
        { id: 'p3', kind: 'openai-responses' },
      ],
    });
    expect(next.providers.map((p) => p.id)).toEqual(['p1', 'p2', 'p3']);
    expect(next.providers[0]).toEqual(configured().providers[0]);
    expect(next.providers[1]).toEqual({
      id: 'p2',
      kind: 'openai',
      baseURL: 'http://localhost:11434/v1',
      label: 'Local',
    });
    expect(next.providers[2]).toEqual({ id: 'p3', kind: 'openai-responses' });
    expect(secrets).toEqual([]);
  });

  it('an omitted apiKey keeps the stored secret (no secret write, the reference stays)', () => {
    const { next, secrets } = apply({
      providers: [{ id: 'p1', kind: 'anthropic', label: 'Renamed' }],
    });
    expect(next.providers[0]).toEqual({
      id: 'p1',
      kind: 'anthropic',
      label: 'Renamed',
      credentialId: 'provider:p1',
    });
    expect(secrets).toEqual([]);
  });

  it('a new apiKey is written (trimmed) behind the stable credential reference provider:<id>', () => {
    const { next, secrets } = apply({
      providers: [{ id: 'p2', kind: 'openai', apiKey: '  sk-new  ' }],
    });
    expect(next.providers[1].credentialId).toBe('provider:p2');
    expect(secrets).toEqual([{ credentialId: 'provider:p2', value: 'sk-new' }]);
    // Rotation: same reference, new value.
    const rotated = apply({ providers: [{ id: 'p1', kind: 'anthropic', apiKey: 'sk-rotated' }] });
    expect(rotated.next.providers[0].credentialId).toBe('provider:p1');
    expect(rotated.secrets).toEqual([{ credentialId: 'provider:p1', value: 'sk-rotated' }]);
  });

  it('an empty (or blank) apiKey deletes the secret and its reference', () => {
    for (const apiKey of ['', '   ']) {
      const { next, secrets } = apply({ providers: [{ id: 'p1', kind: 'anthropic', apiKey }] });
      expect(next.providers[0].credentialId).toBeUndefined();
      expect(secrets).toEqual([{ credentialId: 'provider:p1', value: null }]);
    }
  });

  it('{ id, remove: true } deletes the provider, its secret, and model choices that pointed at it', () => {
    const { next, secrets } = apply({ providers: [{ id: 'p1', remove: true }] });
    expect(next.providers.map((p) => p.id)).toEqual(['p2']);
    expect(secrets).toEqual([{ credentialId: 'provider:p1', value: null }]);
    expect(next.defaultModel).toBeNull();
    expect(next.taskModel).toEqual({ providerId: 'p2', model: 'llama' });
    // Removing an unknown id is harmless.
    expect(apply({ providers: [{ id: 'ghost', remove: true }] }).next.providers).toHaveLength(2);
  });

  it('keeps baseURL when omitted for the same kind, drops it when the kind changes', () => {
    expect(apply({ providers: [{ id: 'p2', kind: 'openai' }] }).next.providers[1].baseURL).toBe(
      'http://localhost:11434/v1',
    );
    expect(
      apply({ providers: [{ id: 'p2', kind: 'anthropic' }] }).next.providers[1].baseURL,
    ).toBeUndefined();
  });

  it('merges MCP servers by id with the same secret rules for token', () => {
    const kept = apply({
      mcpServers: [{ id: 'docs', url: 'https://mcp.example/mcp', enabled: false }],
    });
    expect(kept.next.mcpServers).toEqual([
      {
        id: 'docs',
        url: 'https://mcp.example/mcp',
        enabled: false,
        allowedTools: ['search'],
        credentialId: 'mcp:docs',
      },
    ]);
    expect(kept.secrets).toEqual([]);
    // The token was given for one URL: a new URL does not inherit it (issue 13).
    const moved = apply({
      mcpServers: [{ id: 'docs', url: 'https://mcp.example/v2', enabled: false }],
    });
    expect(moved.next.mcpServers).toEqual([
      { id: 'docs', url: 'https://mcp.example/v2', enabled: false, allowedTools: ['search'] },
    ]);
    expect(moved.secrets).toEqual([{ credentialId: 'mcp:docs', value: null }]);
    expect(moved.removedRules).toEqual(['mcp:docs']);
    const cleared = apply({
      mcpServers: [{ id: 'docs', url: 'https://mcp.example/mcp', enabled: true, token: '' }],
    });
    expect(cleared.next.mcpServers[0].credentialId).toBeUndefined();
    expect(cleared.secrets).toEqual([{ credentialId: 'mcp:docs', value: null }]);
    const added = apply({
      mcpServers: [{ id: 'new', url: 'https://n.example/mcp', enabled: true, token: 'tok' }],
    });
    expect(added.next.mcpServers.map((m) => m.id)).toEqual(['docs', 'new']);
    expect(added.secrets).toEqual([{ credentialId: 'mcp:new', value: 'tok' }]);
    const removed = apply({ mcpServers: [{ id: 'docs', remove: true }] });
    expect(removed.next.mcpServers).toEqual([]);
    expect(removed.secrets).toEqual([{ credentialId: 'mcp:docs', value: null }]);
  });

  it('an OAuth pre-registered client: its id is kept like a label, its secret like a token; null clears the id', () => {
    const server = { id: 'docs', url: 'https://mcp.example/mcp', enabled: true };
    const set = apply({
      mcpServers: [{ ...server, oauthClientId: 'keel-app', oauthClientSecret: ' s3cret ' }],
    });
    expect(set.next.mcpServers[0]).toMatchObject({
      oauthClientId: 'keel-app',
      oauthClientSecretId: 'mcp-oauth-client:docs',
    });
    expect(set.secrets).toEqual([{ credentialId: 'mcp-oauth-client:docs', value: 's3cret' }]);
    const kept = apply({ mcpServers: [server] }, set.next);
    expect(kept.next.mcpServers[0]).toMatchObject({
      oauthClientId: 'keel-app',
      oauthClientSecretId: 'mcp-oauth-client:docs',
    });
    expect(kept.secrets).toEqual([]);
    expect(publicSettings(kept.next, []).mcpServers[0]).toMatchObject({
      oauthClientId: 'keel-app',
      hasOAuthClientSecret: true,
    });
    expect(JSON.stringify(publicSettings(kept.next, []))).not.toContain('s3cret');
    const cleared = apply(
      { mcpServers: [{ ...server, oauthClientId: null, oauthClientSecret: '' }] },
      set.next,
    );
    expect(cleared.next.mcpServers[0]).not.toHaveProperty('oauthClientId');
    expect(cleared.next.mcpServers[0]).not.toHaveProperty('oauthClientSecretId');
    expect(apply({ mcpServers: [{ id: 'docs', remove: true }] }, set.next).secrets).toContainEqual({
      credentialId: 'mcp-oauth-client:docs',
      value: null,
    });
  });

  it('allowedTools: absent keeps the list, [] offers no tool, null clears it (every tool again)', () => {
    const server = { id: 'docs', url: 'https://mcp.example/mcp', enabled: true };
    expect(apply({ mcpServers: [server] }).next.mcpServers[0].allowedTools).toEqual(['search']);
    expect(
      apply({ mcpServers: [{ ...server, allowedTools: [] }] }).next.mcpServers[0].allowedTools,
    ).toEqual([]);
    const cleared = apply({ mcpServers: [{ ...server, allowedTools: null }] }).next.mcpServers[0];
    expect('allowedTools' in cleared).toBe(false);
  });

  it('sets scalar fields only when present, and null clears the nullable ones', () => {
    expect(apply({}).next).toEqual(configured());
    const { next } = apply({
      tokenBudget: 5000,
      approvalMode: 'act',
      locale: 'zh-CN',
      defaultModel: { providerId: 'p2', model: 'x' },
    });
    expect(next).toMatchObject({
      tokenBudget: 5000,
      approvalMode: 'act',
      locale: 'zh-CN',
      defaultModel: { providerId: 'p2', model: 'x' },
      taskModel: { providerId: 'p2', model: 'llama' },
    });
    const cleared = apply({ tokenBudget: null, taskModel: null, locale: null }, next);
    expect(cleared.next).toMatchObject({
      tokenBudget: null,
      taskModel: null,
      locale: null,
      approvalMode: 'act',
    });
  });

  it('never mutates the current record', () => {
    const current = configured();
    const copy = structuredClone(current);
    apply(
      {
        providers: [
          { id: 'p1', remove: true },
          { id: 'p2', kind: 'openai', apiKey: 'k' },
        ],
        approvalMode: 'act',
        mcpServers: [{ id: 'docs', remove: true }],
      },
      current,
    );
    expect(current).toEqual(copy);
  });
});

describe('validateSettings', () => {
  it('flags model choices that refer to unknown providers', () => {
    expect(validateSettings(configured())).toBeNull();
    expect(
      validateSettings({ ...configured(), defaultModel: { providerId: 'nope', model: 'm' } }),
    ).toMatch(/defaultModel.*nope/);
    expect(
      validateSettings({ ...configured(), taskModel: { providerId: 'nope', model: 'm' } }),
    ).toMatch(/taskModel.*nope/);
  });
});

describe('publicSettings', () => {
  const rules: SiteRuleRecord[] = [
    { v: 1, origin: 'https://z.example', rule: 'block', version: 1, updatedAt: 3 },
    { v: 1, origin: 'https://a.example', rule: 'allow', version: 2, updatedAt: 4 },
    { v: 1, origin: 'https://ask.example', rule: 'ask', version: 1, updatedAt: 5 },
  ];

  it('shows hasApiKey / hasToken instead of any credential reference, and lists non-default site rules sorted', () => {
    const pub = publicSettings(configured(), rules);
    expect(PublicSettings.parse(pub)).toEqual(pub);
    expect(pub.providers).toEqual([
      { id: 'p1', kind: 'anthropic', label: 'Work', hasApiKey: true },
      {
        id: 'p2',
        kind: 'openai',
        baseURL: 'http://localhost:11434/v1',
        label: 'Ollama',
        hasApiKey: false,
      },
    ]);
    expect(pub.mcpServers).toEqual([
      {
        id: 'docs',
        url: 'https://mcp.example/mcp',
        enabled: true,
        hasToken: true,
        allowedTools: ['search'],
      },
    ]);
    expect(pub.siteRules).toEqual([
      { origin: 'https://a.example', rule: 'allow', updatedAt: 4 },
      { origin: 'https://z.example', rule: 'block', updatedAt: 3 },
    ]);
    expect(JSON.stringify(pub)).not.toContain('credentialId');
  });

  it('end to end: a key set through settings.update never appears in an ack, an event or the settings record', async () => {
    const rig = await makeRig();
    const key = 'sk-SECRET-do-not-leak-42';
    const from = rig.client.events.length;
    const res = await rig.client.ack<{ settings: unknown }>({
      type: 'settings.update',
      patch: {
        providers: [
          { id: 'p1', kind: 'openai', apiKey: key },
          { id: 'p9', kind: 'anthropic', apiKey: `${key}-2` },
        ],
      },
    });
    await rig.client.waitFor((e) => e.type === 'settings.updated');
    expect(res.settings).toMatchObject({
      providers: [
        { id: 'p1', hasApiKey: true },
        { id: 'p9', hasApiKey: true },
      ],
    });
    expect(JSON.stringify(rig.client.events.slice(from))).not.toContain('SECRET');
    expect(JSON.stringify(await rig.store.settings.get())).not.toContain('SECRET');
    expect(await rig.store.credentials.getSecret('provider:p1')).toBe(key);
    // A later patch without apiKey keeps it; an empty one deletes it.
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'p1', kind: 'openai', label: 'Main' }] },
    });
    expect(await rig.store.credentials.getSecret('provider:p1')).toBe(key);
    const cleared = await rig.client.ack<{
      settings: { providers: { id: string; hasApiKey: boolean }[] };
    }>({
      type: 'settings.update',
      patch: { providers: [{ id: 'p1', kind: 'openai', apiKey: '' }] },
    });
    expect(cleared.settings.providers.find((p) => p.id === 'p1')!.hasApiKey).toBe(false);
    expect(await rig.store.credentials.getSecret('provider:p1')).toBeNull();
    expect(rig.client.events.filter((e) => e.type === 'command.reject')).toEqual([]);
  });
});
