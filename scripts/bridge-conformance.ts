/**
 * The MCP conformance suite's server scenarios that apply to Keel's bridge (docs/mcp-server.md
 * §MCP conformance), run against the bridge's own MCP server (bridge/mcp-server.ts) exposed over
 * Streamable HTTP on 127.0.0.1 for the run — the bridge itself speaks stdio, which the suite
 * cannot drive. A scripted extension end pairs with the bridge over the real loopback WebSocket
 * and lists one browser tool, so tools/list goes the whole way.
 *
 *   npx tsx scripts/bridge-conformance.ts
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebSocket } from 'ws';
import { ExtensionLink } from '../bridge/extension-link';
import { createBridgeServer } from '../bridge/mcp-server';
import { type BridgeFrame, proofOf, randomHex } from '../src/protocol/bridge-wire';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list'];
const root = resolve(import.meta.dirname, '..');
const runner = resolve(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-bridge-conf-'));
  const link = new ExtensionLink({ ports: [0], sessionId: 'mcp_conformance' });
  await link.listen();
  // The scripted extension end: allow the pairing, prove it, list one tool.
  const ws = new WebSocket(`ws://127.0.0.1:${link.port}`, {
    headers: { origin: `chrome-extension://${'a'.repeat(32)}` },
  });
  let secret = '';
  let helloNonce = '';
  const send = (f: unknown) => ws.send(JSON.stringify(f));
  ws.on('message', async (d) => {
    const f = JSON.parse(String(d)) as BridgeFrame;
    if (f.t === 'hello') {
      helloNonce = f.nonce;
      if (!secret) send({ t: 'pair_needed' });
    } else if (f.t === 'pair') {
      secret = f.secretHash;
      const nonce = randomHex();
      send({ t: 'challenge', nonce, proof: await proofOf(secret, 'extension', nonce, helloNonce) });
    } else if (f.t === 'auth') send({ t: 'ready' });
    else if (f.t === 'list')
      send({
        t: 'tools',
        id: f.id,
        tools: [
          {
            name: 'browser_snapshot',
            description: 'Read the page as an outline with refs.',
            inputSchema: { type: 'object', properties: { tabId: { type: 'integer' } } },
          },
        ],
      });
  });
  await new Promise((r) => ws.once('open', r));

  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, t!),
      });
      const server = createBridgeServer({
        link,
        pairingPath: join(dir, 'pairing.json'),
        version: '0.0.0',
      });
      await server.connect(t);
    }
    await t.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  let failed = 0;
  for (const scenario of SCENARIOS) {
    const out = await promisify(execFile)(
      process.execPath,
      [runner, 'server', '--url', url, '--scenario', scenario],
      {
        cwd: root,
      },
    ).then(
      (r) => r.stdout + r.stderr,
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
    const passed =
      /OVERALL: PASSED|0 failed/i.test(out) && !/FAILED/.test(out.replace(/0 failed/gi, ''));
    if (!passed) failed += 1;
    const summary = /Passed: [^\n]*/.exec(out)?.[0] ?? out.trim().split('\n').slice(-3).join(' | ');
    console.log(`${passed ? 'PASS' : 'FAIL'} ${scenario}: ${summary}`);
  }
  console.log(`${SCENARIOS.length - failed} passed, ${failed} failed`);
  ws.close();
  http.close();
  await link.close();
  process.exit(failed ? 1 : 0);
}

void main();
