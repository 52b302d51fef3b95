import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'playwright-core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  EngineClient,
  launchExtension,
  restartWorker,
  runSettles,
  startModelServer,
} from './harness';
import type { LaunchedExtension, ModelServer, ScriptStep } from './harness';
import type { EventOf, Item } from '../../src/protocol';
import type { EverythingServer } from '../fixtures/mcp/everything-server';
import {
  isTitleRequest,
  lastToolMessage,
  listServerTools,
  offeredTools,
  startEverything,
  toolMessages,
} from './mcp/helpers';

/**
 * Issue 7 (MCP) in real Chromium: the built extension's service worker talks to the real
 * reference server (@modelcontextprotocol/server-everything, started here with `node` and a clean
 * environment, killed in afterAll) while a scripted model drives the calls. Everything goes
 * through the engine protocol from the panel page.
 *
 * The tests share one browser, one MCP server and one model endpoint and run in order: the first
 * configures the server (with a bearer token, which server-everything ignores: the last test checks
 * it never leaks), the second records "always allow" for it (`mcp:everything`), and the later ones
 * rely on that rule (no approval). 1–6 are issue 7's list; 7–9 add Keel restarts and an
 * interrupt around MCP calls, 10 the settings that narrow or disable a server.
 */

const TOKEN = 'mcp-secret-123';
const SERVER_ID = 'everything';
const MODEL = 'gpt-4o-mini'; // vision
const TEXT_MODEL = 'keel-text-only'; // declared without vision in the provider's model overrides
const PNG_BASE64_PREFIX = 'iVBORw0KGgo';
const mcpTool = (name: string) => `mcp__${SERVER_ID}__${name}`;

