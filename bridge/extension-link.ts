/**
 * The bridge's end of the loopback channel: a WebSocket server on 127.0.0.1 that Keel's service
 * worker connects to (src/bridge-link). It refuses any socket without an extension Origin, runs
 * the pairing handshake (src/protocol/bridge-wire.ts), and then carries list/call requests.
 *
 * Contract: `request` never rejects for a lost socket. A call in flight when the worker goes away
 * (Chrome stopped it, the browser restarted) is sent again with the same `callId` when a worker
 * is back and proven; the extension answers a repeated `callId` with the first call's outcome
 * (docs/mcp-server.md §Durability). It resolves with a failure only when the user refused the
 * pairing, or the caller's signal aborts.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  BRIDGE_WIRE_VERSION,
  type BridgeClientInfo,
  type BridgeFrame,
  ExtensionFrame,
  isExtensionOrigin,
  proofOf,
  randomHex,
  sameProof,
  secretHashOf,
} from '../src/protocol/bridge-wire';
import type { Pairing } from './pairing-file';

export type LinkStatus =
  | { kind: 'waiting' }
  | { kind: 'pairing' }
  | { kind: 'ready' }
  | { kind: 'refused'; code: string; message: string };

export interface LinkOptions {
  /** Ports to try in order; the first free one is used. */
  ports: number[];
  /** Pin the extension: only this id's Origin is accepted. */
  extensionId?: string;
  sessionId: string;
  log?: (line: string) => void;
}

type Reply = Extract<ExtensionFrame, { t: 'tools' | 'result' | 'error' }>;
type Request = Extract<BridgeFrame, { t: 'list' | 'call' }>;

interface Pending {
  frame: Request;
  resolve: (r: Reply) => void;
  onProgress?: (message: string) => void;
}

export class ExtensionLink {
  private wss: WebSocketServer | null = null;
  private socket: WebSocket | null = null;
  private status: LinkStatus = { kind: 'waiting' };
  private who: { client: BridgeClientInfo; pairing: Pairing } | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly statusListeners = new Set<(s: LinkStatus) => void>();
  private readonly log: (line: string) => void;

  constructor(private readonly o: LinkOptions) {
    this.log = o.log ?? (() => undefined);
  }

  get port(): number | undefined {
    const a = this.wss?.address();
    return a && typeof a === 'object' ? a.port : undefined;
  }

  get state(): LinkStatus {
    return this.status;
  }

  onStatus(cb: (s: LinkStatus) => void): () => void {
    this.statusListeners.add(cb);
    return () => this.statusListeners.delete(cb);
  }

  /** Listen on the first free port of `ports`, on 127.0.0.1 only. */
  async listen(): Promise<number> {
    let last: unknown;
    for (const port of this.o.ports) {
      try {
        this.wss = await this.bind(port);
        return port;
      } catch (e) {
        last = e;
      }
    }
    throw new Error(
      `No free port for the Keel bridge among ${this.o.ports.join(', ')}: ${last instanceof Error ? last.message : String(last)}`,
    );
  }

