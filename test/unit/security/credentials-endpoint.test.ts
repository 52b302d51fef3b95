/**
 * Credentials and permissions die with their endpoint (issue 13): a provider's key must not be
 * sent to a base URL it was not given for, an MCP token must not follow its server to a new URL,
 * and removing an MCP server removes its "always allow" rule.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../engine/harness';

describe('credentials and rules follow their endpoint', () => {
  it('a provider base URL (or kind) change clears its stored key; a key sent with it is kept', async () => {
    const rig = await makeRig();
    await rig.client.ack({
      type: 'settings.update',
      patch: {
        providers: [
          {
            id: 'p7',
            kind: 'openai',
            baseURL: 'https://api.example/v1',
            apiKey: 'sk-KEEP-for-this-url-1',
          },
        ],
      },
    });
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'p7', kind: 'openai', label: 'renamed' }] },
    });
    expect(await rig.store.credentials.getSecret('provider:p7')).toBe('sk-KEEP-for-this-url-1');
    const moved = await rig.client.ack<{
      settings: { providers: { id: string; hasApiKey: boolean }[] };
    }>({
      type: 'settings.update',
      patch: { providers: [{ id: 'p7', kind: 'openai', baseURL: 'https://evil.example/v1' }] },
    });
    expect(moved.settings.providers.find((p) => p.id === 'p7')!.hasApiKey).toBe(false);
    expect(await rig.store.credentials.getSecret('provider:p7')).toBeNull();
    await rig.client.ack({
      type: 'settings.update',
      patch: {
        providers: [
          {
            id: 'p7',
            kind: 'openai',
            baseURL: 'https://other.example/v1',
            apiKey: 'sk-new-for-new-url-2',
          },
        ],
      },
    });
    expect(await rig.store.credentials.getSecret('provider:p7')).toBe('sk-new-for-new-url-2');
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'p7', kind: 'anthropic', baseURL: 'https://other.example/v1' }] },
    });
    expect(await rig.store.credentials.getSecret('provider:p7')).toBeNull();
  });

  it('an MCP URL change clears its token and its allow rule; removing the server removes its rule', async () => {
    const rig = await makeRig();
    const server = { id: 'docs', url: 'https://mcp.example/mcp', enabled: false };
    await rig.client.ack({
      type: 'settings.update',
      patch: { mcpServers: [{ ...server, token: 'tok-SECRET-123456' }] },
    });
    await rig.client.ack({ type: 'siteRules.set', origin: 'mcp:docs', rule: 'allow' });
    expect((await rig.store.siteRules.get('mcp:docs'))?.rule).toBe('allow');
    await rig.client.ack({
      type: 'settings.update',
      patch: { mcpServers: [{ ...server, label: 'Docs' }] },
    });
    expect(await rig.store.credentials.getSecret('mcp:docs')).toBe('tok-SECRET-123456');
    expect((await rig.store.siteRules.get('mcp:docs'))?.rule).toBe('allow');
    await rig.client.ack({
      type: 'settings.update',
      patch: { mcpServers: [{ ...server, url: 'https://attacker.example/mcp' }] },
    });
    expect(await rig.store.credentials.getSecret('mcp:docs')).toBeNull();
    expect(await rig.store.siteRules.get('mcp:docs')).toBeUndefined();

    await rig.client.ack({ type: 'siteRules.set', origin: 'mcp:docs', rule: 'allow' });
    const removed = await rig.client.ack<{ settings: { siteRules: { origin: string }[] } }>({
      type: 'settings.update',
      patch: { mcpServers: [{ id: 'docs', remove: true }] },
    });
    expect(await rig.store.siteRules.get('mcp:docs')).toBeUndefined();
    expect(removed.settings.siteRules.map((r) => r.origin)).not.toContain('mcp:docs');
  });
});
