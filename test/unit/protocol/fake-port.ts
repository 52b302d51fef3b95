import type { PortLike } from '../../../src/protocol';

/**
 * An in-memory pair of `chrome.runtime.Port` look-alikes, for running PortTransport and
 * `portConnection` under vitest. It mimics the parts of Chrome's behaviour the transports rely on:
 *
 * - `postMessage` copies the message at send time, so a receiver never shares references with the
 *   sender, and a later mutation by the sender is invisible to the receiver. The default copy is a
 *   structuredClone; `serialization: 'json'` copies the way Chrome really does for extension Ports
 *   (measured in test/e2e: functions and undefined members vanish, a Map becomes {}, a BigInt or a
 *   cycle makes postMessage throw "Could not serialize message." and the Port stays usable);
 * - delivery is asynchronous (a macrotask per message) and in order per direction;
 * - `disconnect()` fires `onDisconnect` on the OTHER side only (after the messages already in
 *   flight towards it), never on the side that called it;
 * - `postMessage` on a port that is disconnected — by itself, or by the peer once the peer's
 *   disconnect has reached it — throws, like Chrome's "Attempting to use a disconnected port object".
 */

type MessageListener = (msg: unknown, port: FakePort) => void;

export class FakePort implements PortLike {
  peer!: FakePort;
  /** Messages this port posted (clones), for assertions. */
  readonly posted: unknown[] = [];
  private readonly messageListeners = new Set<MessageListener>();
  private readonly disconnectListeners = new Set<(port: FakePort) => void>();
  /** This side called disconnect(), or the peer's disconnect has been delivered here. */
  private dead = false;

  constructor(
    readonly name: string,
    private readonly serialization: 'structured' | 'json' = 'structured',
  ) {}

  get disconnected(): boolean {
    return this.dead;
  }

  readonly onMessage = {
    addListener: (cb: MessageListener) => void this.messageListeners.add(cb),
    removeListener: (cb: MessageListener) => void this.messageListeners.delete(cb),
    hasListener: (cb: MessageListener) => this.messageListeners.has(cb),
  };

  readonly onDisconnect = {
    addListener: (cb: (port: FakePort) => void) => void this.disconnectListeners.add(cb),
    removeListener: (cb: (port: FakePort) => void) => void this.disconnectListeners.delete(cb),
  };

  postMessage(msg: unknown): void {
    if (this.dead) throw new Error('Attempting to use a disconnected port object');
    // A value that cannot be copied throws synchronously, as in Chrome.
    const copy = this.serialization === 'json' ? jsonCopy(msg) : structuredClone(msg);
    this.posted.push(copy);
    const target = this.peer;
    setTimeout(() => target.receive(copy), 0);
  }

  disconnect(): void {
    if (this.dead) return;
    this.dead = true;
    const target = this.peer;
    // Queued behind the messages already posted towards the peer.
    setTimeout(() => target.peerDisconnected(), 0);
  }

  private receive(msg: unknown): void {
    if (this.dead) return;
    for (const cb of [...this.messageListeners]) cb(msg, this);
  }

  private peerDisconnected(): void {
    if (this.dead) return;
    this.dead = true;
    for (const cb of [...this.disconnectListeners]) cb(this);
  }
}

function jsonCopy(msg: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(msg);
  } catch {
    throw new Error('Could not serialize message.');
  }
  return text === undefined ? null : JSON.parse(text);
}

/** Two connected ports: `ui` is what `chrome.runtime.connect` returns, `engine` what `onConnect` gets. */
export function createPortPair(
  name = 'engine',
  serialization: 'structured' | 'json' = 'structured',
): { ui: FakePort; engine: FakePort } {
  const ui = new FakePort(name, serialization);
  const engine = new FakePort(name, serialization);
  ui.peer = engine;
  engine.peer = ui;
  return { ui, engine };
}

/** Let every queued delivery run (a few macrotask turns). */
export async function flushPorts(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setTimeout(r, 0));
}
