import type {
  AgentEvent,
  PublicSettings,
  RecordingStatus,
  ThreadMeta,
  WorkflowMeta,
} from '../../src/protocol';
import type { ConnectionStatus } from './engine-client';
import { reduceThread, type ThreadEvent } from './thread-reducer';
import { emptyThread, threadFromSnapshot, type ThreadState } from './thread-state';

/** What the engine told the panel, as one immutable value. UI-only state lives in ui-state.ts. */
export interface EngineState {
  connection: ConnectionStatus;
  /** True after the first `initialized`: before that there is nothing to show but a spinner. */
  ready: boolean;
  /** Newest first. */
  threads: ThreadMeta[];
  byId: Record<string, ThreadState>;
  settings: PublicSettings | null;
  /** Saved workflows, most recently changed first. */
  workflows: WorkflowMeta[];
  /** A workflow being recorded by demonstration, or waiting for its review. */
  recording: RecordingStatus | null;
}

export const initialEngineState: EngineState = {
  connection: 'connecting',
  ready: false,
  threads: [],
  byId: {},
  settings: null,
  workflows: [],
  recording: null,
};

/** The thread-scoped events reduceThread understands; anything newer is ignored, not misrouted. */
const KNOWN_THREAD_EVENTS = new Set<string>([
  'thread.snapshot',
  'thread.updated',
  'turn.start',
  'item.start',
  'item.discarded',
  'item.updated',
  'item.complete',
  'token.usage',
  'approval.request',
  'approval.resolved',
  'interaction.request',
  'interaction.resolved',
  'queue.updated',
  'todo.updated',
  'run.updated',
  'turn.complete',
] satisfies ThreadEvent['type'][]);

function sortThreads(list: ThreadMeta[]): ThreadMeta[] {
  return list.slice().sort((a, b) => b.updatedAt - a.updatedAt);
}

function upsertMeta(list: ThreadMeta[], meta: ThreadMeta): ThreadMeta[] {
  const rest = list.filter((m) => m.threadId !== meta.threadId);
  return sortThreads([...rest, meta]);
}

/**
 * The engine sends thread.updated when a turn starts, not when its run ends: the list's Running /
 * Paused badge follows the run events instead of keeping the state from the turn's start.
 */
function withRunState(
  list: ThreadMeta[],
  threadId: string,
  runState: ThreadMeta['runState'],
): ThreadMeta[] {
  const i = list.findIndex((m) => m.threadId === threadId);
  if (i < 0 || list[i].runState === runState) return list;
  const next = list.slice();
  next[i] = { ...list[i], runState };
  return next;
}

function threadIdOf(ev: ThreadEvent): string {
  if (ev.type === 'thread.snapshot') return ev.snapshot.thread.threadId;
  if (ev.type === 'thread.updated') return ev.thread.threadId;
  return ev.threadId;
}

/** Pure: apply one engine event (item.delta and command answers are handled elsewhere). */
export function reduceEngine(s: EngineState, ev: AgentEvent): EngineState {
  switch (ev.type) {
    case 'initialized': {
      const byId: Record<string, ThreadState> = {};
      for (const meta of ev.threads) byId[meta.threadId] = emptyThread(meta.threadId, meta);
      for (const snap of ev.snapshots) byId[snap.thread.threadId] = threadFromSnapshot(snap);
      const metas = new Map(ev.threads.map((m) => [m.threadId, m]));
      for (const snap of ev.snapshots)
        if (!metas.has(snap.thread.threadId)) metas.set(snap.thread.threadId, snap.thread);
      return {
        ...s,
        ready: true,
        threads: sortThreads([...metas.values()]),
        byId,
        settings: ev.settings,
        workflows: ev.workflows ?? [],
        recording: ev.recording ?? null,
      };
    }
    case 'settings.updated':
      return { ...s, settings: ev.settings };
    case 'workflows.updated':
      return { ...s, workflows: ev.workflows };
    case 'workflow.recording':
      return { ...s, recording: ev.recording };
    case 'thread.deleted': {
      if (!s.byId[ev.threadId] && !s.threads.some((m) => m.threadId === ev.threadId)) return s;
      const byId = { ...s.byId };
      delete byId[ev.threadId];
      return { ...s, byId, threads: s.threads.filter((m) => m.threadId !== ev.threadId) };
    }
    case 'item.delta':
    case 'command.ack':
    case 'command.reject':
      return s;
    default: {
      if (!KNOWN_THREAD_EVENTS.has(ev.type)) return s;
      const id = threadIdOf(ev as ThreadEvent);
      const prev = s.byId[id] ?? emptyThread(id);
      const next = reduceThread(prev, ev as ThreadEvent);
      const meta =
        ev.type === 'thread.updated'
          ? ev.thread
          : ev.type === 'thread.snapshot'
            ? ev.snapshot.thread
            : null;
      return {
        ...s,
        byId: next === prev ? s.byId : { ...s.byId, [id]: next },
        threads: meta
          ? upsertMeta(s.threads, meta)
          : next.run && next.run !== prev.run
            ? withRunState(s.threads, id, next.run.state)
            : s.threads,
      };
    }
  }
}
