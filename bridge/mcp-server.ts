/**
 * The MCP side of the bridge: the official SDK's `Server`, whose tools are Keel's browser tools as
 * the extension lists them, and whose calls are Keel's calls (a thread per session, the
 * Gatekeeper, approvals in the panel). The bridge decides nothing itself; it relays.
 *
 * Calls of one session run one at a time (its thread runs one call at a time). While a call waits
 * (an approval in the panel, a worker restart) progress notifications keep the client's request
 * alive, if the client sent a progress token.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { randomHex } from '../src/protocol/bridge-wire';
import type { ExtensionLink, LinkStatus } from './extension-link';
import { type Pairing, pairingFor } from './pairing-file';

export interface BridgeServerOptions {
  link: ExtensionLink;
  pairingPath: string;
  /** Name the pairing after this instead of the MCP client's own name. */
  clientName?: string;
  /** Make a new pairing for this client (the user is asked again). */
  freshPairing?: boolean;
  version: string;
  /** How often a waiting call sends a progress note (ms). */
  progressEveryMs?: number;
}

export function notReadyText(s: LinkStatus, client: string): string {
  switch (s.kind) {
    case 'waiting':
      return `Keel is not connected. Open Chrome with Keel and turn on Settings → Keel as an MCP server → Connect to local MCP bridges; this client is "${client}".`;
    case 'pairing':
      return `Waiting for the user to allow "${client}" in Keel's side panel. Nothing is served until then.`;
    case 'refused':
      return `Keel refused this client (${s.code}): ${s.message}`;
    case 'ready':
      return '';
  }
}

export function createBridgeServer(o: BridgeServerOptions): Server {
  const { link } = o;
  const server = new Server(
    { name: 'keel', version: o.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        "Keel drives the user's own Chrome through Keel's browser tools. Every call is judged by Keel's permissions; some wait for the user's approval in Keel's side panel, which only the user can answer. Take a browser_snapshot before acting on refs.",
    },
  );
  let clientName = o.clientName ?? 'MCP client';
  let threadId: string | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const every = o.progressEveryMs ?? 10_000;

  server.oninitialized = () => {
    const info = server.getClientVersion();
    clientName = o.clientName ?? info?.name ?? clientName;
    void pairingFor(o.pairingPath, clientName, { fresh: o.freshPairing }).then(
      (p: Pairing) => link.setClient({ name: clientName, version: info?.version ?? '' }, p),
      (e: unknown) => process.stderr.write(`keel-mcp: cannot write the pairing file: ${e}\n`),
    );
  };
  link.onStatus((s) => {
    if (s.kind === 'ready') void server.sendToolListChanged().catch(() => undefined);
  });

  server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => {
    // Before pairing nothing is served: an empty list, and list_changed once paired.
    if (link.state.kind !== 'ready') return { tools: [] };
    const r = await link.request({ t: 'list', id: randomHex(8) }, { signal: extra.signal });
    if (r.t !== 'tools') throw new Error(r.t === 'error' ? r.message : 'Unexpected reply.');
    return { tools: r.tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    if (link.state.kind !== 'ready') return errorResult(notReadyText(link.state, clientName));
    const token = req.params._meta?.progressToken;
    let step = 0;
    const progress = (message: string) => {
      if (token === undefined) return;
      step += 1;
      const n: ServerNotification = {
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, message },
      };
      void extra.sendNotification(n).catch(() => undefined);
    };
    const run = async (): Promise<CallToolResult> => {
      // A heartbeat while nothing else is said (a restart, a long action).
      let last = Date.now();
      const timer = setInterval(() => {
        if (Date.now() - last < every) return;
        last = Date.now();
        progress(
          link.state.kind === 'ready'
            ? 'Keel is working on the call.'
            : 'Keel went away (its worker restarted); waiting for it to reconnect.',
        );
      }, every);
      try {
        const r = await link.request(
          {
            t: 'call',
            id: randomHex(8),
            callId: `call_${randomHex(12)}`,
            ...(threadId ? { threadId } : {}),
            name: req.params.name,
            args: req.params.arguments ?? {},
          },
          {
            signal: extra.signal,
            onProgress: (m) => {
              last = Date.now();
              progress(m);
            },
          },
        );
        if (r.t === 'error') return errorResult(r.message);
        if (r.t !== 'result') return errorResult('Unexpected reply from Keel.');
        threadId = r.threadId ?? threadId;
        return { content: r.content, isError: r.isError };
      } finally {
        clearInterval(timer);
      }
    };
    const p = chain.then(run, run);
    chain = p.catch(() => undefined);
    return p;
  });
  return server;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