  private bind(port: number): Promise<WebSocketServer> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({
        host: '127.0.0.1',
        port,
        maxPayload: 32 * 1024 * 1024,
        // A web page can open a WebSocket to loopback too: only an extension's Origin passes.
        verifyClient: (info: { req: IncomingMessage }) =>
          isExtensionOrigin(info.req.headers.origin, this.o.extensionId),
      });
      wss.once('listening', () => {
        wss.off('error', reject);
        wss.on('connection', (ws) => this.accept(ws));
        resolve(wss);
      });
      wss.once('error', reject);
    });
  }

  /** The MCP client is known (after initialize): the handshake can start. */
  setClient(client: BridgeClientInfo, pairing: Pairing): void {
    this.who = { client, pairing };
    for (const ws of this.wss?.clients ?? []) this.sendHello(ws as WebSocket & Hs);
  }

  private setStatus(s: LinkStatus): void {
    this.status = s;
    for (const cb of this.statusListeners) cb(s);
  }

  private accept(ws: WebSocket & Hs): void {
    ws.on('message', (data) => void this.onFrame(ws, String(data)));
    ws.on('close', () => {
      if (this.socket !== ws) return;
      this.socket = null;
      if (this.status.kind !== 'refused') this.setStatus({ kind: 'waiting' });
      this.log('Keel disconnected; waiting for it to reconnect.');
    });
    ws.on('error', () => undefined);
    this.sendHello(ws);
  }

  private sendHello(ws: WebSocket & Hs): void {
    if (!this.who || ws.hs) return;
    ws.hs = { nonce: randomHex() };
    send(ws, {
      t: 'hello',
      v: BRIDGE_WIRE_VERSION,
      client: this.who.client,
      pairingId: this.who.pairing.pairingId,
      sessionId: this.o.sessionId,
      nonce: ws.hs.nonce,
    });
  }

  private async onFrame(ws: WebSocket & Hs, text: string): Promise<void> {
    let frame: ExtensionFrame;
    try {
      frame = ExtensionFrame.parse(JSON.parse(text));
    } catch {
      ws.close(1008, 'invalid frame');
      return;
    }
    const who = this.who;
    if (!who || !ws.hs) return;
    const hash = await secretHashOf(who.pairing.token);
    switch (frame.t) {
      case 'pair_needed':
        send(ws, {
          t: 'pair',
          pairingId: who.pairing.pairingId,
          client: who.client,
          secretHash: hash,
        });
        this.setStatus({ kind: 'pairing' });
        return;
      case 'pair_pending':
        this.setStatus({ kind: 'pairing' });
        return;
      case 'challenge': {
        const expected = await proofOf(hash, 'extension', frame.nonce, ws.hs.nonce);
        if (!sameProof(expected, frame.proof)) {
          this.log('A socket failed the pairing proof; closed.');
          ws.close(1008, 'bad proof');
          return;
        }
        ws.hs.proven = true;
        send(ws, { t: 'auth', proof: await proofOf(hash, 'bridge', ws.hs.nonce, frame.nonce) });
        return;
      }
      case 'ready':
        if (!ws.hs.proven) {
          ws.close(1008, 'not proven');
          return;
        }
        if (this.socket && this.socket !== ws) this.socket.close(1000, 'replaced');
        this.socket = ws;
        this.setStatus({ kind: 'ready' });
        this.log('Paired with Keel.');
        // Calls cut off by a lost worker go again, under the same callId.
        for (const p of this.pending.values()) send(ws, p.frame);
        return;
      case 'refused':
        this.setStatus({ kind: 'refused', code: frame.code, message: frame.message });
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.resolve({ t: 'error', id, message: frame.message });
        }
        return;
      case 'ping':
        send(ws, { t: 'pong' });
        return;
      case 'progress':
        if (ws === this.socket) this.pending.get(frame.id)?.onProgress?.(frame.message);
        return;
      case 'tools':
      case 'result':
      case 'error': {
        if (ws !== this.socket) return;
        const p = this.pending.get(frame.id);
        if (!p) return;
        this.pending.delete(frame.id);
        p.resolve(frame);
        return;
      }
    }
  }

  /**
   * Send a request once the link is ready (now, or after a reconnect) and wait for its reply.
   * `onProgress` hears the extension's progress lines and the bridge's own waiting notes.
   */
  request(
    frame: Request,
    o: { signal?: AbortSignal; onProgress?: (message: string) => void } = {},
  ): Promise<Reply> {
    return new Promise((resolve) => {
      const p: Pending = { frame, resolve, ...(o.onProgress ? { onProgress: o.onProgress } : {}) };
      this.pending.set(frame.id, p);
      o.signal?.addEventListener('abort', () => {
        if (this.pending.delete(frame.id))
          resolve({ t: 'error', id: frame.id, message: 'Cancelled by the client.' });
      });
      if (this.socket && this.status.kind === 'ready') send(this.socket, frame);
    });
  }

  async close(): Promise<void> {
    for (const ws of this.wss?.clients ?? []) ws.terminate();
    await new Promise<void>((r) => (this.wss ? this.wss.close(() => r()) : r()));
  }
}

/** Per-socket handshake state. */
interface Hs {
  hs?: { nonce: string; proven?: boolean };
}

function send(ws: WebSocket, frame: BridgeFrame): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
}
