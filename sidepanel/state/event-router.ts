import type { AgentEvent, Item, PublicSettings } from '../../src/protocol';
import { reduceEngine, type EngineState } from './app-state';
import type { ExternalStore } from './external-store';
import type { LiveItems } from './live-items';

/** What routing an event may touch. */
export interface RouteContext {
  engine: ExternalStore<EngineState>;
  live: LiveItems;
  onSettings: (settings: PublicSettings) => void;
  afterInitialized: () => void;
  onThreadDeleted: (threadId: string) => void;
}

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

const TERMINAL_TOOL_STATES = ['result', 'rejected', 'invalid'];

function isStreamable(item: Item): boolean {
  return (
    item.kind === 'assistant_message' ||
    (item.kind === 'tool_call' && !TERMINAL_TOOL_STATES.includes(item.state))
  );
}

/**
 * One engine event → the stores. Committed state goes through the pure reducers (app-state,
 * thread-reducer); streaming text goes to LiveItems only, so a delta never touches the thread.
 */
export function routeEvent(ev: AgentEvent, ctx: RouteContext): void {
  const reduce = (e: AgentEvent) => ctx.engine.update((s) => reduceEngine(s, e));
  switch (ev.type) {
    case 'initialized':
      // Events are not replayed across reconnects: the snapshot replaces every partial stream.
      ctx.live.reset();
      reduce(ev);
      ctx.onSettings(ev.settings);
      ctx.afterInitialized();
      return;
    case 'item.start':
      if (isStreamable(ev.item)) ctx.live.begin(ev.item);
      reduce(ev);
      return;
    case 'item.delta':
      if (!ctx.live.isStreaming(ev.itemId) && (ev.delta.text || ev.delta.thinking))
        adoptUnknownStream(ev, ctx);
      ctx.live.applyDelta(ev.itemId, ev.delta);
      return;
    case 'item.updated':
      reduce(ev);
      if (ev.item.kind === 'tool_call' && TERMINAL_TOOL_STATES.includes(ev.item.state))
        ctx.live.end(ev.item.id);
      return;
    case 'item.complete':
      reduce(ev);
      ctx.live.end(ev.item.id);
      return;
    case 'item.discarded':
      // A failed or interrupted attempt: its partial text goes away (a retry streams anew).
      ctx.live.end(ev.itemId);
      reduce(ev);
      return;
    case 'thread.snapshot':
      reduce(keepStreamingItems(ctx, ev));
      return;
    case 'thread.deleted':
      reduce(ev);
      ctx.onThreadDeleted(ev.threadId);
      return;
    case 'settings.updated':
      reduce(ev);
      ctx.onSettings(ev.settings);
      return;
    default:
      reduce(ev);
  }
}

/**
 * A text delta for an item with no live entry: we connected or subscribed mid-stream and missed
 * its item.start. Start it from what the path has (if anything), or as a new assistant message.
 */
function adoptUnknownStream(ev: EventOf<'item.delta'>, ctx: RouteContext): void {
  const known = ctx.engine.get().byId[ev.threadId]?.path.find((i) => i.id === ev.itemId);
  if (known) {
    ctx.live.begin(known);
    return;
  }
  const item: Item = {
    id: ev.itemId,
    kind: 'assistant_message',
    createdAt: Date.now(),
    text: '',
    providerStopReason: 'end',
  };
  ctx.live.begin(item);
  ctx.engine.update((s) =>
    reduceEngine(s, { type: 'item.start', threadId: ev.threadId, turnId: '', item }),
  );
}

/** A snapshot never holds a message still streaming: keep those at the end until they complete. */
function keepStreamingItems(ctx: RouteContext, ev: EventOf<'thread.snapshot'>): AgentEvent {
  const prev = ctx.engine.get().byId[ev.snapshot.thread.threadId];
  if (!prev) return ev;
  const ids = new Set(ev.snapshot.path.map((i) => i.id));
  const streaming = prev.path.filter((i) => !ids.has(i.id) && ctx.live.isStreaming(i.id));
  if (streaming.length === 0) return ev;
  return { ...ev, snapshot: { ...ev.snapshot, path: [...ev.snapshot.path, ...streaming] } };
}
