import type { IdSource } from './types';

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
  const seen = new Set(usedInThread);
  return calls.map((c) => {
    let id = c.id?.trim();
    if (!id || seen.has(id)) id = ids.next('call');
    seen.add(id);
    return { ...c, id };
  });
}
