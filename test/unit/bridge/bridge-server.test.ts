/**
 * The bridge (bridge/) against the official MCP client over an in-memory transport, and a fake
 * extension end over a real loopback WebSocket: pairing, refusal, the Origin check, tools/list,
 * a call, a deny, progress while waiting, and a call re-sent after the worker went away.
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
import {
  type BridgeFrame,
  type ExtensionFrame,
  proofOf,
  randomHex,
} from '../../../src/protocol/bridge-wire';

const ORIGIN = `chrome-extension://${'abcdefghijklmnop'.repeat(2)}`;

interface FakeExtension {
  ws: WebSocket;
  frames: BridgeFrame[];
  send(f: ExtensionFrame): void;
  next(t: BridgeFrame['t']): Promise<BridgeFrame>;
  closed: Promise<number>;
}

/** A socket to the bridge, as a worker would open it (or a page, with another Origin). */
function connect(port: number, origin = ORIGIN): Promise<FakeExtension> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers: { origin } });
    const frames: BridgeFrame[] = [];
    const waiters: { t: string; cb: (f: BridgeFrame) => void }[] = [];
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as BridgeFrame;
      const w = waiters.findIndex((x) => x.t === f.t);
      if (w >= 0) waiters.splice(w, 1)[0].cb(f);
      else frames.push(f);
    });
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('open', () =>
      resolve({
        ws,
        frames,
        closed,
        send: (f) => ws.send(JSON.stringify(f)),
        next: (t) => {
          const i = frames.findIndex((f) => f.t === t);
          if (i >= 0) return Promise.resolve(frames.splice(i, 1)[0]);
          return new Promise((r) => waiters.push({ t, cb: r }));
        },
      }),
    );
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/** The extension's half of the handshake, given the pairing secret it holds. */
async function handshake(ext: FakeExtension, secretHash: string): Promise<void> {
  const hello = (await ext.next('hello')) as Extract<BridgeFrame, { t: 'hello' }>;
  const nonce = randomHex();
  ext.send({
    t: 'challenge',
    nonce,
    proof: await proofOf(secretHash, 'extension', nonce, hello.nonce),
  });
  const auth = (await ext.next('auth')) as Extract<BridgeFrame, { t: 'auth' }>;
  expect(auth.proof).toBe(await proofOf(secretHash, 'bridge', hello.nonce, nonce));
  ext.send({ t: 'ready' });
}

/** Pair through the `pair_needed` path and return the secret the extension would store. */
async function pair(ext: FakeExtension): Promise<string> {
  await ext.next('hello');
  ext.send({ t: 'pair_needed' });
  const p = (await ext.next('pair')) as Extract<BridgeFrame, { t: 'pair' }>;
  return p.secretHash;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(o: { clientName?: string; progressEveryMs?: number } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'keel-bridge-'));
  const link = new ExtensionLink({ ports: [0], sessionId: 'mcp_test' });
  const port = await link.listen();
  const server = createBridgeServer({
    link,
    pairingPath: join(dir, 'pairing.json'),
    version: '0.0.0',
    progressEveryMs: o.progressEveryMs ?? 60_000,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: o.clientName ?? 'Test Agent', version: '1.0' });
  await client.connect(b);
  cleanups.push(
    () => client.close(),
    () => link.close(),
  );
  const readyOnce = () =>
    new Promise<void>((r) => {
      const off = link.onStatus((s) => {
        if (s.kind !== 'ready') return;
        off();
        r();
      });
    });
  return { link, port: link.port ?? port, client, readyOnce };
}

const TOOL = {
  name: 'browser_click',
  description: 'Click an element',
  inputSchema: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
};

