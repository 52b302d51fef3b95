import type {
  DBCore,
  DBCoreKeyRange,
  DBCoreMutateRequest,
  DBCoreTable,
  DBCoreTransaction,
  Middleware,
} from 'dexie';
import { indexedDB } from 'fake-indexeddb';
import { MemoryData } from '../../src/store/memory/tables';
import type { StoreTable } from '../../src/store/store-api';

/** A write as sent to IndexedDB, and which of its parts failed (those were not stored). */
interface Write {
  table: StoreTable;
  req: DBCoreMutateRequest;
  /** Values cloned when sent (IndexedDB clones them then; the caller may change its copy). */
  values: unknown[];
  keys: unknown[];
  failed: Set<number> | 'all';
}

/**
 * What IndexedDB has committed, kept in memory by the simulation (dexie mode) so that a check can
 * read it synchronously at an instant — when a turn.complete arrives, when a tool runs — as the
 * memory mode reads its MemoryData. A DBCore middleware just above IndexedDB records each
 * read-write transaction's writes and applies them here only from the transaction's `complete`
 * event (it is heard before Dexie or the store's own TxTracker hear it); an aborted transaction's
 * writes are dropped. So a write that is not yet committed is never visible here: a check reading
 * the mirror cannot pass because of data that is not durable yet.
 *
 * It is independent of the store's committed caches (the thing under test) and the simulation
 * compares it with a full read of IndexedDB after every step (run-history.ts), so a mistake in it
 * shows up as a violation rather than as a silently wrong check.
 *
 * It also counts the connection's unfinished transactions (`inFlight`), so that the settle loop
 * does not call the engine quiet while IndexedDB is still working for it.
 */
export class CommittedMirror {
  readonly data = new MemoryData();
  inFlight = 0;

  constructor(private readonly onActivity: () => void) {}

  /** A middleware for one connection (each session's store gets its own, over the same mirror). */
  middleware(): Middleware<DBCore> {
    return {
      stack: 'dbcore',
      name: 'SimCommittedMirror',
      // Below the store's TxTracker (-2): its `complete` listener runs first.
      level: -3,
      create: (down) => {
        const writes = new WeakMap<DBCoreTransaction, Write[]>();
        return {
          ...down,
          transaction: (stores, mode, options) => {
            const t = down.transaction(stores, mode, options);
            const idb = t as unknown as IDBTransaction;
            const own: Write[] = [];
            writes.set(t, own);
            this.inFlight += 1;
            this.onActivity();
            const end = (commit: boolean) => {
              this.inFlight -= 1;
              this.onActivity();
              if (commit) for (const w of own) this.apply(w);
            };
            idb.addEventListener('complete', () => end(true));
            idb.addEventListener('abort', () => end(false));
            return t;
          },
          table: (name) => {
            const table = down.table(name);
            return {
              ...table,
              mutate: (req) => {
                const w = this.record(table, name as StoreTable, req);
                writes.get(req.trans)?.push(w);
                this.onActivity();
                return table.mutate(req).then(
                  (res) => {
                    this.onActivity();
                    if (res.numFailures) w.failed = new Set(Object.keys(res.failures).map(Number));
                    return res;
                  },
                  (err) => {
                    this.onActivity();
                    w.failed = 'all';
                    throw err;
                  },
                );
              },
            };
          },
        };
      },
    };
  }

  private record(table: DBCoreTable, name: StoreTable, req: DBCoreMutateRequest): Write {
    if (req.type === 'add' || req.type === 'put') {
      const pk = table.schema.primaryKey;
      const values = req.values.map((v) => structuredClone(v));
      const keys = values.map((v, i) => req.keys?.[i] ?? pk.extractKey!(v));
      return { table: name, req, values, keys, failed: new Set() };
    }
    if (req.type === 'delete')
      return { table: name, req, values: [], keys: [...req.keys], failed: new Set() };
    return { table: name, req, values: [], keys: [], failed: new Set() };
  }

  private apply(w: Write): void {
    if (w.failed === 'all') return;
    const rows = this.data.table(w.table);
    const ok = (i: number) => !(w.failed as Set<number>).has(i);
    switch (w.req.type) {
      case 'add':
      case 'put':
        w.values.forEach((v, i) => {
          if (ok(i)) rows.set(w.keys[i] as string, v as Record<string, unknown>);
        });
        return;
      case 'delete':
        w.keys.forEach((k, i) => {
          if (ok(i)) rows.delete(k as string);
        });
        return;
      case 'deleteRange': {
        const range = w.req.range;
        for (const k of [...rows.keys()]) if (inRange(k, range)) rows.delete(k);
        return;
      }
    }
  }
}

/** Whether a primary key lies in a DBCore key range (Equal 1, Range 2, Any 3, Never 4). */
function inRange(key: string, r: DBCoreKeyRange): boolean {
  if (r.type === 4) return false;
  if (r.type === 3) return true;
  const cmp = (a: unknown, b: unknown) => indexedDB.cmp(a, b);
  if (r.lower !== undefined) {
    const c = cmp(key, r.lower);
    if (c < 0 || (c === 0 && r.lowerOpen)) return false;
  }
  if (r.upper !== undefined) {
    const c = cmp(key, r.upper);
    if (c > 0 || (c === 0 && r.upperOpen)) return false;
  }
  return true;
}
