import { afterEach, describe, expect, it } from 'vitest';
import { catalogOf } from '../../../src/tools/registry';
import { sha256Hex } from '../../../src/util/canonical-json';
import type { ToolUpdate } from '../../../src/tools/types';
import type { McpIsolation, McpTiming } from '../../../src/tools/mcp';
import { ScriptedMcpServer } from '../../fixtures/mcp/scripted-server';
import type { McpSavedSession, McpSessionStore, McpToolCache } from '../../../src/tools/mcp';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { call, ctx, harness, mcpNames, textOf, tool, until, type Harness } from './helpers';

/** Behaviours the reference server cannot be made to show on demand, against a scripted SDK server. */

let server: ScriptedMcpServer | undefined;
let h: Harness | undefined;

afterEach(async () => {
  await h?.manager.close();
  await server?.stop();
  h = undefined;
  server = undefined;
});

async function setup(
  opts: {
    token?: string;
    tokens?: Record<string, string>;
    timing?: Partial<McpTiming>;
    isolation?: McpIsolation;
  } = {},
) {
  server = await ScriptedMcpServer.start({ token: opts.token });
  h = harness({ tokens: opts.tokens, timing: opts.timing });
  await h.manager.sync([
    { id: 'scripted', url: server.url, enabled: true, isolation: opts.isolation },
  ]);
  return { server, h };
}

describe('listing', () => {
  it('follows tools/list pages and cleans names deterministically', async () => {
    const { h } = await setup();
    const names = mcpNames(h.registry);
    expect(names).toHaveLength(5);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp__scripted__note-add',
        'mcp__scripted__note-list',
        'mcp__scripted__ask',
        'mcp__scripted__wait',
      ]),
    );
    const dotted = names.find((n) => n.startsWith('mcp__scripted__dot_name_tool_'));
    expect(dotted).toMatch(/^mcp__scripted__dot_name_tool_[0-9a-f]{8}$/);
    expect(textOf(await call(h.registry, dotted!, {}))).toBe('dot ok');
  });

  it('refreshes the registry when the server announces tools/list_changed', async () => {
    const { server, h } = await setup();
    const before = await catalogOf(h.registry.list());
    await server.setTool({
      def: {
        name: 'fresh',
        description: 'A new tool',
        inputSchema: { type: 'object', properties: {} },
      },
      run: async () => ({ content: [{ type: 'text', text: 'fresh!' }], isError: true }),
    });
    await until(() => h.registry.get('mcp__scripted__fresh') !== undefined, 5_000, 'the new tool');
    const fresh = await call(h.registry, 'mcp__scripted__fresh', {});
    expect(fresh).toMatchObject({ isError: true, content: [{ type: 'text', text: 'fresh!' }] });

    // A changed description is a changed descriptor: its digest changes.
    await server.setTool({
      def: {
        name: 'note-list',
        description: 'List notes (v2)',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      },
      run: async () => ({ content: [{ type: 'text', text: 'v2' }] }),
    });
    await until(
      () => /v2/.test(h.registry.get('mcp__scripted__note-list')!.descriptor.description),
      5_000,
      'the new description',
    );
    const after = await catalogOf(h.registry.list());
    const digest = (c: typeof after, n: string) => c.find((e) => e.name === n)?.digest;
    expect(digest(after, 'mcp__scripted__note-list')).not.toBe(
      digest(before, 'mcp__scripted__note-list'),
    );
    expect(digest(after, 'mcp__scripted__note-add')).toBe(
      digest(before, 'mcp__scripted__note-add'),
    );

    await server.removeTool('fresh');
    await until(() => h.registry.get('mcp__scripted__fresh') === undefined, 5_000, 'removal');
  });
});

describe('authentication', () => {
  it('sends the bearer token and binds a non-secret identity', async () => {
    const { server, h } = await setup({ token: 'sekret', tokens: { scripted: 'sekret' } });
    expect(server.requests.every((r) => r.authorization === 'Bearer sekret')).toBe(true);
    const identity = `bearer:${(await sha256Hex('sekret')).slice(0, 12)}`;
    expect(h.registry.get('mcp__scripted__ask')!.descriptor.binding).toEqual({
      kind: 'mcp',
      serverId: 'scripted',
      endpoint: server.url,
      authIdentity: identity,
    });
    expect(JSON.stringify(h.manager.status())).not.toContain('sekret');
  });

  it('reports a refused token, and reconnects with a new one (new binding, new digests)', async () => {
    server = await ScriptedMcpServer.start({ token: 'right' });
    const tokens: Record<string, string> = { scripted: 'wrong' };
    h = harness({ getToken: async (id) => tokens[id] ?? null });
    await h.manager.sync([{ id: 'scripted', url: server.url, enabled: true }]);
    expect(h.manager.status()[0]).toMatchObject({ state: 'error', toolCount: 0 });
    expect(h.manager.status()[0].message).toMatch(/refused the credentials \(HTTP 401\)/);
    expect(h.manager.status()[0].nextRetryAt).toBeGreaterThan(Date.now() - 1);

    tokens.scripted = 'right';
    await h.manager.sync([{ id: 'scripted', url: server.url, enabled: true }]);
    expect(h.manager.status()[0]).toMatchObject({ state: 'connected', toolCount: 5 });
    expect(textOf(await call(h.registry, 'mcp__scripted__note-list', {}))).toBe('notes: []');
  });

  it('refuses calls from a tool object listed before the server was reconfigured', async () => {
    const { h } = await setup({ token: undefined });
    const stale = tool(h.registry, 'mcp__scripted__note-list');
    const other = await ScriptedMcpServer.start();
    try {
      await h.manager.sync([{ id: 'scripted', url: other.url, enabled: true }]);
      await expect(
        stale.execute('x', {}, new AbortController().signal, () => {}, ctx()),
      ).rejects.toThrow(/reconfigured/);
      expect(textOf(await call(h.registry, 'mcp__scripted__note-list', {}))).toBe('notes: []');
    } finally {
      await h.manager.close();
      await other.stop();
    }
  });
});