describe('MCP servers through the built extension (server-everything)', () => {
  let ext: LaunchedExtension | undefined;
  let model: ModelServer;
  let mcp: EverythingServer | undefined;
  let client: EngineClient;
  const workerLog: string[] = [];

  beforeAll(async () => {
    mcp = await startEverything();
    // Title requests are answered separately; every other request takes the next scripted step.
    model = await startModelServer({
      respond: (r) => (isTitleRequest(r) ? { text: 'MCP thread' } : undefined),
    });
    ext = await launchExtension();
    // The worker's console (every worker: the harness restarts it), to check that no log line
    // carries the token.
    const listen = (w: Worker) => w.on('console', (m) => workerLog.push(m.text()));
    ext.context.serviceWorkers().forEach(listen);
    ext.context.on('serviceworker', listen);
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
    const provider = {
      ...model.provider('openai', 'scripted'),
      models: [{ id: TEXT_MODEL, vision: false }],
    };
    await client.sendOk({
      type: 'settings.update',
      patch: { providers: [provider], defaultModel: { providerId: provider.id, model: MODEL } },
    });
  });

  afterAll(async () => {
    await ext?.close();
    await mcp?.kill('SIGTERM');
    await model?.close();
  });

  const mainRequests = () => model.requests.filter((r) => !isTitleRequest(r));

  async function newThread(): Promise<string> {
    return (await client.sendOk<{ threadId: string }>({ type: 'thread.create' })).threadId;
  }

  /** Script the model's replies for one turn, submit it, and return its ids and its requests. */
  async function submit(
    threadId: string,
    text: string,
    steps: ScriptStep[],
    overrides?: { model: string },
  ) {
    const before = mainRequests().length;
    model.push(...steps);
    const from = client.mark();
    const { runId } = await client.sendOk<{ runId: string; turnId: string }>({
      type: 'turn.submit',
      threadId,
      input: { text },
      ...(overrides ? { overrides } : {}),
    });
    return {
      runId,
      from,
      /** Waits for the end of the turn; returns the end event and the model requests it made. */
      done: async (timeoutMs = 30_000) => {
        const end = await client.waitForEvent(
          'turn.complete',
          (e) => e.runId === runId,
          timeoutMs,
          from,
        );
        return { end, requests: mainRequests().slice(before) };
      },
    };
  }

  /** The tool_call items this run started (from `item.start`), in order. */
  function toolCallsOf(runFrom: number, threadId: string): Extract<Item, { kind: 'tool_call' }>[] {
    return client
      .eventsOf('item.start', runFrom)
      .filter((e) => e.threadId === threadId && e.item.kind === 'tool_call')
      .map((e) => e.item as Extract<Item, { kind: 'tool_call' }>);
  }

  function toolResultsOf(
    runFrom: number,
    threadId: string,
  ): Extract<Item, { kind: 'tool_result' }>[] {
    return client
      .eventsOf('item.complete', runFrom)
      .filter((e) => e.threadId === threadId && e.item.kind === 'tool_result')
      .map((e) => e.item as Extract<Item, { kind: 'tool_result' }>);
  }

  let probeThread: string | undefined;
  /**
   * The tools offered to the model once `ready(names)` holds: plain text turns (in a thread of
   * their own) until it does, or until `timeoutMs`. MCP settings apply asynchronously in the
   * worker after `settings.updated`, and nothing in the protocol says when they took effect.
   */
  async function probeOffered(
    ready: (names: string[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<ReturnType<typeof offeredTools>> {
    probeThread ??= await newThread();
    const end = Date.now() + timeoutMs;
    for (;;) {
      const turn = await submit(probeThread, 'Which tools do you have?', [{ text: 'Several.' }]);
      const { end: complete, requests } = await turn.done();
      expect(complete.stopReason).toBe('end');
      const offered = offeredTools(requests[0]);
      if (ready([...offered.keys()]) || Date.now() > end) return offered;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('1. a configured server is listed and its tools are offered to the model with the server schema', async () => {
    const { settings } = await client.sendOk<{ settings: { mcpServers: unknown[] } }>({
      type: 'settings.update',
      patch: { mcpServers: [{ id: SERVER_ID, url: mcp!.url, enabled: true, token: TOKEN }] },
    });
    expect(settings.mcpServers).toEqual([
      { id: SERVER_ID, url: mcp!.url, enabled: true, hasToken: true },
    ]);

    // The worker connects and lists tools after `settings.updated`; the protocol has no MCP status
    // yet (PublicMcpServer.status is never filled in), so probe with plain turns until the model
    // is offered the tools.
    const offered = await probeOffered((names) => names.includes(mcpTool('echo')));
    expect(offered.has(mcpTool('echo'))).toBe(true);

    const serverTools = new Map(
      (await listServerTools(mcp!.url)).map((t): [string, Tool] => [t.name, t]),
    );
    for (const name of [
      'echo',
      'get-sum',
      'get-tiny-image',
      'trigger-long-running-operation',
      'trigger-elicitation-request',
    ]) {
      const fn = offered.get(mcpTool(name));
      expect(fn, name).toBeDefined();
      expect(fn!.description).toMatch(/^\[MCP server "everything"\] /);
      // The server's own input schema, as is (our plain client lists it without the elicitation
      // capability, so it cannot see the conditional elicitation tool).
      if (serverTools.has(name))
        expect(fn!.parameters, name).toEqual(serverTools.get(name)!.inputSchema);
    }
    expect(offered.get(mcpTool('echo'))!.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(offered.get(mcpTool('get-sum'))!.parameters).toMatchObject({
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    // Task-only tools cannot run without the MCP tasks API: not offered.
    expect(offered.has(mcpTool('simulate-research-query'))).toBe(false);
  });

  it('2. echo and get-sum: the Gatekeeper asks once per server; "always allow" covers the next call', async () => {
    const threadId = await newThread();
    const turn = await submit(threadId, 'Echo, then add 2 and 40.', [
      {
        text: 'Echoing first.',
        toolCalls: [{ name: mcpTool('echo'), args: { message: 'hello keel' } }],
      },
      { toolCalls: [{ name: mcpTool('get-sum'), args: { a: 2, b: 40 } }] },
      { text: 'The answer is 42.' },
    ]);
    const ask = await client.waitForEvent(
      'approval.request',
      (e) => e.runId === turn.runId,
      20_000,
      turn.from,
    );
    expect(ask).toMatchObject({
      tool: { name: mcpTool('echo'), level: 'mcp' },
      params: { message: 'hello keel' },
      target: { serverId: SERVER_ID },
    });
    expect(ask.options).toEqual(
      expect.arrayContaining(['allow_once', 'allow_site', 'deny', 'deny_stop']),
    );
    await client.sendOk({
      type: 'approval.response',
      approvalId: ask.approvalId,
      decision: 'allow_site',
    });

    const { end, requests } = await turn.done();
    expect(end.stopReason).toBe('end');
    // One question for the whole server: get-sum ran under the new rule without asking.
    expect(
      client.eventsOf('approval.request', turn.from).filter((e) => e.runId === turn.runId),
    ).toHaveLength(1);
    const rules = client.eventsOf('settings.updated', turn.from).at(-1)?.settings.siteRules ?? [];
    expect(rules).toContainEqual(
      expect.objectContaining({ origin: `mcp:${SERVER_ID}`, rule: 'allow' }),
    );

    expect(requests).toHaveLength(3);
    // MCP output reaches the model as untrusted data.
    expect(lastToolMessage(requests[1])).toMatch(
      /<untrusted_data[^>]*>\s*Echo: hello keel\s*<\/untrusted_data_[0-9a-f]{12}>/,
    );
    expect(lastToolMessage(requests[2])).toContain('The sum of 2 and 40 is 42.');
    const calls = toolCallsOf(turn.from, threadId);
    expect(calls.map((c) => [c.name, c.label])).toEqual([
      [mcpTool('echo'), 'Echo Tool · everything'],
      [mcpTool('get-sum'), 'Get Sum Tool · everything'],
    ]);
    expect(toolResultsOf(turn.from, threadId).map((r) => [r.ok, r.details])).toEqual([
      [true, { serverId: SERVER_ID, serverTool: 'echo' }],
      [true, expect.objectContaining({ serverId: SERVER_ID, serverTool: 'get-sum' })],
    ]);
  });

  it('3. a long-running operation streams its progress to the UI as item.delta toolProgress', async () => {
    const threadId = await newThread();
    const turn = await submit(threadId, 'Run the long operation.', [
      {
        toolCalls: [
          { name: mcpTool('trigger-long-running-operation'), args: { duration: 2, steps: 4 } },
        ],
      },
      { text: 'It finished.' },
    ]);
    const { end, requests } = await turn.done();
    expect(end.stopReason).toBe('end');
    expect(
      client.eventsOf('approval.request', turn.from).filter((e) => e.runId === turn.runId),
    ).toHaveLength(0);

    const [call] = toolCallsOf(turn.from, threadId);
    const progress = client
      .eventsOf('item.delta', turn.from)
      .filter((e) => e.itemId === call.id && e.delta.toolProgress !== undefined)
      .map((e) => e.delta.toolProgress);
    expect(progress).toEqual([
      'Progress 1/4 (25%)',
      'Progress 2/4 (50%)',
      'Progress 3/4 (75%)',
      'Progress 4/4 (100%)',
    ]);
    // Progress arrived while the call ran, before its result.
    const lastProgress = client.events.findLastIndex(
      (e) => e.type === 'item.delta' && e.itemId === call.id,
    );
    const result = client.events.findIndex(
      (e, i) =>
        i >= turn.from &&
        e.type === 'item.complete' &&
        e.item.kind === 'tool_result' &&
        e.threadId === threadId,
    );
    expect(lastProgress).toBeLessThan(result);
    expect(lastToolMessage(requests[1])).toContain(
      'Long running operation completed. Duration: 2 seconds, Steps: 4.',
    );
  });

  it('4. an image result: a model without vision gets a placeholder, a model with vision the image', async () => {
    const threadId = await newThread();
    const blind = await submit(
      threadId,
      'Show me the tiny image.',
      [
        { toolCalls: [{ name: mcpTool('get-tiny-image'), args: {} }] },
        { text: 'I cannot see it.' },
      ],
      { model: TEXT_MODEL },
    );
    const { end, requests } = await blind.done();
    expect(end.stopReason).toBe('end');
    expect(requests[0].body.model).toBe(TEXT_MODEL);
    const seen = lastToolMessage(requests[1]);
    expect(seen).toMatch(
      /\[image: image\/png, \d+ bytes — not shown: this model cannot see images\]/,
    );
    expect(requests[1].raw).not.toContain(PNG_BASE64_PREFIX);
    expect(requests[1].raw).not.toContain('image_url');
    // The result the UI gets (and the thread stores) carries no image data either.
    const [result] = toolResultsOf(blind.from, threadId);
    expect(result.details).toMatchObject({
      serverTool: 'get-tiny-image',
      omitted: [{ type: 'image', mimeType: 'image/png' }],
    });
    expect(JSON.stringify(client.events.slice(blind.from))).not.toContain(PNG_BASE64_PREFIX);

    // The same tool for a model with vision: the image itself reaches the model.
    const sighted = await submit(threadId, 'And now with your eyes?', [
      { toolCalls: [{ name: mcpTool('get-tiny-image'), args: {} }] },
      { text: 'A tiny image.' },
    ]);
    const after = await sighted.done();
    expect(after.end.stopReason).toBe('end');
    expect(after.requests[1].raw).toContain(`data:image/png;base64,${PNG_BASE64_PREFIX}`);
  });

  it('5. an elicitation is answered by the user and the tool result reaches the model', async () => {
    const threadId = await newThread();
    const turn = await submit(threadId, 'Fill in my profile.', [
      { toolCalls: [{ name: mcpTool('trigger-elicitation-request'), args: {} }] },
      { text: 'Thanks, Ada.' },
    ]);
    const ask = await client.waitForEvent(
      'interaction.request',
      (e) => e.runId === turn.runId,
      20_000,
      turn.from,
    );
    expect(ask.kind).toBe('elicitation');
    expect(ask.payload).toMatchObject({
      serverId: SERVER_ID,
      tool: mcpTool('trigger-elicitation-request'),
      serverTool: 'trigger-elicitation-request',
      message: 'Please provide inputs for the following fields:',
      requestedSchema: {
        type: 'object',
        required: ['name'],
        properties: expect.objectContaining({ name: expect.objectContaining({ type: 'string' }) }),
      },
    });
    // The tool card says what the call waits for.
    const [call] = toolCallsOf(turn.from, threadId);
    await client.waitFor(
      (e) =>
        e.type === 'item.delta' &&
        e.itemId === call.id &&
        /^Waiting for your answer/.test(e.delta.toolProgress ?? ''),
      5_000,
      turn.from,
    );

    // A form without the required field is refused before it reaches the server.
    const bad = await client.send({
      type: 'interaction.response',
      interactionId: ask.interactionId,
      response: { action: 'accept', content: { check: true } },
    });
    expect(bad).toMatchObject({ type: 'command.reject', code: 'invalid_command' });

    await client.sendOk({
      type: 'interaction.response',
      interactionId: ask.interactionId,
      response: {
        action: 'accept',
        content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com' },
      },
    });
    await client.waitForEvent(
      'interaction.resolved',
      (e) => e.interactionId === ask.interactionId,
      5_000,
      turn.from,
    );
    const { end, requests } = await turn.done();
    expect(end.stopReason).toBe('end');
    const seen = lastToolMessage(requests[1]);
    expect(seen).toContain('User provided the requested information');
    expect(seen).toContain('- Name: Ada Lovelace');
    expect(seen).toContain('- Agreed to terms: true');
    expect(seen).toContain('- Email: ada@example.com');
    // Fields the user left out were sent with the schema's defaults.
    expect(seen).toContain('- Favorite Integer: 42');
  });

  it('6. the server restarts mid-thread: the next call reconnects; a call while it is down fails cleanly', async () => {
    const threadId = await newThread();
    const echo = (message: string): ScriptStep => ({
      toolCalls: [{ name: mcpTool('echo'), args: { message } }],
    });
    const first = await submit(threadId, 'Echo before.', [echo('before restart'), { text: 'ok' }]);
    const r1 = await first.done();
    expect(r1.end.stopReason).toBe('end');
    expect(lastToolMessage(r1.requests[1])).toContain('Echo: before restart');

    // Killed (SIGKILL: no goodbye) and started again on the same port at once: the new process
    // knows none of the old sessions. The worker usually still holds the old one, so this call
    // gets 400 "No valid session ID" and, being read-only, is re-sent on a new session; if the
    // worker noticed the dead stream first, it opens the new session before the call.
    await mcp!.kill();
    await mcp!.launch();
    const restarted = await submit(threadId, 'Echo after the restart.', [
      echo('after restart'),
      { text: 'ok' },
    ]);
    const r2 = await restarted.done();
    expect(r2.end.stopReason).toBe('end');
    expect(lastToolMessage(r2.requests[1])).toContain('Echo: after restart');
    expect(toolResultsOf(restarted.from, threadId).map((r) => r.ok)).toEqual([true]);

    // Down: the call fails with a message the model can act on, and the thread goes on.
    await mcp!.kill();
    const down = await submit(threadId, 'Echo while it is down.', [
      echo('while down'),
      { text: 'It is down.' },
    ]);
    const r3 = await down.done();
    expect(r3.end.stopReason).toBe('end');
    expect(lastToolMessage(r3.requests[1])).toMatch(
      /MCP server "everything" is unavailable: the server could not be reached.*Keel keeps retrying in the background/,
    );
    expect(toolResultsOf(down.from, threadId).map((r) => r.ok)).toEqual([false]);

    // Back: the next calls in the same thread connect at once (not at the next backoff retry).
    await mcp!.launch();
    const back = await submit(threadId, 'Echo and add when it is back.', [
      echo('back again'),
      { toolCalls: [{ name: mcpTool('get-sum'), args: { a: 1, b: 2 } }] },
      { text: 'Back.' },
    ]);
    const r4 = await back.done();
    expect(r4.end.stopReason).toBe('end');
    expect(lastToolMessage(r4.requests[1])).toContain('Echo: back again');
    expect(lastToolMessage(r4.requests[2])).toContain('The sum of 1 and 2 is 3.');
    expect(toolResultsOf(back.from, threadId).map((r) => r.ok)).toEqual([true, true]);
    // One thread throughout: the earlier results are still in the model's context.
    expect(toolMessages(r4.requests[2]).join('\n')).toContain('Echo: before restart');
  });

  it('7. the worker stops during a read-only MCP call: after the restart the call runs again on a new connection', async () => {
    const threadId = await newThread();
    const before = mainRequests().length;
    const turn = await submit(threadId, 'Run the long operation, again.', [
      {
        toolCalls: [
          { name: mcpTool('trigger-long-running-operation'), args: { duration: 3, steps: 6 } },
        ],
      },
      { text: 'It finished after all.' },
    ]);
    const first = await client.waitFor(
      (e) =>
        e.type === 'item.delta' && e.threadId === threadId && e.delta.toolProgress !== undefined,
      10_000,
      turn.from,
    );
    const [call] = toolCallsOf(turn.from, threadId);
    expect(first).toMatchObject({ itemId: call.id, delta: { toolProgress: 'Progress 1/6 (17%)' } });
    const restartedAt = client.mark();
    await restartWorker(ext!, client); // the call's HTTP request dies with the worker
    const snap = await runSettles(client, threadId, ['completed', 'failed', 'paused_uncertain']);
    expect(snap.run).toMatchObject({ runId: turn.runId, state: 'completed' });
    // The new worker registered the server's tools before recovery (same digests: the run was not
    // refused) and ran the call again from the start: its progress starts over on the same card.
    const progress = client
      .eventsOf('item.delta', restartedAt)
      .filter((e) => e.itemId === call.id)
      .map((e) => e.delta.toolProgress);
    expect(progress[0]).toBe('Progress 1/6 (17%)');
    const results = snap.path.filter((i) => i.kind === 'tool_result');
    expect(results).toHaveLength(1);
    const requests = mainRequests().slice(before);
    expect(requests).toHaveLength(2);
    expect(lastToolMessage(requests[1])).toContain(
      'Long running operation completed. Duration: 3 seconds, Steps: 6.',
    );
  });

  // The server's question lived on the HTTP request of the call, which died with the worker: the
  // call cannot continue, so the engine gives the answer to the model with a note (docs/mcp.md).
  it('8. the worker stops while a server question is open: the answer reaches the model with a note', async () => {
    const threadId = await newThread();
    const before = mainRequests().length;
    const turn = await submit(threadId, 'Fill in my profile.', [
      { toolCalls: [{ name: mcpTool('trigger-elicitation-request'), args: {} }] },
      { text: 'Noted.' },
    ]);
    const ask = await client.waitForEvent(
      'interaction.request',
      (e) => e.runId === turn.runId,
      20_000,
      turn.from,
    );
    await restartWorker(ext!, client);
    const snap = await runSettles(client, threadId, [
      'waiting_interaction',
      'completed',
      'failed',
      'paused_uncertain',
    ]);
    expect(snap.run).toMatchObject({
      state: 'waiting_interaction',
      pendingInteraction: { interactionId: ask.interactionId, kind: 'elicitation' },
    });
    await client.sendOk({
      type: 'interaction.response',
      interactionId: ask.interactionId,
      response: { action: 'accept', content: { name: 'Grace Hopper' } },
    });
    const done = await runSettles(client, threadId, ['completed', 'failed', 'paused_uncertain']);
    expect(done.run).toMatchObject({ runId: turn.runId, state: 'completed' });
    const requests = mainRequests().slice(before);
    expect(requests).toHaveLength(2);
    const seen = lastToolMessage(requests[1]);
    expect(seen).toContain('Grace Hopper');
    expect(seen).toContain('Keel restarted meanwhile');
  });

  it('9. interrupting the turn while a server question is open withdraws it and ends the call', async () => {
    const threadId = await newThread();
    const turn = await submit(threadId, 'Fill in my profile.', [
      { toolCalls: [{ name: mcpTool('trigger-elicitation-request'), args: {} }] },
    ]);
    const ask = await client.waitForEvent(
      'interaction.request',
      (e) => e.runId === turn.runId,
      20_000,
      turn.from,
    );
    const { wasActive } = await client.sendOk<{ wasActive: boolean }>({
      type: 'turn.interrupt',
      threadId,
    });
    expect(wasActive).toBe(true);
    const { end } = await turn.done(10_000);
    expect(end.stopReason).toBe('interrupted');
    const late = await client.send({
      type: 'interaction.response',
      interactionId: ask.interactionId,
      response: { action: 'accept', content: { name: 'Too Late' } },
    });
    expect(late).toMatchObject({ type: 'command.reject', code: 'already_resolved' });
    const [result] = toolResultsOf(turn.from, threadId);
    expect(result).toMatchObject({ ok: false, outcome: 'interrupted' });
  });

  it('10. allowedTools narrows what is offered and a disabled server offers nothing (the token is kept)', async () => {
    const mcpNames = (names: string[]) => names.filter((n) => n.startsWith('mcp__')).sort();
    const { settings } = await client.sendOk<{ settings: { mcpServers: unknown[] } }>({
      type: 'settings.update',
      patch: {
        mcpServers: [
          {
            id: SERVER_ID,
            url: mcp!.url,
            enabled: true,
            allowedTools: ['echo', mcpTool('get-sum')],
          },
        ],
      },
    });
    expect(settings.mcpServers).toEqual([
      {
        id: SERVER_ID,
        url: mcp!.url,
        enabled: true,
        hasToken: true,
        allowedTools: ['echo', mcpTool('get-sum')],
      },
    ]);
    const narrowed = await probeOffered((names) => mcpNames(names).length === 2);
    expect(mcpNames([...narrowed.keys()])).toEqual([mcpTool('echo'), mcpTool('get-sum')]);

    await client.sendOk({
      type: 'settings.update',
      patch: { mcpServers: [{ id: SERVER_ID, url: mcp!.url, enabled: false }] },
    });
    const off = await probeOffered((names) => mcpNames(names).length === 0);
    expect(mcpNames([...off.keys()])).toEqual([]);
  });

  it('never puts the MCP token in an event or a model request; every event matches the protocol', () => {
    expect(client.events.length).toBeGreaterThan(50);
    expect(JSON.stringify(client.events)).not.toContain(TOKEN);
    for (const r of model.requests) expect(r.raw).not.toContain(TOKEN);
    expect(workerLog.join('\n')).not.toContain(TOKEN);
    const last = client.eventsOf('settings.updated').at(-1) as EventOf<'settings.updated'>;
    expect(last.settings.mcpServers).toEqual([
      expect.objectContaining({ id: SERVER_ID, hasToken: true }),
    ]);
    expect(client.invalidEvents).toEqual([]);
    expect(model.failures).toEqual([]);
    expect(model.remaining).toBe(0);
  });
});

/**
 * Issue 29 (Keel as an MCP server) in real Chromium: the official MCP client starts the bridge
 * (bridge/keel-mcp.ts) as an agent would, the built extension's worker connects to it, the test
 * pairs it through the panel's protocol, and the agent snapshots a loopback page and clicks a
 * button that asks; the test allows it in the panel protocol and the page's own state shows the
 * click landed.
 */
describe('Keel as an MCP server (bridge + built extension)', () => {
  let ext: LaunchedExtension | undefined;
  let client: EngineClient;
  let agent: Client | undefined;
  let site: Server;
  let page: string;
  let port = 0;
  let bridgeEnv: Record<string, string> = {};
  let tab: import('playwright-core').Page;
  let tabId = 0;
  let ref = '';
  const root = resolve(__dirname, '../..');
  const textOf = (r: object) =>
    ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');
  const startAgent = async (name: string) => {
    const c = new Client({ name, version: '1.0' });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          join(root, 'node_modules/tsx/dist/cli.mjs'),
          join(root, 'bridge/keel-mcp.ts'),
          '--port',
          String(port),
          '--extension-id',
          ext!.extensionId,
        ],
        env: bridgeEnv,
        stderr: 'ignore',
      }),
    );
    return c;
  };
  const clicks = () => tab.evaluate(() => document.body.dataset.clicks ?? '0');

  beforeAll(async () => {
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><title>Bridge fixture</title><h1>Order</h1><button id="b" onclick="document.body.dataset.clicks=String(Number(document.body.dataset.clicks||0)+1)">Place order</button>',
      );
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    page = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    ext = await launchExtension();
    client = await EngineClient.connect(await ext.openPanel());
    await client.sendOk({ type: 'initialize', subscribe: ['*'] });
  });

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await ext?.close();
    await new Promise((r) => site.close(r));
  });

  it('pairs in the panel, lists tools, snapshots a page, and a click that asks lands once allowed', async () => {
    port = 20_000 + Math.floor(Math.random() * 20_000);
    bridgeEnv = {
      PATH: process.env.PATH ?? '',
      KEEL_BRIDGE_CONFIG: join(await mkdtemp(join(tmpdir(), 'keel-e2e-bridge-')), 'p.json'),
    };
    agent = await startAgent('E2E Agent');
    await client.sendOk({
      type: 'settings.update',
      patch: { mcpBridge: { enabled: true, port } },
    });
    const asked = await client.waitForEvent(
      'settings.updated',
      (e) => !!e.settings.mcpBridge?.pairings.some((p) => p.status === 'pending'),
      20_000,
    );
    const pairing = asked.settings.mcpBridge!.pairings.find((p) => p.status === 'pending')!;
    expect(pairing.clientName).toBe('E2E Agent');
    await client.sendOk({
      type: 'bridge.pairingRespond',
      pairingId: pairing.pairingId,
      decision: 'allow',
    });
    let tools: Tool[] = [];
    for (let i = 0; i < 100 && !tools.length; i++) {
      tools = (await agent.listTools()).tools;
      if (!tools.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['browser_snapshot', 'browser_click']),
    );

    tab = await ext!.context.newPage();
    await tab.goto(page);
    // A web page can open a WebSocket to a loopback port too: the bridge refuses it before any
    // frame (its Origin is the page's, not Keel's), and the paired agent is not disturbed.
    const fromPage = await tab.evaluate(
      (p) =>
        new Promise<string>((done) => {
          const ws = new WebSocket(`ws://127.0.0.1:${p}`);
          ws.onopen = () => done('open');
          ws.onmessage = () => done('message');
          ws.onerror = () => done('refused');
          setTimeout(() => done('timeout'), 5000);
        }),
      port,
    );
    expect(fromPage).toBe('refused');
    const tabs = await agent.callTool({ name: 'browser_tabs', arguments: {} });
    const tabsText = (tabs.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');
    tabId = Number(/tab (\d+)[^\n]*"Bridge fixture"/.exec(tabsText)?.[1]);
    expect(Number.isInteger(tabId)).toBe(true);
    const snap = await agent.callTool({ name: 'browser_snapshot', arguments: { tabId } });
    expect([snap.isError, JSON.stringify(snap.content).slice(0, 600)]).toEqual([
      false,
      expect.stringContaining('Place order'),
    ]);
    ref =
      /button "Place order" \[ref=(\w+)\]/.exec(
        (snap.content as { text?: string }[]).map((c) => c.text ?? '').join('\n'),
      )?.[1] ?? '';
    expect(ref).toBeTruthy();

    const progress: string[] = [];
    const clicking = agent.callTool(
      { name: 'browser_click', arguments: { tabId, ref } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.message ?? ''),
        resetTimeoutOnProgress: true,
      },
    );
    const ask = await client.waitForEvent(
      'approval.request',
      (e) => e.tool.name === 'browser_click',
      20_000,
    );
    expect(await clicks()).toBe('0');
    await client.sendOk({
      type: 'approval.response',
      approvalId: ask.approvalId,
      decision: 'allow_once',
    });
    const clicked = await clicking;
    expect(clicked.isError).toBe(false);
    expect(progress.some((p) => /approval/.test(p))).toBe(true);
    expect(await clicks()).toBe('1');
  });

  it('a worker restart while a click waits: shown again, allowed, lands; a deny errors; a second client waits; revoked is refused', async () => {
    // The worker stops while the call waits for approval; the bridge keeps the call and sends it
    // again when the new worker has proven itself; the approval is shown again.
    const clicking = agent!.callTool(
      { name: 'browser_click', arguments: { tabId, ref } },
      undefined,
      {
        resetTimeoutOnProgress: true,
        timeout: 60_000,
      },
    );
    const ask = await client.waitForEvent('approval.request', () => true, 20_000, client.mark());
    await restartWorker(ext!, client);
    const snap = await runSettles(client, ask.threadId, ['waiting_approval']);
    const again = snap.run!.pendingApproval!;
    await client.sendOk({
      type: 'approval.response',
      approvalId: again.approvalId,
      decision: 'allow_once',
    });
    const landed = await clicking;
    expect([landed.isError, textOf(landed)]).toEqual([false, expect.any(String)]);
    expect(await clicks()).toBe('2');

    // A deny is an MCP tool error that says why; the page is untouched.
    const from = client.mark();
    const denying = agent!.callTool({ name: 'browser_click', arguments: { tabId, ref } });
    const ask2 = await client.waitForEvent('approval.request', () => true, 20_000, from);
    await client.sendOk({
      type: 'approval.response',
      approvalId: ask2.approvalId,
      decision: 'deny',
    });
    const denied = await denying;
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/denied/i);
    expect(await clicks()).toBe('2');

    // A second client (its own bridge, the next port) is not served until the user allows it.
    const second = await startAgent('Second Agent');
    try {
      await client.waitForEvent(
        'settings.updated',
        (e) => !!e.settings.mcpBridge?.pairings.some((p) => p.clientName === 'Second Agent'),
        20_000,
      );
      const r = await second.callTool({ name: 'browser_click', arguments: { tabId, ref } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Waiting for the user to allow "Second Agent"/);
      expect((await second.listTools()).tools).toEqual([]);
    } finally {
      await second.close();
    }

    // Revoked: refused with a clear error, nothing runs.
    const pairing = (
      client.eventsOf('settings.updated').at(-1) as EventOf<'settings.updated'>
    ).settings.mcpBridge!.pairings.find((p) => p.clientName === 'E2E Agent')!;
    await client.sendOk({ type: 'bridge.pairingRevoke', pairingId: pairing.pairingId });
    let refused = '';
    for (let i = 0; i < 50 && !/revoked/.test(refused); i++) {
      refused = textOf(await agent!.callTool({ name: 'browser_snapshot', arguments: { tabId } }));
      if (!/revoked/.test(refused)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toMatch(/revoked/);
    expect(await clicks()).toBe('2');
  });
});
