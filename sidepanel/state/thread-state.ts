import type {
  ApprovalRequest,
  BranchPoint,
  InteractionRequest,
  Item,
  QueueItem,
  RunState,
  RunSummary,
  StopReason,
  ThreadMeta,
  ThreadSnapshot,
  Todo,
  Usage,
} from '../../src/protocol';
import { runStateIs } from '../../src/protocol/run-states';

/** How the last turn of a thread ended, for warnings and errors under the conversation. */
export interface TurnOutcome {
  turnId: string;
  runId: string;
  stopReason: StopReason;
  error?: { code: string; message: string };
}

/** Live usage of the current turn from `token.usage` (history is summed from the items). */
export interface LiveUsage {
  runId: string;
  turnUsage: Usage;
  turnCostUsd?: number;
}

/** Everything the panel knows about one thread. Replaced, never mutated (see ExternalStore). */
export interface ThreadState {
  threadId: string;
  meta: ThreadMeta | undefined;
  /** Root → leaf, as the engine sent it; streaming text lives in LiveItems until complete. */
  path: Item[];
  branches: BranchPoint[];
  run: RunSummary | null;
  queue: QueueItem[];
  todos: Todo[];
  approval: ApprovalRequest | null;
  interaction: InteractionRequest | null;
  liveUsage: LiveUsage | null;
  threadUsage: { usage: Usage; costUsd?: number } | null;
  lastTurn: TurnOutcome | null;
  /** True once a snapshot arrived: before that the path may be incomplete. */
  loaded: boolean;
}

export function emptyThread(threadId: string, meta?: ThreadMeta): ThreadState {
  return {
    threadId,
    meta,
    path: [],
    branches: [],
    run: null,
    queue: [],
    todos: [],
    approval: null,
    interaction: null,
    liveUsage: null,
    threadUsage: meta?.usage ? { usage: meta.usage, costUsd: meta.costUsd } : null,
    lastTurn: null,
    loaded: false,
  };
}

export function threadFromSnapshot(snap: ThreadSnapshot): ThreadState {
  const run = snap.run ?? null;
  return {
    ...emptyThread(snap.thread.threadId, snap.thread),
    path: snap.path,
    branches: snap.branches ?? [],
    run,
    queue: snap.queue,
    todos: snap.todos,
    approval: run?.pendingApproval ?? null,
    interaction: run?.pendingInteraction ?? null,
    lastTurn:
      run?.stopReason && run.state !== 'completed'
        ? { turnId: run.turnId, runId: run.runId, stopReason: run.stopReason, error: run.error }
        : null,
    loaded: true,
  };
}

/**
 * The run is working on its turn or waiting to start (the engine's table of traits, `live`): the
 * composer offers stop and queue, and the thread shows "running".
 */
export function isActiveRun(state: RunState | undefined | null): boolean {
  return runStateIs(state, 'live');
}

/** States that wait for the user (the run banner offers what each allows). */
export function isPausedRun(state: RunState | undefined | null): boolean {
  return runStateIs(state, 'waiting') && !runStateIs(state, 'steerable');
}

/**
 * The turn a message steers into: only a steerable run takes one (a queued run does not, so a
 * message sent then goes to the queue instead of waiting for the engine's refusal).
 */
export function steerableTurnId(t: ThreadState | undefined): string | null {
  return t?.run && runStateIs(t.run.state, 'steerable') ? t.run.turnId : null;
}

/** The turn the run is working on (active: stop and queue apply to it). */
export function activeTurnId(t: ThreadState | undefined): string | null {
  return t?.run && isActiveRun(t.run.state) ? t.run.turnId : null;
}