describe('sessions', () => {
  it('on 404 (session expired) sends any call again on a new session of a shared server (it did not run)', async () => {
    const { server, h } = await setup();
    await call(h.registry, 'mcp__scripted__note-add', { note: 'one' });
    server.expireSessions();
    expect(textOf(await call(h.registry, 'mcp__scripted__note-list', {}))).toBe('notes: []'); // a new session: state is gone
    expect(server.requests.some((r) => r.status === 404)).toBe(true);
    // The new session also re-lists tools (the server may have changed); let that finish.
    await until(() => h.manager.status()[0].state === 'connected', 5_000, 'connected');

    // The first write after the server forgot the session: refused with 404, so it never ran;
    // sent again once on the new session, it runs exactly once.
    server.expireSessions();
    expect(textOf(await call(h.registry, 'mcp__scripted__note-add', { note: 'two' }))).toBe(
      'noted (1)',
    );
    expect(textOf(await call(h.registry, 'mcp__scripted__note-list', {}))).toBe('notes: ["two"]');
    await until(() => h.manager.status()[0].state === 'connected', 5_000, 'connected');
  });

  it('on 404 a per-thread server retries a read but fails a write: the thread state it relied on is gone', async () => {
    const { server, h } = await setup({ isolation: 'per_thread' });
    await call(h.registry, 'mcp__scripted__note-add', { note: 'one' }, ctx({ threadId: 'A' }));
    server.expireSessions();
    await expect(
      call(h.registry, 'mcp__scripted__note-add', { note: 'two' }, ctx({ threadId: 'A' })),
    ).rejects.toThrow(/no longer knew this thread's session .* so "note-add" did not run/);
    expect(
      textOf(await call(h.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'A' }))),
    ).toBe('notes: []');
  });

  it('a per-thread session survives a worker restart: the next worker resumes it from the saved id', async () => {
    const saved = new Map<string, McpSavedSession>();
    const sessionStore: McpSessionStore = {
      load: async (k) => saved.get(k) ?? null,
      save: async (k, v) => void saved.set(k, v),
      remove: async (k) => void saved.delete(k),
    };
    const server = await ScriptedMcpServer.start();
    const first = harness({ sessionStore });
    const second = harness({ sessionStore });
    const config = [
      { id: 'scripted', url: server.url, enabled: true, isolation: 'per_thread' as const },
    ];
    try {
      await first.manager.sync(config);
      await call(
        first.registry,
        'mcp__scripted__note-add',
        { note: 'kept' },
        ctx({ threadId: 'A' }),
      );
      expect(saved.size).toBe(1);
      // The worker dies (nothing is closed); a new one starts with the same storage.
      await second.manager.sync(config);
      const initsBefore = server.requests.filter((r) => r.rpcMethod === 'initialize').length;
      expect(
        textOf(await call(second.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'A' }))),
      ).toBe('notes: ["kept"]');
      expect(server.requests.filter((r) => r.rpcMethod === 'initialize').length).toBe(initsBefore); // resumed, not re-initialized
      expect(second.logs.some((l) => l.message === 'resuming a per-thread MCP session')).toBe(true);

      // The server forgot it meanwhile: the read is sent again on a new session, which is saved.
      const old = [...saved.values()][0].sessionId;
      server.expireSessions();
      const third = harness({ sessionStore });
      await third.manager.sync(config);
      expect(
        textOf(await call(third.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'A' }))),
      ).toBe('notes: []');
      await until(
        () =>
          [...saved.values()][0]?.sessionId !== undefined &&
          [...saved.values()][0].sessionId !== old,
        5_000,
        'a new saved session',
      );
      await third.manager.closeThread('A');
      expect(saved.size).toBe(0);
      await third.manager.close();
    } finally {
      await second.manager.close();
      await first.manager.close();
      await server.stop();
    }
  });

  it('a new worker registers the tools a server had before it connects (a waiting run still finds them)', async () => {
    const cache = new Map<string, Tool[]>();
    const toolCache: McpToolCache = {
      load: async (k) => cache.get(k) ?? null,
      save: async (k, v) => void cache.set(k, v),
    };
    const server = await ScriptedMcpServer.start();
    const first = harness({ toolCache });
    const url = server.url;
    const config = [{ id: 'scripted', url, enabled: true }];
    await first.manager.sync(config);
    const names = mcpNames(first.registry);
    await first.manager.close();
    await server.stop(); // the server is gone when the next worker starts
    const second = harness({ toolCache, timing: { requestTimeoutMs: 1_000 } });
    try {
      await second.manager.sync(config);
      expect(second.manager.status()[0].state).toBe('error');
      expect(mcpNames(second.registry)).toEqual(names);
      // Another URL is another server: nothing cached for it.
      const third = harness({ toolCache, timing: { requestTimeoutMs: 1_000 } });
      await third.manager.sync([{ ...config[0], url: url.replace('/mcp', '/other') }]);
      expect(mcpNames(third.registry)).toEqual([]);
      await third.manager.close();
    } finally {
      await second.manager.close();
    }
  });

  it('keeps state per thread with isolation per_thread', async () => {
    const { server, h } = await setup({ isolation: 'per_thread' });
    expect(server.sessionCount).toBe(0); // the listing probe was closed (DELETE)
    await call(h.registry, 'mcp__scripted__note-add', { note: 'from A' }, ctx({ threadId: 'A' }));
    await call(h.registry, 'mcp__scripted__note-add', { note: 'from B' }, ctx({ threadId: 'B' }));
    expect(
      textOf(await call(h.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'A' }))),
    ).toBe('notes: ["from A"]');
    expect(
      textOf(await call(h.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'B' }))),
    ).toBe('notes: ["from B"]');
    expect(server.sessionCount).toBe(2);
    await h.manager.closeThread('A');
    await until(() => server.sessionCount === 1, 5_000, 'DELETE of thread A');
  });

  it('closes idle per-thread sessions', async () => {
    const { server, h } = await setup({
      isolation: 'per_thread',
      timing: { threadSessionIdleMs: 150 },
    });
    await call(h.registry, 'mcp__scripted__note-list', {}, ctx({ threadId: 'A' }));
    expect(h.manager.status()[0].sessions).toBe(1);
    await until(
      () => h.manager.status()[0].sessions === 0 && server.sessionCount === 0,
      5_000,
      'idle close',
    );
  });
});

