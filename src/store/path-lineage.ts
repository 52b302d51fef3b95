import type { NodeRecord } from './records';

/**
 * Where a path array handed out by the store came from, so that code keeping work per thread
 * between model calls (engine/path-memo.ts) can tell in O(1) that a new path begins with exactly
 * the nodes of an earlier one, instead of comparing the whole path each step.
 *
 * `lineage` is the store's kept path of one thread (an object it drops when it stops keeping
 * it); `version` changes whenever any element of that kept path is replaced or the path is
 * rebuilt, and not when nodes are appended. Two arrays with the same lineage and version are
 * therefore copies of the same append-only sequence, and the shorter is a prefix of the longer.
 * Deliberately free of Dexie: the engine's pure code imports it.
 */
export interface PathMark {
  readonly lineage: object;
  readonly version: number;
  readonly length: number;
}

const marks = new WeakMap<readonly NodeRecord[], PathMark>();

/** Called by a store for a path it hands out: a copy of its kept path at this version. */
export function markPath(path: readonly NodeRecord[], lineage: object, version: number): void {
  marks.set(path, { lineage, version, length: path.length });
}

/** The mark of `path`'s first `length` nodes (default: all), if the store marked it. */
export function pathMark(path: readonly NodeRecord[], length = path.length): PathMark | undefined {
  const m = marks.get(path);
  return m && length <= m.length ? { ...m, length } : undefined;
}

/**
 * true: `path` certainly begins with the nodes `before` marked; undefined: not known from the
 * marks (compare the nodes). Never false, so a missing or stale mark only costs the comparison.
 */
export function extendsMarked(
  path: readonly NodeRecord[],
  before: PathMark | undefined,
): true | undefined {
  const m = marks.get(path);
  // A marked array its holder has since grown or cut is no longer what was marked.
  return before &&
    m &&
    m.length === path.length &&
    m.lineage === before.lineage &&
    m.version === before.version &&
    m.length >= before.length
    ? true
    : undefined;
}
