import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'playwright-core';
import {
  EngineClient,
  isTitleRequest,
  launchExtension,
  restartWorker,
  runSettles,
  startModelServer,
} from './harness';
import type { LaunchedExtension, ModelServer, ScriptStep } from './harness';
import type { Item, PublicSettings } from '../../src/protocol';
import { TestOAuthServer } from '../fixtures/mcp/oauth-server';
import { ScriptedMcpServer } from '../fixtures/mcp/scripted-server';

/**
 * Issue 16 in real Chromium: an OAuth-protected MCP server (a resource server and an
 * authorization server, both on 127.0.0.1, written in the test) signed in to through the real
 * chrome.identity.launchWebAuthFlow path. The authorization page approves at once by redirecting
 * to the extension's redirect URL (https://<id>.chromiumapp.org/), which launchWebAuthFlow
 * catches, also in headless Chromium. Then: a tool call, a worker restart (the tokens come back
 * from the credentials store), an expired token refreshed without the user, and sign-out with
 * revocation. No token may appear in events, exports or the worker's console.
 */

const SERVER_ID = 'docs';
const tool = (name: string) => `mcp__${SERVER_ID}__${name}`;

describe('MCP OAuth sign-in through the built extension', () => {
  let ext: LaunchedExtension | undefined;
  let model: ModelServer;
  let as: TestOAuthServer;
  let rs: ScriptedMcpServer;
  let client: EngineClient;
  const workerLog: string[] = [];

  beforeAll(async () => {
    as = await TestOAuthServer.start({ defaultScope: 'notes' });
    rs = await ScriptedMcpServer.start({
      auth: {
        authorizationServer: as.url,
        check: (authorization) => (as.verify(authorization) ? null : { status: 401 }),
      },
    });
    model = await startModelServer({
      respond: (r) => (isTitleRequest(r) ? { text: 'OAuth thread' } : undefined),
    });
    ext = await launchExtension();
    const listen = (w: Worker) => w.on('console', (m) => workerLog.push(m.text()));
    ext.context.serviceWorkers().forEach(listen);
    ext.context.on('serviceworker', listen);
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const provider = model.provider('openai', 'scripted');
    await client.sendOk({
      type: 'settings.update',
      patch: {
        providers: [provider],
        defaultModel: { providerId: provider.id, model: 'gpt-4o-mini' },
      },
    });
    await client.sendOk({ type: 'siteRules.set', origin: `mcp:${SERVER_ID}`, rule: 'allow' });
  });

  afterAll(async () => {
    await ext?.close();
    await rs?.stop();
    await as?.stop();
    await model?.close();
  });

  type Server = PublicSettings['mcpServers'][number];
  /** The server's status as the last `settings.updated` (after `from`) shows it, once `ok` holds. */
  async function statusWhen(
    ok: (s: Server) => boolean,
    from = 0,
    timeoutMs = 20_000,
  ): Promise<Server> {
    const ev = await client.waitForEvent(
      'settings.updated',
      (e) => e.settings.mcpServers.some((s) => s.id === SERVER_ID && ok(s)),
      timeoutMs,
      from,
    );
    return ev.settings.mcpServers.find((s) => s.id === SERVER_ID)!;
  }

  async function runTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<Extract<Item, { kind: 'tool_result' }>> {
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    const steps: ScriptStep[] = [{ toolCalls: [{ name: tool(name), args }] }, { text: 'Done.' }];
    model.push(...steps);
    const from = client.mark();
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: `Use ${name}.` },
    });
    await client.waitForEvent('turn.complete', (e) => e.runId === runId, 30_000, from);
    const result = client
      .eventsOf('item.complete', from)
      .map((e) => e.item)
      .find((i): i is Extract<Item, { kind: 'tool_result' }> => i.kind === 'tool_result');
    expect(result, 'a tool result').toBeDefined();
    return result!;
  }

  const resultText = (r: Extract<Item, { kind: 'tool_result' }>) => JSON.stringify(r.content);

  it('a server that needs OAuth shows "needs sign-in"; Connect signs in through launchWebAuthFlow', async () => {
    const from = client.mark();
    await client.sendOk({
      type: 'settings.update',
      patch: { mcpServers: [{ id: SERVER_ID, url: rs.url, enabled: true }] },
    });
    const needs = await statusWhen((s) => s.status?.state === 'needs_sign_in', from);
    expect(needs.status?.auth).toMatchObject({ signedIn: false });
    expect(as.count('/authorize')).toBe(0);

    const signIn = client.mark();
    await client.sendOk({ type: 'mcp.signIn', serverId: SERVER_ID });
    const connected = await statusWhen(
      (s) => s.status?.state === 'connected' && s.status.auth?.signedIn === true,
      signIn,
      30_000,
    );
    expect(connected.status).toMatchObject({
      toolCount: expect.any(Number),
      auth: { signedIn: true, renewable: true, scope: 'notes' },
    });
    // Dynamic registration with the extension's own redirect URL; PKCE S256 and the resource indicator.
    const authorize = as.log.find((l) => l.path === '/authorize')!.params;
    expect(authorize.redirect_uri).toBe(`https://${ext!.extensionId}.chromiumapp.org/`);
    expect(authorize).toMatchObject({
      code_challenge_method: 'S256',
      resource: rs.url,
      response_type: 'code',
    });
  }, 60_000);

  it('a tool call runs with the token, and again after a worker restart without signing in again', async () => {
    expect(resultText(await runTool('note-add', { note: 'first' }))).toContain('noted (1)');
    await restartWorker(ext!, client);
    await statusWhen((s) => s.status?.state === 'connected' && s.status.auth?.signedIn === true);
    expect(resultText(await runTool('note-add', { note: 'second' }))).toContain('noted');
    expect(as.count('/authorize')).toBe(1);
  }, 60_000);

  it('an expired access token is refreshed without the user', async () => {
    const refreshes = () =>
      as.log.filter((l) => l.path === '/token' && l.params.grant_type === 'refresh_token').length;
    const before = refreshes();
    as.expireAccessTokens();
    expect(resultText(await runTool('note-list', {}))).toContain('notes:');
    expect(refreshes()).toBe(before + 1);
    expect(as.count('/authorize')).toBe(1);
  }, 60_000);

  it('a call that needs sign-in pauses as "sign in to continue", which survives a worker restart; yes signs in', async () => {
    as.revokeAll();
    const { threadId } = await client.sendOk<{ threadId: string }>({ type: 'thread.create' });
    model.push({ toolCalls: [{ name: tool('note-list'), args: {} }] }, { text: 'Listed.' });
    const from = client.mark();
    const { runId } = await client.sendOk<{ runId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text: 'List the notes.' },
    });
    const ask = await client.waitForEvent(
      'interaction.request',
      (e) => e.runId === runId,
      30_000,
      from,
    );
    expect(ask.kind).toBe('elicitation');
    expect(ask.payload).toMatchObject({
      signIn: { serverId: SERVER_ID },
      message: expect.stringMatching(/^Sign in to docs to continue/),
    });

    await restartWorker(ext!, client);
    const snap = await runSettles(client, threadId, ['waiting_interaction']);
    expect(snap.run?.state).toBe('waiting_interaction');

    const signIn = client.mark();
    await client.sendOk({
      type: 'interaction.response',
      interactionId: ask.interactionId,
      response: { action: 'accept', content: { signIn: true } },
    });
    const end = await client.waitForEvent(
      'turn.complete',
      (e) => e.runId === runId,
      30_000,
      signIn,
    );
    expect(end.stopReason).toBe('end');
    const result = client
      .eventsOf('item.complete', signIn)
      .map((e) => e.item)
      .find((i) => i.kind === 'tool_result') as Extract<Item, { kind: 'tool_result' }>;
    expect(resultText(result)).toMatch(/needed a sign-in, so \W+note-list\W+ did not run/);
    // The user's yes opened the sign-in page in the new worker.
    await statusWhen(
      (s) => s.status?.state === 'connected' && s.status.auth?.signedIn === true,
      signIn,
      30_000,
    );
    expect(as.count('/authorize')).toBe(2);
    expect(resultText(await runTool('note-list', {}))).toContain('notes:');
  }, 90_000);

  it('sign out revokes the tokens and the server needs sign-in again; no token ever left the credentials store', async () => {
    const from = client.mark();
    await client.sendOk({ type: 'mcp.signOut', serverId: SERVER_ID });
    const out = await statusWhen(
      (s) => s.status?.state === 'needs_sign_in' && s.status.auth?.signedIn === false,
      from,
    );
    expect(out.status?.auth?.signedIn).toBe(false);
    expect(as.count('/revoke')).toBeGreaterThan(0);
    expect([...as.tokens.values()].filter((t) => !t.revoked && t.expiresAt > Date.now())).toEqual(
      [],
    );

    const threads = client.eventsOf('item.complete', 0).map((e) => e.threadId);
    const exports = [];
    for (const threadId of new Set(threads))
      exports.push(await client.sendOk({ type: 'thread.export', threadId }));
    const seen = JSON.stringify(client.events) + JSON.stringify(exports) + workerLog.join('\n');
    expect([...as.tokens.keys()].filter((t) => seen.includes(t))).toEqual([]);
  }, 60_000);
});
