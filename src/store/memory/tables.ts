import { AsyncLocalStorage } from 'node:async_hooks';
import type { StoreTable } from '../store-api';

/**
 * The data and the transaction machinery of the in-memory store (Node only: tests and the
 * simulation). It mirrors what IndexedDB gives the Dexie store, because the engine relies on it:
 * - records are structured-cloned in and out, so a caller's copy never aliases the stored one;
 * - read-write transactions over the store are serialized (a lock per data set, shared by every
 *   store opened over it), and a single operation outside a transaction waits its turn too;
 * - a transaction that throws rolls back every write it made (an undo log);
 * - a transaction started inside another (same async context) joins it;
 * - closing a store whose transaction never finished (the worker died mid-step) aborts that
 *   transaction, as IndexedDB does when the page that owns it goes away.
 * Everything settles in microtasks: no timers, so a simulation over it is deterministic.
 */
export type Row = Record<string, unknown>;

interface Tx {
  readonly data: MemoryData;
  readonly owner: object;
  readonly undo: Map<string, Map<string, Row | undefined>>;
  done: boolean;
}

export class StoreClosedError extends Error {
  constructor() {
    super('The store is closed.');
    this.name = 'StoreClosedError';
  }
}

export class ConstraintError extends Error {
  constructor(table: string, key: string) {
    super(`Key ${key} already exists in ${table}.`);
    this.name = 'ConstraintError';
  }
}

const context = new AsyncLocalStorage<Tx>();

/** One named database: its tables and its lock. */
export class MemoryData {
  readonly tables = new Map<StoreTable, Map<string, Row>>();
  /** The tail of the queue of transactions waiting for the lock. */
  tail: Promise<void> = Promise.resolve();
  active: Tx | null = null;

  table(name: StoreTable): Map<string, Row> {
    let t = this.tables.get(name);
    if (!t) this.tables.set(name, (t = new Map()));
    return t;
  }
}

/**
 * A structured clone of stored data. Records are plain data (objects, arrays, primitives, bytes),
 * which this copies several times faster than `structuredClone`; a key is shared (CryptoKeys are
 * immutable), anything else falls back to `structuredClone`.
 */
function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) out[k] = clone((value as Record<string, unknown>)[k]);
    return out as T;
  }
  if (value instanceof CryptoKey) return value;
  return structuredClone(value);
}

/**
 * Access to a data set on behalf of one store instance: what the repositories call. `run` executes
 * a synchronous body inside the caller's transaction, or as its own one-operation transaction.
 */
export class MemoryAccess {
  closed = false;

  constructor(readonly data: MemoryData) {}

  private current(): Tx | undefined {
    const tx = context.getStore();
    return tx && tx.data === this.data && !tx.done ? tx : undefined;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    if (this.current()) return fn();
    return new Promise<T>((resolve, reject) => {
      const start = async (): Promise<void> => {
        if (this.closed) return reject(new StoreClosedError());
        const tx: Tx = { data: this.data, owner: this, undo: new Map(), done: false };
        this.data.active = tx;
        try {
          const value = await context.run(tx, fn);
          if (tx.done) throw new StoreClosedError(); // aborted by close() while it ran
          resolve(value);
        } catch (err) {
          if (!tx.done) this.rollback(tx);
          reject(err);
        } finally {
          tx.done = true;
          if (this.data.active === tx) this.data.active = null;
        }
      };
      const queued = this.data.tail.then(start);
      this.data.tail = queued;
    });
  }

  /** Run a synchronous operation inside the current transaction, or as its own. */
  run<T>(body: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    if (this.current()) {
      try {
        return Promise.resolve(body());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.transaction(async () => body());
  }

  private rollback(tx: Tx): void {
    for (const [name, saved] of tx.undo) {
      const table = this.data.table(name as StoreTable);
      for (const [key, prev] of saved) {
        if (prev === undefined) table.delete(key);
        else table.set(key, prev);
      }
    }
    tx.undo.clear();
  }

  /** The store instance goes away: a transaction of its own still running is aborted. */
  close(): void {
    this.closed = true;
    const tx = this.data.active;
    if (tx && tx.owner === this && !tx.done) {
      this.rollback(tx);
      tx.done = true;
      this.data.active = null;
      // Let the queue move on: the aborted transaction's body may never settle.
      this.data.tail = Promise.resolve();
    }
  }

  private remember(name: StoreTable, key: string): void {
    const tx = this.current();
    if (!tx) throw new Error('memory store: write outside a transaction');
    let saved = tx.undo.get(name);
    if (!saved) tx.undo.set(name, (saved = new Map()));
    if (!saved.has(key)) saved.set(key, this.data.table(name).get(key));
  }

  // ---- synchronous table operations (call only inside `run` / `transaction`) ----------------

  get<T>(name: StoreTable, key: string): T | undefined {
    const row = this.data.table(name).get(key);
    return row === undefined ? undefined : (clone(row) as T);
  }

  /** Rows matching `pred`, in primary-key order (as an IndexedDB index scan returns them). */
  select<T>(name: StoreTable, pred: (row: T) => boolean = () => true): T[] {
    const out: T[] = [];
    for (const key of [...this.data.table(name).keys()].sort(compareKeys)) {
      const row = this.data.table(name).get(key) as T;
      if (pred(row)) out.push(clone(row));
    }
    return out;
  }

  put(name: StoreTable, key: string, row: object): void {
    this.remember(name, key);
    this.data.table(name).set(key, clone(row) as Row);
  }

  add(name: StoreTable, key: string, row: object): void {
    if (this.data.table(name).has(key)) throw new ConstraintError(name, key);
    this.put(name, key, row);
  }

  delete(name: StoreTable, key: string): boolean {
    if (!this.data.table(name).has(key)) return false;
    this.remember(name, key);
    this.data.table(name).delete(key);
    return true;
  }

  /** Delete every row matching `pred`; returns how many. */
  deleteWhere<T>(name: StoreTable, pred: (row: T) => boolean): number {
    let n = 0;
    for (const [key, row] of [...this.data.table(name)]) {
      if (pred(row as T) && this.delete(name, key)) n += 1;
    }
    return n;
  }
}

/** IndexedDB orders string keys by code unit, as `<` does. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