describe('keel-mcp bridge', () => {
  it('refuses a socket whose Origin is a web page or missing', async () => {
    const { port } = await start();
    await expect(connect(port, 'https://evil.example')).rejects.toThrow(/401|403/);
    await expect(connect(port, 'chrome-extension://not-an-id')).rejects.toThrow(/401|403/);
  });

  it('serves nothing before pairing, then lists tools and calls once paired', async () => {
    const { port, client, readyOnce } = await start();
    expect((await client.listTools()).tools).toEqual([]);
    const before = await client.callTool({ name: 'browser_click', arguments: { ref: 'e1' } });
    expect(before.isError).toBe(true);
    expect(JSON.stringify(before.content)).toMatch(/not connected/);

    const ext = await connect(port);
    const secret = await pair(ext);
    const pending = await client.callTool({ name: 'browser_click', arguments: { ref: 'e1' } });
    expect((pending.content as { text: string }[])[0].text).toMatch(
      /Waiting for the user to allow "Test Agent"/,
    );

    // The user allowed it in the panel; the worker reconnects and proves it holds the secret.
    const listChanged = new Promise<void>((r) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => r()),
    );
    const ready = readyOnce();
    ext.ws.close();
    const ext2 = await connect(port);
    await handshake(ext2, secret);
    await ready;
    await listChanged;

    const listing = client.listTools();
    const list = (await ext2.next('list')) as Extract<BridgeFrame, { t: 'list' }>;
    ext2.send({ t: 'tools', id: list.id, tools: [TOOL] });
    expect((await listing).tools.map((t) => t.name)).toEqual(['browser_click']);

    const calling = client.callTool({ name: 'browser_click', arguments: { ref: 'e1' } });
    const call = (await ext2.next('call')) as Extract<BridgeFrame, { t: 'call' }>;
    expect(call).toMatchObject({ name: 'browser_click', args: { ref: 'e1' } });
    expect(call.threadId).toBeUndefined();
    ext2.send({
      t: 'result',
      id: call.id,
      content: [{ type: 'text', text: 'Clicked.' }],
      isError: false,
      threadId: 'thr_1',
    });
    expect(await calling).toEqual({
      content: [{ type: 'text', text: 'Clicked.' }],
      isError: false,
    });

    // The session's later calls go to the same thread.
    const again = client.callTool({ name: 'browser_click', arguments: { ref: 'e2' } });
    const call2 = (await ext2.next('call')) as Extract<BridgeFrame, { t: 'call' }>;
    expect(call2.threadId).toBe('thr_1');
    expect(call2.callId).not.toBe(call.callId);
    ext2.send({
      t: 'result',
      id: call2.id,
      content: [{ type: 'text', text: 'The user denied this call: not on this site.' }],
      isError: true,
    });
    const denied = await again;
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/denied/);
  });

  it('refuses a socket that cannot prove the pairing, and a revoked pairing', async () => {
    const { port, client, link } = await start();
    const ext = await connect(port);
    await ext.next('hello');
    ext.send({ t: 'challenge', nonce: randomHex(), proof: 'f'.repeat(64) });
    expect(await ext.closed).toBe(1008);
    expect(link.state.kind).not.toBe('ready');

    const ext2 = await connect(port);
    await ext2.next('hello');
    ext2.send({ t: 'refused', code: 'revoked', message: 'This pairing was revoked in Keel.' });
    await new Promise((r) => setTimeout(r, 50));
    const r = await client.callTool({ name: 'browser_click', arguments: { ref: 'e1' } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/refused this client \(revoked\)/);
  });

  it('sends progress while a call waits, and re-sends a call cut off by a lost worker', async () => {
    const { port, client, readyOnce } = await start({ progressEveryMs: 20 });
    let ext = await connect(port);
    const secret = await pair(ext);
    ext.ws.close();
    ext = await connect(port);
    let ready = readyOnce();
    await handshake(ext, secret);
    await ready;

    const progress: string[] = [];
    const calling = client.callTool(
      { name: 'browser_click', arguments: { ref: 'e1' } },
      undefined,
      { onprogress: (p) => void progress.push(p.message ?? ''), resetTimeoutOnProgress: true },
    );
    const call = (await ext.next('call')) as Extract<BridgeFrame, { t: 'call' }>;
    ext.send({ t: 'progress', id: call.id, message: 'Waiting for approval in Keel.' });
    await new Promise((r) => setTimeout(r, 30));
    expect(progress).toContain('Waiting for approval in Keel.');

    // The worker stops mid-call; a new one connects and proves itself: the same call comes again.
    ext.ws.terminate();
    await new Promise((r) => setTimeout(r, 60));
    expect(progress.some((p) => /waiting for it to reconnect/.test(p))).toBe(true);
    const ext2 = await connect(port);
    ready = readyOnce();
    await handshake(ext2, secret);
    await ready;
    const resent = (await ext2.next('call')) as Extract<BridgeFrame, { t: 'call' }>;
    expect(resent.callId).toBe(call.callId);
    ext2.send({
      t: 'result',
      id: resent.id,
      content: [{ type: 'text', text: 'Done.' }],
      isError: false,
    });
    expect((await calling).content).toEqual([{ type: 'text', text: 'Done.' }]);
  });

  it('measures the relay: MCP request → WebSocket → answer → MCP result (p50 / p95, printed)', async () => {
    const { port, client, readyOnce } = await start();
    let ext = await connect(port);
    const secret = await pair(ext);
    ext.ws.close();
    ext = await connect(port);
    const ready = readyOnce();
    await handshake(ext, secret);
    await ready;
    ext.ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as BridgeFrame;
      if (f.t === 'call')
        ext.send({
          t: 'result',
          id: f.id,
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
        });
    });
    const xs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await client.callTool({ name: 'browser_snapshot', arguments: {} });
      xs.push(performance.now() - t0);
    }
    xs.sort((a, b) => a - b);
    console.log(
      `[bridge relay] p50 ${xs[100].toFixed(2)} ms, p95 ${xs[190].toFixed(2)} ms over ${xs.length} calls`,
    );
    expect(xs[100]).toBeLessThan(50);
  });
});
