import type { NodeRecord } from '../../store/records';
import type { IdSource } from '../host/types';
import { pathMark, type PathMark } from '../../store/path-lineage';
import { startsWithSame, ThreadMemo } from '../context/path-memo';

/**
 * Providers sometimes send empty tool-call ids, or reuse one (some compatible servers number
 * calls "call_0" in every response). Ids must be unique in the thread before they are persisted,
 * or a later tool result would answer the wrong call.
 */
export function repairToolCallIds<T extends { id: string }>(
  calls: T[],
  usedInThread: ReadonlySet<string>,
  ids: IdSource,
): T[] {
  const seen = new Set<string>();
  return calls.map((c) => {
    let id = c.id?.trim();
    if (!id || seen.has(id) || usedInThread.has(id)) id = ids.next('call');
    seen.add(id);
    return { ...c, id };
  });
}

/** The call ids of a path's assistant messages, kept per thread for the path's next growth. */
const known = new ThreadMemo<{
  nodes: NodeRecord[];
  /** The store's mark of the path `nodes` copies, if it marked it (path-lineage.ts). */
  mark?: PathMark;
  ids: Set<string>;
}>();

/**
 * Every tool call id the assistant messages of `path` used. A path that extends the thread's
 * previous one by the same (frozen, so unchanged) nodes only adds the new nodes' ids, so a long
 * thread is not walked on every model call.
 */
export function callIdsOnPath(path: readonly NodeRecord[]): ReadonlySet<string> {
  const threadId = path[0]?.threadId;
  const k = known.get(threadId);
  const next =
    k && startsWithSame(path, k.nodes, k.mark) ? k : { nodes: [], ids: new Set<string>() };
  let frozen = true;
  for (let i = next.nodes.length; i < path.length; i++) {
    const n = path[i];
    if (n.item.kind === 'assistant_message')
      for (const c of n.item.toolCalls ?? []) next.ids.add(c.id);
    frozen &&= Object.isFrozen(n);
    if (frozen) next.nodes.push(n);
  }
  if (threadId !== undefined) {
    next.mark = pathMark(path, next.nodes.length);
    if (frozen) known.keep(threadId, next);
    else known.delete(threadId);
  }
  return next.ids;
}