describe('calls', () => {
  it('routes concurrent elicitations on one shared session to the call that asked', async () => {
    const { h } = await setup();
    const answer = (word: string, delayMs: number) =>
      ctx({
        threadId: word,
        requestInteraction: async () => {
          await new Promise((r) => setTimeout(r, delayMs));
          return { action: 'accept', content: { word } };
        },
      });
    const [a, b] = await Promise.all([
      call(h.registry, 'mcp__scripted__ask', {}, answer('alpha', 300)),
      call(h.registry, 'mcp__scripted__ask', {}, answer('beta', 50)),
    ]);
    expect(textOf(a)).toBe('answer: accept {"word":"alpha"}');
    expect(textOf(b)).toBe('answer: accept {"word":"beta"}');
  });

  it('cancels a call that shows no sign of life, unless it reports progress or waits for the user', async () => {
    // The idle limit leaves a wide margin over the progress interval (100 ms): under load a
    // progress notification can be late by a few hundred milliseconds without the call being dead.
    const { h } = await setup({ timing: { callIdleTimeoutMs: 800 } });
    await expect(call(h.registry, 'mcp__scripted__wait', { ms: 2_500 })).rejects.toThrow(
      /sent no result and no progress for "wait" within 0.8 s/,
    );
    const updates: ToolUpdate[] = [];
    expect(
      textOf(
        await call(h.registry, 'mcp__scripted__wait', { ms: 1_500, steps: 15 }, ctx(), { updates }),
      ),
    ).toBe('waited');
    expect(updates).toHaveLength(15);
    const slowUser = ctx({
      requestInteraction: async () => {
        await new Promise((r) => setTimeout(r, 1_600));
        return { action: 'accept', content: { word: 'late' } };
      },
    });
    expect(textOf(await call(h.registry, 'mcp__scripted__ask', {}, slowUser))).toBe(
      'answer: accept {"word":"late"}',
    );
  });
});

describe('configuration errors', () => {
  it('reports invalid entries and unreachable servers without throwing', async () => {
    h = harness({ timing: { requestTimeoutMs: 2_000 } });
    await h.manager.sync([
      { id: 'bad id!', url: 'http://127.0.0.1:9/mcp', enabled: true },
      { id: 'badurl', url: 'file:///etc/passwd', enabled: true },
      { id: 'down', url: 'http://127.0.0.1:9/mcp', enabled: true },
    ]);
    const byId = Object.fromEntries(h.manager.status().map((s) => [s.id, s]));
    expect(byId['bad id!']).toMatchObject({
      state: 'error',
      message: expect.stringMatching(/invalid server id/),
    });
    expect(byId.badurl).toMatchObject({ state: 'error', message: expect.stringMatching(/http/) });
    expect(byId.down).toMatchObject({
      state: 'error',
      message: expect.stringMatching(/could not be reached/),
    });
    expect(mcpNames(h.registry)).toEqual([]);
  });
});
