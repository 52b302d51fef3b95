import Dexie, { type DBCore, type DBCoreTransaction, type Middleware } from 'dexie';

/** A read-write transaction of this database, from its creation until it committed or aborted. */
interface TxState {
  /** Creation order. IndexedDB runs transactions with overlapping scopes in creation order. */
  readonly seq: number;
  /** Run when the transaction has committed, before anyone awaiting it resumes. */
  readonly onCommit: (() => void)[];
  /** Run when it aborted (nothing of it was stored). */
  readonly onAbort: (() => void)[];
}

/** A read-only transaction: what had been committed when it was created. */
interface ReadState {
  readonly seq: number;
  readonly committedAtStart: number;
}

/**
 * Tracks the database's transactions so that repositories can keep committed records in memory
 * (the committed caches of threads-repo.ts and runs-repo.ts) without ever serving a record that
 * IndexedDB would not have returned at that point:
 *
 * - a transaction's own writes are kept apart (`pending`) and join the committed cache only from
 *   its `complete` event, which this middleware hears before Dexie resolves the transaction (its
 *   listener is registered first), so no code awaiting the commit can see the cache without it;
 *   an aborted transaction's writes are dropped;
 * - a read may use the committed cache only when IndexedDB would return the same committed
 *   state: no read-write transaction created earlier is still unfinished (it runs first, so an
 *   IndexedDB read would see its writes), and for a read-only transaction, nothing was committed
 *   since it was created (it reads a snapshot).
 *
 * A new tracker (a new store, a restarted worker) starts with no cache at all.
 */
export class TxTracker {
  private seq = 0;
  private committed = 0;
  private readonly open = new Map<IDBTransaction, TxState>();
  private readonly reads = new WeakMap<IDBTransaction, ReadState>();

  /** The Dexie middleware that sees every transaction as it is created. */
  readonly middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'KeelTxTracker',
    level: -2,
    create: (down: DBCore) => ({
      ...down,
      transaction: (stores, mode, options): DBCoreTransaction => {
        const t = down.transaction(stores, mode, options);
        // Dexie's IndexedDB core hands out the IDBTransaction itself.
        this.track(t as unknown as IDBTransaction, mode);
        return t;
      },
    }),
  };

  private track(t: IDBTransaction, mode: string): void {
    const seq = ++this.seq;
    if (mode !== 'readwrite') {
      this.reads.set(t, { seq, committedAtStart: this.committed });
      return;
    }
    const state: TxState = { seq, onCommit: [], onAbort: [] };
    this.open.set(t, state);
    t.addEventListener('complete', () => {
      this.open.delete(t);
      this.committed += 1;
      for (const f of state.onCommit) f();
    });
    t.addEventListener('abort', () => {
      this.open.delete(t);
      for (const f of state.onAbort) f();
    });
  }

  /** The read-write transaction the caller runs in (Dexie's zone), if any. */
  current(): TxState | undefined {
    const t = Dexie.currentTransaction?.idbtrans as IDBTransaction | undefined;
    return t ? this.open.get(t) : undefined;
  }

  /** Whether a read here may be answered from committed records (see the class comment). */
  cacheUsable(): boolean {
    const t = Dexie.currentTransaction?.idbtrans as IDBTransaction | undefined;
    const rw = t ? this.open.get(t) : undefined;
    if (rw) {
      for (const s of this.open.values()) if (s.seq < rw.seq) return false;
      return true;
    }
    if (this.open.size) return false;
    if (!t) return true;
    const r = this.reads.get(t);
    return r !== undefined && r.committedAtStart === this.committed;
  }

  /** A counter that moves with every commit: a read from IndexedDB may fill the cache only if
   * nothing committed between its start and its result. */
  get commits(): number {
    return this.committed;
  }

  /** Whether any read-write transaction is unfinished (reads outside one go to IndexedDB). */
  get busy(): boolean {
    return this.open.size > 0;
  }

  /**
   * Abort every unfinished read-write transaction of this connection: what Chromium does when it
   * stops the worker that owns them (nothing of them is stored; their `abort` handlers drop their
   * pending writes). For the simulation's kill (test/sim); the extension never calls it. A
   * transaction already committing cannot be aborted and commits, as it may in Chromium.
   */
  abortOpen(): void {
    for (const t of [...this.open.keys()]) {
      try {
        t.abort();
      } catch {
        // InvalidStateError: it finished or is committing; it is no longer ours to stop.
      }
    }
  }
}

export type { TxState };
