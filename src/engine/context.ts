import type { AgentEvent } from '../protocol';
import type { ProviderResolver } from '../providers/types';
import type { Store } from '../store/store';
import type { ToolRegistry } from '../tools/registry';
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
  /** Commit `fn` atomically with before/after boundaries named `tx:<name>`. */
  commit<T>(name: string, fn: () => Promise<T>): Promise<T>;
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
