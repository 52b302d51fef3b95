import { describe, expect, it } from 'vitest';
import { makeRig } from '../engine/harness';

describe('secrets never leave the credentials store', () => {
  it('thread exports are scanned: stored keys and key-shaped strings are redacted', async () => {
    const rig = await makeRig({
      script: [
        { text: 'I saw your key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA in the page.' },
      ],
    });
    await rig.client.ack({
      type: 'settings.update',
      patch: { providers: [{ id: 'p1', kind: 'openai', apiKey: 'my-own-proxy-secret-123456' }] },
    });
    const { threadId, runId } = await rig.submit(
      'my key is my-own-proxy-secret-123456, remember it',
    );
    await rig.client.turnComplete(runId);
    const exported = await rig.client.ack<{ redactedSecrets: number; nodes: unknown[] }>({
      type: 'thread.export',
      threadId,
    });
    const text = JSON.stringify(exported);
    expect(text).not.toContain('my-own-proxy-secret-123456');
    expect(text).not.toContain('sk-ant-api03-AAAA');
    expect(text).toContain('[redacted secret]');
    // The message, the title made from its first line, and the key-shaped text in the answer.
    expect(exported.redactedSecrets).toBe(3);
    expect(exported.nodes.length).toBeGreaterThan(0);
  });

  it('an OAuth credential stored as one JSON record: each token in it is redacted from exports', async () => {
    // The record is one credential value; what leaks is one field of it (a page or a tool result
    // echoing the bearer token), never the whole JSON. Fails if only the whole value is matched.
    const record = {
      url: 'http://127.0.0.1:9/mcp',
      client: { client_id: 'keel-client-id', client_secret: 'oauth-client-secret-77777777' },
      tokens: {
        access_token: 'oauth-access-token-AAAAAAAAAAAA',
        refresh_token: 'oauth-refresh-token-BBBBBBBBBBBB',
        token_type: 'Bearer',
      },
      codeVerifier: 'pkce-verifier-CCCCCCCCCCCCCCCC',
    };
    const rig = await makeRig({
      script: [{ text: 'The server said: Authorization: Bearer oauth-access-token-AAAAAAAAAAAA' }],
    });
    await rig.store.credentials.setSecret('mcp-oauth:srv', JSON.stringify(record), Date.now());
    const { threadId, runId } = await rig.submit(
      'refresh with oauth-refresh-token-BBBBBBBBBBBB and pkce-verifier-CCCCCCCCCCCCCCCC for keel-client-id',
    );
    await rig.client.turnComplete(runId);
    const exported = await rig.client.ack<{ redactedSecrets: number }>({
      type: 'thread.export',
      threadId,
    });
    const text = JSON.stringify(exported);
    for (const secret of [
      record.tokens.access_token,
      record.tokens.refresh_token,
      record.codeVerifier,
    ])
      expect(text).not.toContain(secret);
    // Names are not secrets: the client id and the token type stay readable.
    expect(text).toContain('keel-client-id');
    expect(exported.redactedSecrets).toBeGreaterThanOrEqual(3);
  });

  it('no event, settings record or receipt ever holds an API key', async () => {
    const rig = await makeRig({ script: [{ text: 'x' }] });
    await rig.client.ack({
      type: 'settings.update',
      patch: {
        providers: [{ id: 'a', kind: 'anthropic', apiKey: 'sk-ant-secret-value-000000000000' }],
        mcpServers: [
          {
            id: 'srv',
            url: 'http://127.0.0.1:9/mcp',
            enabled: false,
            token: 'mcp-token-secret-999',
          },
        ],
      },
    });
    await rig.client.ack({ type: 'initialize' });
    const all =
      JSON.stringify(rig.client.events) +
      JSON.stringify(await rig.store.db.settings.toArray()) +
      JSON.stringify(await rig.store.db.receipts.toArray());
    expect(all).not.toContain('sk-ant-secret-value');
    expect(all).not.toContain('mcp-token-secret');
    const raw = await rig.store.db.credentials.toArray();
    expect(
      JSON.stringify(raw.map((c) => new TextDecoder().decode(new Uint8Array(c.ciphertext)))),
    ).not.toContain('sk-ant-secret-value');
    expect(rig.client.of('settings.updated').at(-1)!.settings.mcpServers[0]).toMatchObject({
      id: 'srv',
      hasToken: true,
    });
  });
});
