import type { AgentEvent, EngineConnection } from '../../protocol';
import type { EngineContext } from '../host/engine-context';
import type { ActorPool } from './thread-actor';

/** A connected UI client. */
export interface Client {
  conn: EngineConnection;
  /** Thread ids this client follows; '*' = all. */
  subs: Set<string>;
  /**
   * Events for a client whose `initialize` snapshot is being built wait here and are delivered
   * right after `initialized`, so the snapshot never overwrites something newer.
   */
  held: AgentEvent[] | null;
}

/** What the op handlers and the queue need of the run driver. */
export interface RunControl {
  isLive(runId: string): boolean;
  /** Abort a live run; resolves once its interrupt has been committed. */
  abort(runId: string): Promise<boolean>;
  finalizeInterrupt(runId: string): Promise<void>;
  ended(runId: string): Promise<void>;
  drive(runId: string): Promise<void>;
}

/**
 * The narrow host the op handlers, the queue, recovery, titles and builtins depend on — not the
 * `Engine` class, so no module of src/engine imports engine-core back (no import cycles).
 * Contract: every method is safe to call after a kill (it then does nothing).
 */
export interface EngineHost {
  readonly ctx: EngineContext;
  readonly driver: RunControl;
  readonly actors: ActorPool;
  /** Schedule a run's drive on its thread's actor (errors go to `onBackgroundError`). */
  schedule(threadId: string, runId: string): void;
  /** Background work reports here instead of throwing into the void. */
  onBackgroundError(e: unknown): void;
  /** Send everyone the current PublicSettings. */
  publishSettings(): void;
  sendTo(client: Client, ev: AgentEvent): void;
  holdEvents(client: Client): void;
  releaseEvents(client: Client, first: AgentEvent): void;
  setSubscriptions(
    client: Client,
    subs: string[] | undefined,
    mode: 'replace' | 'add' | 'remove',
  ): void;
}
