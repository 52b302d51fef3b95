import type { AgentEvent, Item, RunState, RunSummary, StopReason } from '../../src/protocol';
import { isActiveRun, threadFromSnapshot, type ThreadState } from './thread-state';

/** The thread-scoped events this reducer understands (item.delta goes to LiveItems instead). */
export type ThreadEvent = Extract<
  AgentEvent,
  {
    type:
      | 'thread.snapshot'
      | 'thread.updated'
      | 'turn.start'
      | 'item.start'
      | 'item.discarded'
      | 'item.updated'
      | 'item.complete'
      | 'token.usage'
      | 'approval.request'
      | 'approval.resolved'
      | 'interaction.request'
      | 'interaction.resolved'
      | 'queue.updated'
      | 'todo.updated'
      | 'run.updated'
      | 'turn.complete';
  }
>;

/** Run states that end the wait for a request: a pending card must not outlive them. */
const SETTLED: readonly RunState[] = [
  'completed',
  'failed',
  'interrupted',
  'budget_paused',
  'paused_uncertain',
];

/** When a turn ends before its run.updated arrives, this is the state the run is in. */
function stateAfter(stop: StopReason): RunState {
  switch (stop) {
    case 'interrupted':
      return 'interrupted';
    case 'budget_pause':
      return 'budget_paused';
    case 'paused_uncertain':
      return 'paused_uncertain';
    case 'error':
      return 'failed';
    default:
      return 'completed';
  }
}

/** Replace the item with the same id, or append it. Searches from the end: new items are there. */
export function upsertItem(path: Item[], item: Item): Item[] {
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i].id === item.id) {
      const next = path.slice();
      next[i] = item;
      return next;
    }
  }
  return [...path, item];
}

function withoutLeftWaits(run: RunSummary, state: RunSummary['state']): RunSummary {
  const { pendingApproval, pendingInteraction, ...rest } = run;
  return {
    ...rest,
    ...(pendingApproval && state === 'waiting_approval' ? { pendingApproval } : {}),
    ...(pendingInteraction && state === 'waiting_interaction' ? { pendingInteraction } : {}),
  };
}

function withRunState(t: ThreadState, run: RunSummary): ThreadState {
  const settled = SETTLED.includes(run.state);
  return {
    ...t,
    run,
    approval: settled ? null : (run.pendingApproval ?? t.approval),
    interaction: settled ? null : (run.pendingInteraction ?? t.interaction),
  };
}

/** Pure: the next state of one thread after one engine event. */
export function reduceThread(t: ThreadState, ev: ThreadEvent): ThreadState {
  switch (ev.type) {
    case 'thread.snapshot':
      return threadFromSnapshot(ev.snapshot);
    case 'thread.updated':
      return {
        ...t,
        meta: ev.thread,
        threadUsage: ev.thread.usage
          ? { usage: ev.thread.usage, costUsd: ev.thread.costUsd }
          : t.threadUsage,
      };
    case 'turn.start':
      return {
        ...t,
        run: {
          runId: ev.runId,
          turnId: ev.turnId,
          state: t.run?.runId === ev.runId ? t.run.state : 'queued',
        },
        lastTurn: null,
        liveUsage: null,
      };
    case 'item.start':
    case 'item.updated':
    case 'item.complete':
      return { ...t, path: upsertItem(t.path, ev.item) };
    case 'item.discarded': {
      const path = t.path.filter((i) => i.id !== ev.itemId);
      return path.length === t.path.length ? t : { ...t, path };
    }
    case 'token.usage':
      return {
        ...t,
        liveUsage: { runId: ev.runId, turnUsage: ev.turnUsage, turnCostUsd: ev.turnCostUsd },
        threadUsage: ev.threadUsage
          ? { usage: ev.threadUsage, costUsd: ev.threadCostUsd }
          : t.threadUsage,
      };
    case 'approval.request':
      return { ...t, approval: ev };
    case 'approval.resolved':
      return t.approval?.approvalId === ev.approvalId ? { ...t, approval: null } : t;
    case 'interaction.request':
      return { ...t, interaction: ev };
    case 'interaction.resolved':
      return t.interaction?.interactionId === ev.interactionId ? { ...t, interaction: null } : t;
    case 'queue.updated':
      return { ...t, queue: ev.items };
    case 'todo.updated':
      return { ...t, todos: ev.todos };
    case 'run.updated': {
      const prev = t.run?.runId === ev.runId ? t.run : null;
      // A bare state change keeps the summary it had, but not a wait the run has left: an
      // answered question must not come back with the next state (the card would reappear).
      const kept = prev ? withoutLeftWaits(prev, ev.state) : { runId: ev.runId, turnId: '' };
      const run: RunSummary = ev.run ?? { ...kept, state: ev.state };
      return withRunState(t, { ...run, turnId: run.turnId || prev?.turnId || '' });
    }
    case 'turn.complete': {
      const next: ThreadState = {
        ...t,
        lastTurn: {
          turnId: ev.turnId,
          runId: ev.runId,
          stopReason: ev.stopReason,
          error: ev.error,
        },
      };
      // The engine also sends run.updated; this keeps the composer from staying in "steer" mode if
      // that event is late or lost in a reconnect.
      if (t.run?.runId === ev.runId && isActiveRun(t.run.state)) {
        return withRunState(next, {
          ...t.run,
          state: stateAfter(ev.stopReason),
          stopReason: ev.stopReason,
          error: ev.error,
        });
      }
      return next;
    }
    default:
      // An event type added to the protocol later: ignored until the panel learns it.
      return t;
  }
}
