import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogOf } from '../../../src/tools/registry';
import type { ToolUpdate } from '../../../src/tools/types';
import { EverythingServer } from '../../fixtures/mcp/everything-server';
import { call, ctx, harness, mcpNames, textOf, tool, until, type Harness } from './helpers';

/** Against the real reference server, started by this file and stopped at its end. */

let server: EverythingServer;
let h: Harness;

beforeAll(async () => {
  server = await EverythingServer.start();
  h = harness();
  await h.manager.sync([{ id: 'everything', url: server.url, enabled: true, label: 'Everything' }]);
}, 30_000);

afterAll(async () => {
  await h?.manager.close();
  await server?.kill('SIGTERM');
});

describe('server-everything: listing', () => {
  it('registers every tool as mcp__<server>__<tool> with the server schema and an MCP binding', () => {
    const names = mcpNames(h.registry);
    for (const n of [
      'echo',
      'get-sum',
      'get-tiny-image',
      'trigger-long-running-operation',
      'trigger-elicitation-request',
    ]) {
      expect(names).toContain(`mcp__everything__${n}`);
    }
    // Task-only tools cannot run without the experimental tasks API: not offered.
    expect(names).not.toContain('mcp__everything__simulate-research-query');

    const echo = h.registry.get('mcp__everything__echo')!;
    expect(echo.descriptor.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(echo.descriptor).toMatchObject({
      level: 'mcp',
      effects: 'read',
      recovery: 'retry-safe',
      trusted: false,
      provenance: 'mcp',
      binding: { kind: 'mcp', serverId: 'everything', endpoint: server.url, authIdentity: 'none' },
    });
    expect(echo.descriptor.description).toMatch(
      /^\[MCP server "everything"\] Echoes back the input string/,
    );
    expect(echo.descriptor.label).toBe('Echo Tool · Everything');
    // No readOnlyHint → a write (never retried after a crash).
    expect(
      h.registry.get('mcp__everything__trigger-elicitation-request')!.descriptor,
    ).toMatchObject({ effects: 'write', recovery: 'never-retry' });
  });

  it('reports status for the settings UI', () => {
    const [s] = h.manager.status();
    expect(s).toMatchObject({
      id: 'everything',
      state: 'connected',
      isolation: 'shared',
      sessions: 1,
    });
    expect(s.toolCount).toBe(mcpNames(h.registry).length);
    expect(s.serverToolCount).toBeGreaterThan(s.toolCount - 1);
    expect(s.server).toMatch(/everything/);
  });

  it('resolves the target to the server (the Gatekeeper asks per server)', async () => {
    await expect(
      tool(h.registry, 'mcp__everything__echo').resolveTarget!({}, ctx()),
    ).resolves.toEqual({ serverId: 'everything' });
  });
});

describe('server-everything: calls', () => {
  it('echo and get-sum through AgentTool.execute', async () => {
    expect(textOf(await call(h.registry, 'mcp__everything__echo', { message: 'hello keel' }))).toBe(
      'Echo: hello keel',
    );
    const sum = await call(h.registry, 'mcp__everything__get-sum', { a: 2, b: 40 });
    expect(textOf(sum)).toBe('The sum of 2 and 40 is 42.');
    expect(sum.isError).toBeUndefined();
    expect(sum.details).toMatchObject({ serverId: 'everything', serverTool: 'get-sum' });
  });

  it('rejects arguments that do not match the server schema before sending them', async () => {
    await expect(call(h.registry, 'mcp__everything__get-sum', { a: 'two', b: 1 })).rejects.toThrow(
      /Invalid arguments for get-sum: a: .*number/,
    );
    await expect(call(h.registry, 'mcp__everything__echo', {})).rejects.toThrow(/message/);
  });

  it('streams progress of a long-running operation to onUpdate', async () => {
    const updates: ToolUpdate[] = [];
    const result = await call(
      h.registry,
      'mcp__everything__trigger-long-running-operation',
      { duration: 1, steps: 4 },
      ctx(),
      { updates },
    );
    expect(textOf(result)).toMatch(/Long running operation completed/);
    expect(updates.map((u) => u.progressText)).toEqual([
      'Progress 1/4 (25%)',
      'Progress 2/4 (50%)',
      'Progress 3/4 (75%)',
      'Progress 4/4 (100%)',
    ]);
  });

  it('shows an image placeholder to a model without vision, and the image to one with vision', async () => {
    const blind = await call(
      h.registry,
      'mcp__everything__get-tiny-image',
      {},
      ctx({ model: { vision: false } }),
    );
    expect(blind.content.every((b) => b.type === 'text')).toBe(true);
    expect(textOf(blind)).toMatch(
      /\[image: image\/png, \d+ bytes — not shown: this model cannot see images\]/,
    );
    expect(blind.details).toMatchObject({ omitted: [{ type: 'image', mimeType: 'image/png' }] });

    const seeing = await call(
      h.registry,
      'mcp__everything__get-tiny-image',
      {},
      ctx({ model: { vision: true } }),
    );
    const image = seeing.content.find((b) => b.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(image && 'dataBase64' in image && image.dataBase64.startsWith('iVBORw0KGgo')).toBe(true);
  });

  it('summarizes embedded resources and resource links as text', async () => {
    const res = await call(h.registry, 'mcp__everything__get-resource-reference', {
      resourceType: 'Text',
      resourceId: 1,
    });
    expect(textOf(res)).toMatch(/\[resource <demo:\/\/resource\/dynamic\/text\/1>/);
    const links = await call(h.registry, 'mcp__everything__get-resource-links', { count: 2 });
    expect(textOf(links)).toMatch(/\[resource link: .*<demo:\/\/resource\//);
    // An enum the server's schema does not allow is caught here, with the allowed values.
    await expect(
      call(h.registry, 'mcp__everything__get-resource-reference', {
        resourceType: 'text',
        resourceId: 1,
      }),
    ).rejects.toThrow(/resourceType: .*"Text","Blob"/);
  });

  it('keeps structured content for the UI', async () => {
    const res = await call(h.registry, 'mcp__everything__get-structured-content', {
      location: 'Chicago',
    });
    expect(res.details).toMatchObject({ structuredContent: { temperature: expect.any(Number) } });
  });

  it('aborts a running call through the signal', async () => {
    const abort = new AbortController();
    const running = call(
      h.registry,
      'mcp__everything__trigger-long-running-operation',
      { duration: 5, steps: 5 },
      ctx(),
      { signal: abort.signal },
    );
    setTimeout(() => abort.abort(new Error('user interrupted')), 300);
    const started = Date.now();
    await expect(running).rejects.toThrow('user interrupted');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('server-everything: elicitation', () => {
  it('asks the user through ctx.requestInteraction and returns the answer to the server', async () => {
    const asked: { kind: string; payload: unknown }[] = [];
    const c = ctx({
      requestInteraction: async (kind, payload) => {
        asked.push({ kind, payload });
        return {
          action: 'accept',
          content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com' },
        };
      },
    });
    const result = await call(h.registry, 'mcp__everything__trigger-elicitation-request', {}, c);
    expect(asked).toHaveLength(1);
    expect(asked[0].kind).toBe('elicitation');
    expect(asked[0].payload).toMatchObject({
      serverId: 'everything',
      tool: 'mcp__everything__trigger-elicitation-request',
      serverTool: 'trigger-elicitation-request',
      message: 'Please provide inputs for the following fields:',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const out = textOf(result);
    expect(out).toMatch(/User provided the requested information/);
    expect(out).toMatch(/Name: Ada Lovelace/);
    // Defaults of fields the user left out are filled in (SEP-1034).
    expect(out).toMatch(/"integer": 42/);
  });

  it('passes a decline through, and declines when nobody can ask the user', async () => {
    const declined = await call(
      h.registry,
      'mcp__everything__trigger-elicitation-request',
      {},
      ctx({ requestInteraction: async () => ({ action: 'decline' }) }),
    );
    expect(textOf(declined)).toMatch(/declined/i);
    const noUi = await call(h.registry, 'mcp__everything__trigger-elicitation-request', {}, ctx());
    expect(textOf(noUi)).toMatch(/declined/i);
  });

  it('treats an interrupted question as a cancel', async () => {
    const res = await call(
      h.registry,
      'mcp__everything__trigger-elicitation-request',
      {},
      ctx({ requestInteraction: async () => Promise.reject(new Error('interrupted')) }),
    );
    expect(textOf(res)).toMatch(/cancel/i);
  });
});

describe('server-everything: settings', () => {
  it('filters with allowedTools and refreshes on demand', async () => {
    const before = await catalogOf(h.registry.list());
    await h.manager.sync([
      {
        id: 'everything',
        url: server.url,
        enabled: true,
        label: 'Everything',
        allowedTools: ['echo', 'mcp__everything__get-sum'],
      },
    ]);
    expect(mcpNames(h.registry)).toEqual(['mcp__everything__echo', 'mcp__everything__get-sum']);
    expect(h.manager.status()[0]).toMatchObject({ toolCount: 2, state: 'connected' });

    const gen = h.registry.generation;
    await h.manager.refresh('everything');
    expect(h.registry.generation).toBe(gen); // unchanged list: nothing re-registered

    await h.manager.sync([
      { id: 'everything', url: server.url, enabled: true, label: 'Everything' },
    ]);
    const after = await catalogOf(h.registry.list());
    expect(after.map((e) => [e.name, e.digest])).toEqual(before.map((e) => [e.name, e.digest]));
  });

  it('disables and re-enables a server', async () => {
    await h.manager.sync([{ id: 'everything', url: server.url, enabled: false }]);
    expect(mcpNames(h.registry)).toEqual([]);
    expect(h.manager.status()[0]).toMatchObject({ state: 'disabled', toolCount: 0, sessions: 0 });
    await h.manager.sync([
      { id: 'everything', url: server.url, enabled: true, label: 'Everything' },
    ]);
    expect(mcpNames(h.registry).length).toBeGreaterThan(5);
  });

  it('keeps one session per thread with isolation per_thread, closed with closeThread', async () => {
    await h.manager.sync([
      {
        id: 'everything',
        url: server.url,
        enabled: true,
        label: 'Everything',
        isolation: 'per_thread',
      },
    ]);
    expect(h.manager.status()[0]).toMatchObject({
      state: 'connected',
      isolation: 'per_thread',
      sessions: 0,
    });
    await call(h.registry, 'mcp__everything__echo', { message: 'a' }, ctx({ threadId: 'A' }));
    await call(h.registry, 'mcp__everything__echo', { message: 'b' }, ctx({ threadId: 'B' }));
    await call(h.registry, 'mcp__everything__echo', { message: 'a2' }, ctx({ threadId: 'A' }));
    expect(h.manager.status()[0].sessions).toBe(2);
    await h.manager.closeThread('A');
    expect(h.manager.status()[0].sessions).toBe(1);
    await h.manager.sync([
      { id: 'everything', url: server.url, enabled: true, label: 'Everything' },
    ]);
  });
});

describe('server-everything: restarts', () => {
  it('notices a dead server without a call, retries with backoff, and reconnects when it is back', async () => {
    expect(textOf(await call(h.registry, 'mcp__everything__echo', { message: 'before' }))).toBe(
      'Echo: before',
    );
    await server.kill('SIGKILL');
    // The SSE stream drops, the SDK's reconnection attempts fail, the session is declared lost.
    await until(() => h.manager.status()[0].state === 'error', 15_000, 'error state');
    const down = h.manager.status()[0];
    expect(down.message).toMatch(/could not be reached/);
    expect(down.nextRetryAt).toBeGreaterThan(0);
    expect(mcpNames(h.registry)).toContain('mcp__everything__echo'); // tools stay while reconnecting
    await expect(
      call(h.registry, 'mcp__everything__echo', { message: 'while down' }),
    ).rejects.toThrow(/unavailable: the server could not be reached/);

    await server.launch();
    await until(() => h.manager.status()[0].state === 'connected', 15_000, 'connected state');
    expect(textOf(await call(h.registry, 'mcp__everything__echo', { message: 'after' }))).toBe(
      'Echo: after',
    );
  }, 40_000);

  it('retries a read-only call once when the restarted server no longer knows the session', async () => {
    // A quick restart: the old session id now gets "400 No valid session ID" from the new process.
    // Under load the restart can be slower than the client noticing its stream broke ('MCP session
    // lost'): the call then goes out on a new session and there is nothing to retry. That run
    // does not test the retry, so the restart is done again (at most three times).
    let retried = false;
    for (let attempt = 0; attempt < 3 && !retried; attempt++) {
      await until(() => h.manager.status()[0].state === 'connected', 10_000, 'connected');
      await call(h.registry, 'mcp__everything__echo', { message: 'warm' });
      const from = h.logs.length;
      await server.kill('SIGKILL');
      await server.launch();
      const lostFirst = h.logs.slice(from).some((l) => l.message === 'MCP session lost');
      expect(textOf(await call(h.registry, 'mcp__everything__get-sum', { a: 1, b: 1 }))).toBe(
        'The sum of 1 and 1 is 2.',
      );
      retried = h.logs
        .slice(from)
        .some((l) => l.message === 'sending a call again on a new session');
      if (!retried)
        expect(lostFirst, 'no retry, and the session was not lost before the call').toBe(true);
    }
    expect(retried).toBe(true);
  }, 60_000);

  it('re-runs a read-only call whose connection died mid-call, on a new session', async () => {
    await until(() => h.manager.status()[0].state === 'connected', 10_000, 'connected');
    const updates: ToolUpdate[] = [];
    const running = call(
      h.registry,
      'mcp__everything__trigger-long-running-operation',
      { duration: 2, steps: 2 },
      ctx(),
      { updates },
    );
    await until(() => updates.length > 0, 10_000, 'first progress');
    await server.kill('SIGKILL');
    await server.launch();
    expect(textOf(await running)).toMatch(/Long running operation completed/);
  }, 40_000);

  it('fails a write whose connection died mid-call, saying its outcome is unknown', async () => {
    await until(() => h.manager.status()[0].state === 'connected', 10_000, 'connected');
    let asked = false;
    const c = ctx({
      requestInteraction: () => {
        asked = true;
        return new Promise(() => {}); // the user never answers
      },
    });
    const running = call(h.registry, 'mcp__everything__trigger-elicitation-request', {}, c);
    await until(() => asked, 10_000, 'the question');
    await server.kill('SIGKILL');
    await expect(running).rejects.toThrow(
      /failed during "trigger-elicitation-request" .* unknown whether the call took effect/,
    );
    await server.launch();
    await until(() => h.manager.status()[0].state === 'connected', 15_000, 'connected state');
  }, 40_000);
});
