import { extendsMarked, type PathMark } from '../../store/path-lineage';
import type { NodeRecord } from '../../store/records';

/**
 * Work kept per thread between model calls (the context build, the used call ids), so that a
 * path that only grew costs its new nodes, not the whole thread. The store hands out frozen
 * records and a changed node as a new object, so "the same objects in the same places" means
 * "none of them changed since".
 */

/**
 * Whether `path` begins with exactly the objects of `prefix` (frozen: unchanged since).
 * `prefixMark` is the store's mark of the path `prefix` was taken from (path-lineage.ts): when
 * `path` is a later copy of the same kept path with only appends since, the answer is known
 * without comparing the nodes, so a long thread's step does not walk the whole path for it.
 */
export function startsWithSame(
  path: readonly NodeRecord[],
  prefix: readonly NodeRecord[],
  prefixMark?: PathMark,
): boolean {
  if (prefix.length > path.length) return false;
  const last = prefix.length - 1;
  if (
    prefixMark?.length === prefix.length &&
    extendsMarked(path, prefixMark) &&
    // Cheap guards against an array changed in place after it was marked.
    (last < 0 || (path[0] === prefix[0] && path[last] === prefix[last]))
  )
    return true;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

/** A small map by thread id that drops the least recently kept thread past `max`. */
export class ThreadMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max = 16) {}

  get(threadId: string | undefined): V | undefined {
    return threadId === undefined ? undefined : this.entries.get(threadId);
  }

  keep(threadId: string, value: V): void {
    this.entries.delete(threadId);
    this.entries.set(threadId, value);
    if (this.entries.size > this.max)
      this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(threadId: string): void {
    this.entries.delete(threadId);
  }
}
