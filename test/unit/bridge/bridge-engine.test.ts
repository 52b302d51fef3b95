/**
 * Keel as an MCP server end to end in one process: the official MCP client → the bridge (bridge/)
 * → a real loopback WebSocket → the worker's link (src/bridge-link) → the real engine, with the
 * panel played by a protocol client. Pairing through the panel, tools/list, a read, a write that
 * asks (progress while it waits, then allowed), a deny, an interrupt, revocation, a second
 * unpaired client, and a worker restart in the middle of a call.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ExtensionLink } from '../../../bridge/extension-link';
import { createBridgeServer } from '../../../bridge/mcp-server';
import { BridgeLink, type SocketLike } from '../../../src/bridge-link/bridge-link';
import { type AgentEvent, DirectTransport } from '../../../src/protocol';
import { bridgeTools, mcpToolOf } from '../../../src/tools/bridge-tools';
import { makeRig, type Rig, testTool } from '../engine/harness';

const ORIGIN = `chrome-extension://${'abcdefghijklmnop'.repeat(2)}`;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Pairings = NonNullable<
  Extract<AgentEvent, { type: 'settings.updated' }>['settings']['mcpBridge']
>['pairings'];

/** A bridge process's insides, with the official client connected to it. */
async function bridge(dir: string, name: string) {
  const link = new ExtensionLink({ ports: [0], sessionId: `mcp_${name}` });
  await link.listen();
  const server = createBridgeServer({
    link,
    pairingPath: join(dir, 'pairing.json'),
    version: '0.0.0',
    progressEveryMs: 50,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name, version: '1.0' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
  await client.connect(b);
  cleanups.push(
    () => client.close(),
    () => link.close(),
  );
  return { link, client, port: link.port!, listChanged: () => changed };
}

/** The worker's link over its own engine connection (a new one after a "restart"). */
function workerLink(rig: Rig): BridgeLink {
  const link = new BridgeLink({
    transport: new DirectTransport(rig.engine),
    openSocket: (url) =>
      new WebSocket(url, { headers: { origin: ORIGIN } }) as unknown as SocketLike,
    secretOf: (id) => rig.store.credentials.getSecret(`bridge:${id}`),
    listTools: () => bridgeTools(rig.registry).map(mcpToolOf),
    backoff: { baseMs: 20, maxMs: 100 },
  });
  link.start();
  cleanups.push(() => link.stop());
  return link;
}

async function until(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function pairings(rig: Rig): Promise<Pairings> {
  return (await rig.store.settings.get()).mcpBridge?.pairings ?? [];
}

/** The panel answers the pairing request of `name`. */
async function answerPairing(rig: Rig, name: string, decision: 'allow' | 'deny'): Promise<string> {
  await until(async () =>
    (await pairings(rig)).some((p) => p.clientName === name && p.status === 'pending'),
  );
  const p = (await pairings(rig)).find((x) => x.clientName === name)!;
  await rig.client.ack({ type: 'bridge.pairingRespond', pairingId: p.pairingId, decision });
  return p.pairingId;
}

const text = (r: object) =>
  ((r as { content?: unknown }).content as { type: string; text?: string }[])
    .map((c) => c.text ?? '')
    .join('\n');

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'keel-bridge-e-'));
  const snapshot = testTool('browser_snapshot', { effects: 'read' });
  const click = testTool('browser_click', { effects: 'write' });
  const b = await bridge(dir, 'Test Agent');
  const rig = await makeRig({
    tools: [snapshot, click, testTool('todo_like', { level: 'builtin' })],
    settings: { mcpBridge: { enabled: true, port: b.port, pairings: [] } },
  });
  cleanups.push(() => rig.engine.kill());
  workerLink(rig);
  return { dir, rig, b, snapshot, click };
}

