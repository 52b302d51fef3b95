#!/usr/bin/env node
/**
 * keel-mcp: Keel as an MCP server (docs/mcp-server.md). An outside agent (Claude Code, Codex,
 * Cursor, Claude Desktop) starts this process and speaks MCP to it over stdio; Keel's service
 * worker connects to it over a WebSocket on 127.0.0.1 and serves the calls under Keel's
 * permissions, once the user has allowed this client in Keel's panel.
 *
 *   node dist-bridge/keel-mcp.mjs [--port N] [--extension-id ID] [--name NAME] [--new-pairing]
 *   npx tsx bridge/keel-mcp.ts    (the same, from the sources)
 *
 * stdout carries MCP only; every human-readable line goes to stderr.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BRIDGE_PORT_SPAN, DEFAULT_BRIDGE_PORT, randomHex } from '../src/protocol/bridge-wire';
import { ExtensionLink } from './extension-link';
import { createBridgeServer } from './mcp-server';
import { defaultPairingPath } from './pairing-file';

const VERSION = '0.1.0';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'extension-id': { type: 'string' },
      name: { type: 'string' },
      'new-pairing': { type: 'boolean' },
      config: { type: 'string' },
    },
  });
  const base = Number(values.port ?? process.env.KEEL_BRIDGE_PORT ?? DEFAULT_BRIDGE_PORT);
  if (!Number.isInteger(base) || base < 1024 || base > 65_535 - BRIDGE_PORT_SPAN)
    throw new Error(`--port must be a port number from 1024, got ${values.port}`);
  const log = (line: string) => process.stderr.write(`keel-mcp: ${line}\n`);
  const extensionId = values['extension-id'] ?? process.env.KEEL_EXTENSION_ID;
  const link = new ExtensionLink({
    ports: Array.from({ length: BRIDGE_PORT_SPAN }, (_, i) => base + i),
    ...(extensionId ? { extensionId } : {}),
    sessionId: `mcp_${randomHex(8)}`,
    log,
  });
  const port = await link.listen();
  log(`listening on 127.0.0.1:${port}; waiting for Keel.`);
  const server = createBridgeServer({
    link,
    pairingPath: values.config ?? defaultPairingPath(),
    ...(values.name ? { clientName: values.name } : {}),
    ...(values['new-pairing'] ? { freshPairing: true } : {}),
    version: VERSION,
  });
  const transport = new StdioServerTransport();
  transport.onclose = () => void link.close().finally(() => process.exit(0));
  await server.connect(transport);
  process.stdin.on('end', () => void link.close().finally(() => process.exit(0)));
}

main().catch((e: unknown) => {
  process.stderr.write(`keel-mcp: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
