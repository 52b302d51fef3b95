import type { AgentEvent } from '../../protocol';
import type { ProviderResolver } from '../../providers/types';
import type { Store } from '../../store/store';
import type { ToolRegistry } from '../../tools/registry';
import type { Outbox } from './outbox';
import type { BrowserEnv, Clock, EngineOptions, IdSource, Logger } from './types';

/** What the engine's parts share: effects (store, clock, ids), the registry, and the event sink. */
export interface EngineContext {
  store: Store;
  registry: ToolRegistry;
  providers: ProviderResolver;
  clock: Clock;
  ids: IdSource;
  browser?: BrowserEnv;
  log: Logger;
  options: EngineOptions;
  emit(ev: AgentEvent): void;
  /** Crash-harness boundary (no-op in production). */
  boundary(name: string): Promise<void>;
  /** Live state the service worker reports (MCP connections), merged into PublicSettings. */
  live: LiveStatus;
  /** In-memory waiters of interactions requested by running tools (elicitation). */
  waiters: InteractionWaiters;
  /**
   * Commit `fn` atomically with before/after boundaries named `tx:<name>`. What `fn` puts in its
   * outbox is emitted once the transaction committed, in order; nothing if it did not.
   */
  commit<T>(name: string, fn: (out: Outbox) => Promise<T>): Promise<T>;
}

/** One MCP server's live status as settings show it (`PublicMcpServer.status`). */
export interface McpLiveStatus {
  state: string;
  message?: string;
  toolCount?: number;
  auth?: {
    signedIn: boolean;
    account?: string;
    expiresAt?: number;
    renewable?: boolean;
    scope?: string;
    signedInAt?: number;
    signingIn?: boolean;
    error?: string;
  };
}

/**
 * Status that exists only in memory: MCP server connections, and a gate a new run's environment
 * waits on so a freshly configured server's tools are in its catalog.
 */
export class LiveStatus {
  mcp: Record<string, McpLiveStatus> = {};
  /** OAuth sign-in of MCP servers (the worker's MCP manager); absent where there is none. */
  mcpAuth?: { signIn(serverId: string): Promise<void>; signOut(serverId: string): Promise<void> };
  /** Resolves when tool sources (MCP) have caught up with settings; bounded by the caller. */
  toolsSettled: () => Promise<void> = async () => undefined;
}

/** Thrown by a boundary that a test made fatal: the "worker" died there. */
export class EngineKilled extends Error {
  constructor(readonly boundaryName: string) {
    super(`engine killed at ${boundaryName}`);
  }
}

/** Thrown inside the driver when the run's signal fired (interrupt). */
export class RunAborted extends Error {
  /** Progress text a tool had reported before it was stopped (kept in its result). */
  constructor(readonly partial?: string) {
    super('interrupted');
  }
}

/** Tools waiting on a user's answer mid-call, by interaction id. Lost on a restart (by design). */
export class InteractionWaiters {
  private readonly map = new Map<
    string,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();

  wait(id: string, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new RunAborted());
      const onAbort = () => {
        this.map.delete(id);
        reject(new RunAborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.map.set(id, {
        resolve: (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject,
      });
    });
  }

  has(id: string): boolean {
    return this.map.has(id);
  }

  resolve(id: string, value: unknown): void {
    const w = this.map.get(id);
    this.map.delete(id);
    w?.resolve(value);
  }
}
