import Dexie, { type PromiseExtended } from 'dexie';
import { deepFreeze } from './deep-freeze';
import type { TxState, TxTracker } from './tx-tracker';

/** What a lookup found: a value (`undefined`: deleted by this transaction), or nothing known. */
export type Lookup<V> = { hit: true; value: V | undefined } | null;

/**
 * Records by key as the last committed transaction left them, plus each open transaction's own
 * writes (TxTracker decides when the committed ones may answer a read). Values are frozen: a
 * caller that wants to change one copies it first, so no caller can change the cache by accident.
 * Absence is never cached: a key not held is simply read from IndexedDB.
 */
export class CommittedMap<V extends object> {
  private readonly committed = new Map<string, V>();
  private readonly pending = new WeakMap<TxState, Map<string, V | undefined>>();

  constructor(
    private readonly tracker: TxTracker,
    /** Told about every committed write (indexes kept beside the map, e.g. a thread's path). */
    private readonly onApply?: (key: string, value: V | undefined, old: V | undefined) => void,
    /**
     * At most this many records are kept: past it the map starts over empty (and `onClear` drops
     * what was built from it), so a worker that works through many long threads stays bounded.
     */
    private readonly limit = 10_000,
    private readonly onClear?: () => void,
  ) {}

  /** The value a read here sees, if known without IndexedDB. */
  lookup(key: string): Lookup<V> {
    const tx = this.tracker.current();
    const own = tx ? this.pending.get(tx) : undefined;
    if (own?.has(key)) return { hit: true, value: own.get(key) };
    if (!this.tracker.cacheUsable()) return null;
    const v = this.committed.get(key);
    return v === undefined ? null : { hit: true, value: v };
  }

  /**
   * The value a read here sees: from the cache when it may answer, else from `load` (IndexedDB),
   * whose result joins the cache if it is committed state. A Dexie promise, so that a caller
   * inside a transaction stays in it.
   */
  read(key: string, load: () => PromiseExtended<V | undefined>): Promise<V | undefined> {
    const hit = this.lookup(key);
    if (hit) return Dexie.Promise.resolve(hit.value);
    const token = this.readToken();
    return load().then((v) => {
      if (v) this.fill(key, v, token);
      return v;
    });
  }

  /** The committed value, ignoring open transactions (for indexes maintained in `onApply`). */
  peekCommitted(key: string): V | undefined {
    return this.committed.get(key);
  }

  /** Whether the caller's transaction has written `key`. */
  writtenHere(key: string): boolean {
    const tx = this.tracker.current();
    return Boolean(tx && this.pending.get(tx)?.has(key));
  }

  /** Whether the caller's transaction has written anything here. */
  anyWrittenHere(): boolean {
    const tx = this.tracker.current();
    return Boolean(tx && this.pending.get(tx)?.size);
  }

  /**
   * Record a write (or, with `undefined`, a delete) made in the caller's read-write transaction:
   * it joins the committed records when that transaction commits, and is dropped if it aborts.
   * Outside a tracked transaction the key is forgotten instead (its next read goes to IndexedDB).
   */
  write(key: string, value: V | undefined): void {
    const tx = this.tracker.current();
    if (!tx) {
      this.forget(key);
      return;
    }
    let own = this.pending.get(tx);
    if (!own) {
      own = new Map();
      this.pending.set(tx, own);
      const writes = own;
      tx.onCommit.push(() => {
        for (const [k, v] of writes) this.apply(k, v);
      });
    }
    own.set(key, value === undefined ? undefined : deepFreeze(value));
  }

  /**
   * `write`, recorded before `request` (so that the transaction's next read sees it) and taken
   * back if the request fails: a caller that catches the error and commits must not leave a
   * record in the cache that IndexedDB never stored.
   */
  writeThrough<T>(
    key: string,
    value: V | undefined,
    request: () => PromiseLike<T>,
  ): PromiseLike<T> {
    const tx = this.tracker.current();
    const own = tx ? this.pending.get(tx) : undefined;
    const had = own?.has(key) ?? false;
    const before = own?.get(key);
    this.write(key, value);
    return request().then(undefined, (e: unknown) => {
      const mine = tx ? this.pending.get(tx) : undefined;
      if (had) mine?.set(key, before);
      else mine?.delete(key);
      throw e;
    });
  }

  /**
   * Start of a read from IndexedDB: returns what `fill` needs to know whether the result may
   * join the cache (only if it is committed state: see TxTracker).
   */
  readToken(): { usable: boolean; commits: number } {
    return { usable: this.tracker.cacheUsable(), commits: this.tracker.commits };
  }

  /** A record read from IndexedDB: cached if it is committed state (see `readToken`). */
  fill(key: string, value: V, token: { usable: boolean; commits: number }): void {
    if (!token.usable || token.commits !== this.tracker.commits || this.writtenHere(key)) return;
    if (this.committed.has(key)) return;
    const v = deepFreeze(value);
    this.committed.set(key, v);
    this.onApply?.(key, v, undefined);
    this.bound();
  }

  private bound(): void {
    if (this.committed.size <= this.limit) return;
    this.committed.clear();
    this.onClear?.();
  }

  /** Drop a key from the committed records (its next read goes to IndexedDB). */
  forget(key: string): void {
    const old = this.committed.get(key);
    if (old === undefined) return;
    this.committed.delete(key);
    this.onApply?.(key, undefined, old);
  }

  private apply(key: string, value: V | undefined): void {
    const old = this.committed.get(key);
    if (value === undefined) this.committed.delete(key);
    else this.committed.set(key, value);
    this.onApply?.(key, value, old);
    this.bound();
  }
}
