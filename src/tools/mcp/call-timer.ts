export type CallTimeoutKind = 'idle' | 'total';

/**
 * The deadline of one MCP call. Two limits: `idleMs` without a sign of life (re-armed by progress
 * notifications, so long-running tools that report progress keep going) and `maxMs` of active
 * time in total. While the server waits for the user (elicitation) both are suspended: a person
 * answering a form is not a hung server.
 */
export class CallTimer {
  private idle?: ReturnType<typeof setTimeout>;
  private total?: ReturnType<typeof setTimeout>;
  private pauses = 0;
  private usedMs = 0;
  private activeSince = 0;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly maxMs: number,
    private readonly onExpire: (kind: CallTimeoutKind) => void,
  ) {}

  start(): void {
    this.activeSince = Date.now();
    this.arm();
  }

  /** The server showed progress. */
  touch(): void {
    if (this.stopped || this.pauses > 0) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.expire('idle'), this.idleMs);
  }

  pause(): void {
    if (this.stopped) return;
    if (this.pauses++ === 0) {
      this.usedMs += Date.now() - this.activeSince;
      this.clear();
    }
  }

  resume(): void {
    if (this.stopped || this.pauses === 0) return;
    if (--this.pauses === 0) {
      this.activeSince = Date.now();
      this.arm();
    }
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private arm(): void {
    this.clear();
    this.idle = setTimeout(() => this.expire('idle'), this.idleMs);
    this.total = setTimeout(() => this.expire('total'), Math.max(0, this.maxMs - this.usedMs));
  }

  private clear(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
  }

  private expire(kind: CallTimeoutKind): void {
    if (this.stopped) return;
    this.stop();
    this.onExpire(kind);
  }
}