describe('Keel as an MCP server (bridge + worker link + engine)', () => {
  it('pairs through the panel, lists the browser tools, reads, asks for a write, denies', async () => {
    const { rig, b, snapshot, click } = await setup();
    const pairingId = await answerPairing(rig, 'Test Agent', 'allow');
    await until(() => b.link.state.kind === 'ready');
    await until(() => b.listChanged() > 0);
    const tools = (await b.client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['browser_click', 'browser_snapshot']);
    expect(tools.find((t) => t.name === 'browser_click')?.inputSchema).toMatchObject({
      type: 'object',
    });

    const read = await b.client.callTool({ name: 'browser_snapshot', arguments: {} });
    expect(read.isError).toBe(false);
    expect(text(read)).toMatch(/browser_snapshot ok/);
    expect(snapshot.runs).toBe(1);

    // A write asks in the panel; the MCP call waits with progress until the user allows it.
    const progress: string[] = [];
    const calling = b.client.callTool(
      { name: 'browser_click', arguments: { value: 'Buy' } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.message ?? ''),
        resetTimeoutOnProgress: true,
      },
    );
    const ask = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    await until(() => progress.some((p) => /approval in Keel's side panel/.test(p)));
    expect(click.runs).toBe(0);
    await rig.client.ack({
      type: 'approval.response',
      approvalId: ask.approvalId,
      decision: 'allow_once',
    });
    const clicked = await calling;
    expect(clicked.isError).toBe(false);
    expect(click.runs).toBe(1);

    // A deny is an MCP tool error that says so; the tool did not run.
    const denying = b.client.callTool({ name: 'browser_click', arguments: { value: 'Again' } });
    const ask2 = (await rig.client.waitFor(
      (e) => e.type === 'approval.request' && e.approvalId !== ask.approvalId,
    )) as Extract<AgentEvent, { type: 'approval.request' }>;
    await rig.client.ack({
      type: 'approval.response',
      approvalId: ask2.approvalId,
      decision: 'deny',
    });
    const denied = await denying;
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/denied/i);
    expect(click.runs).toBe(1);

    // All of it is one thread named for the client, with every call recorded.
    const threads = await rig.store.threads.list();
    const mine = threads.filter((t) => t.title === 'Test Agent');
    expect(mine).toHaveLength(1);
    const path = await rig.store.threads.path(mine[0].threadId, mine[0].leafId);
    expect(
      path.filter((n) => n.item.kind === 'tool_call').map((n) => (n.item as { name: string }).name),
    ).toEqual(['browser_snapshot', 'browser_click', 'browser_click']);

    // Revoked: refused with a clear error, nothing served.
    await rig.client.ack({ type: 'bridge.pairingRevoke', pairingId });
    await until(() => b.link.state.kind === 'refused');
    const after = await b.client.callTool({ name: 'browser_snapshot', arguments: {} });
    expect(after.isError).toBe(true);
    expect(text(after)).toMatch(/revoked/);
    expect(snapshot.runs).toBe(1);
  });

  it('an interrupt from the panel ends the waiting call with "interrupted by the user"', async () => {
    const { rig, b, click } = await setup();
    await answerPairing(rig, 'Test Agent', 'allow');
    await until(() => b.link.state.kind === 'ready');
    const calling = b.client.callTool({ name: 'browser_click', arguments: {} });
    const ask = (await rig.client.waitFor((e) => e.type === 'approval.request')) as Extract<
      AgentEvent,
      { type: 'approval.request' }
    >;
    await rig.client.ack({ type: 'turn.interrupt', threadId: ask.threadId });
    const r = await calling;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Interrupted by the user/);
    expect(click.runs).toBe(0);
  });

  it('a second, unpaired client is refused until allowed; a denied one stays refused', async () => {
    const { dir, rig, b } = await setup();
    await answerPairing(rig, 'Test Agent', 'allow');
    await until(() => b.link.state.kind === 'ready');
    const other = await bridge(dir, 'Other Agent');
    // Its own socket (the worker tries a few ports; here it is told the other bridge's port).
    await rig.client.ack({
      type: 'settings.update',
      patch: { mcpBridge: { port: other.port } },
    });
    await until(() => other.link.state.kind === 'pairing');
    const r = await other.client.callTool({ name: 'browser_snapshot', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Waiting for the user to allow "Other Agent"/);
    await answerPairing(rig, 'Other Agent', 'deny');
    await until(() => other.link.state.kind === 'refused');
    expect(text(await other.client.callTool({ name: 'browser_snapshot', arguments: {} }))).toMatch(
      /denied/,
    );
  });

  it('a worker restart during a call: a read is run again and answers; a write says it may have run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keel-bridge-r-'));
    const never = new Promise<void>(() => undefined);
    const b = await bridge(dir, 'Test Agent');
    const rig = await makeRig({
      tools: [
        testTool('browser_snapshot', { gate: never }),
        testTool('browser_click', { effects: 'write' }),
      ],
      settings: { mcpBridge: { enabled: true, port: b.port, pairings: [] } },
    });
    cleanups.push(() => rig.engine.kill());
    await rig.client.ack({ type: 'siteRules.set', origin: 'https://shop.example', rule: 'allow' });
    const first = workerLink(rig);
    await answerPairing(rig, 'Test Agent', 'allow');
    await until(() => b.link.state.kind === 'ready');

    // A read is running when the worker dies: the new worker runs it again (retry-safe).
    const reading = b.client.callTool({ name: 'browser_snapshot', arguments: { value: 'x' } });
    await until(
      () => (rig.registry.get('browser_snapshot')!.tool as unknown as { runs: number }).runs === 1,
    );
    first.stop();
    const click2 = testTool('browser_click', { effects: 'write', gate: never });
    const rig2 = await rig.reopen({ tools: [testTool('browser_snapshot'), click2] });
    cleanups.push(() => rig2.engine.kill());
    const second = workerLink(rig2);
    const r = await reading;
    expect(r.isError).toBe(false);
    expect(text(r)).toMatch(/browser_snapshot ok: x/);

    // A write is running when the worker dies: the agent hears it may or may not have happened.
    const writing = b.client.callTool({ name: 'browser_click', arguments: { value: 'Pay' } });
    await until(() => click2.runs === 1);
    second.stop();
    const rig3 = await rig2.reopen({
      tools: [testTool('browser_snapshot'), testTool('browser_click', { effects: 'write' })],
    });
    cleanups.push(() => rig3.engine.kill());
    workerLink(rig3);
    const w = await writing;
    expect(w.isError).toBe(true);
    expect(text(w)).toMatch(/may or may not have happened/);
    const threads = await rig3.store.threads.list();
    expect(threads.filter((t) => t.title === 'Test Agent')).toHaveLength(1);
  });

  it('measures the latency the bridge adds to a call (p50 / p95, printed)', async () => {
    const { rig, b } = await setup();
    await answerPairing(rig, 'Test Agent', 'allow');
    await until(() => b.link.state.kind === 'ready');
    const N = 40;
    const pct = (xs: number[], p: number) =>
      [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
    // Keel's own call path: the same op straight to the engine, to the committed tool_result.
    const direct: number[] = [];
    let threadId: string | undefined;
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      const r = await rig.client.ack<{ threadId: string; toolCallId: string; runId: string }>({
        type: 'tool.callExternal',
        pairingId: (await pairings(rig))[0].pairingId,
        ...(threadId ? { threadId } : {}),
        name: 'browser_snapshot',
        args: {},
      });
      threadId = r.threadId;
      await rig.client.waitFor(
        (e) =>
          e.type === 'item.complete' &&
          e.item.kind === 'tool_result' &&
          e.item.toolCallId === r.toolCallId,
      );
      await rig.client.turnComplete(r.runId);
      direct.push(performance.now() - t0);
    }
    const bridged: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      await b.client.callTool({ name: 'browser_snapshot', arguments: {} });
      bridged.push(performance.now() - t0);
    }
    const f = (xs: number[]) =>
      `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms`;
    console.log(
      `[bridge latency] engine op: ${f(direct)}; through MCP + bridge + WebSocket: ${f(bridged)}`,
    );
    expect(bridged.length).toBe(N);
  });
});
