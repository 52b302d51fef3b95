import { isDeepStrictEqual } from 'node:util';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { MemoryStore } from '../../src/store/memory/store';
import { MemoryData } from '../../src/store/memory/tables';
import { type DexieStore, KeelDB, Store } from '../../src/store/store';
import type { StoreApi, StoreTable } from '../../src/store/store-api';
import { CommittedMirror } from './committed-mirror';

/** Which store a simulated history runs on. */
export type SimStoreMode = 'memory' | 'dexie';

export const SIM_STORE_MODES: readonly SimStoreMode[] = ['memory', 'dexie'];

/**
 * The store a history runs on, outliving the engines (the database a restarted worker reopens).
 * Contracts:
 * - `open` gives each engine session a store of its own over the same data, with empty caches;
 * - `kill` is a worker stop, called at the instant of the kill: the store's unfinished
 *   transactions abort (nothing of them is stored) and it serves nothing any more;
 * - `committed` is what is durably stored at this instant, read synchronously;
 * - `view` reads what is stored now, between steps (what the invariants check), with `drift`: how
 *   it differs from `committed` (a self-check of the harness; '' when they agree).
 */
export interface SimStore {
  readonly mode: SimStoreMode;
  open(): StoreApi;
  kill(store: StoreApi): void;
  committed(store: StoreApi): MemoryData;
  view(store: StoreApi): Promise<StoredView>;
  /** The history is over: close and forget everything. */
  dispose(): Promise<void>;
  /** Unfinished IndexedDB work (transactions, the connection opening): the engine is not quiet. */
  readonly busy: boolean;
}

/** The stored data as the invariants read it (test/sim/invariants.ts). */
export interface StoredView {
  readonly data: MemoryData;
  /** Every row of a table, as `StoreApi.rows` gives it. */
  rows(table: StoreTable): Promise<unknown[]>;
  readonly drift: string;
}

/**
 * The in-memory store: the sessions share one MemoryData. MemoryData applies a running
 * transaction's writes in place (keeping an undo log), so what is committed at an instant is that
 * data minus the running transaction's writes: `committed` and `view` give exactly that (a copy
 * with the undo log applied), so that a check reading at an instant never sees a write before it
 * commits. A kill closes the killed session's store at once, as the dexie mode does: closing rolls
 * back its unfinished transaction, so a kill inside a transaction stores nothing of it.
 */
class MemorySimStore implements SimStore {
  readonly mode = 'memory';
  readonly busy = false;
  private readonly data = new MemoryData();

  open(): StoreApi {
    return new MemoryStore(this.data);
  }
  kill(store: StoreApi): void {
    store.close();
  }
  committed(): MemoryData {
    return committedView(this.data);
  }
  async view(): Promise<StoredView> {
    const data = committedView(this.data);
    return { data, rows: async (t) => [...data.table(t).values()], drift: '' };
  }
  async dispose(): Promise<void> {}
}

/**
 * What is committed in `data` at this instant: its tables with the running transaction's writes
 * undone (transactions over one MemoryData are serialized, so at most one is running). With no
 * transaction running, `data` itself; else a copy of the table maps (the rows are shared: the
 * checks never change them).
 */
export function committedView(data: MemoryData): MemoryData {
  const tx = data.active;
  if (!tx || tx.done) return data;
  const out = new MemoryData();
  for (const [name, rows] of data.tables) out.tables.set(name, new Map(rows));
  for (const [name, saved] of tx.undo) {
    const rows = out.table(name as StoreTable);
    for (const [key, prev] of saved) {
      if (prev === undefined) rows.delete(key);
      else rows.set(key, prev);
    }
  }
  return out;
}

let databases = 0;
/**
 * fake-indexeddb handed to Dexie explicitly: the engine's modules load Dexie before this file, so
 * Dexie's default (the global `indexedDB` at its load) would not be the fake one.
 */
const FAKE_IDB = { indexedDB, IDBKeyRange };

/**
 * The Dexie store over fake-indexeddb, one database per history. Each session opens a fresh
 * `Store` (a new connection, empty committed caches) on the database's name; the checks read it
 * through a connection of their own (never the engine's, whose caches are under test).
 */
class DexieSimStore implements SimStore {
  readonly mode = 'dexie';
  private readonly name = `keel-sim-${++databases}`;
  private readonly mirror: CommittedMirror;
  private readonly stores: DexieStore[] = [];
  private inspector: KeelDB | null = null;
  private opening = 0;

  constructor(onActivity: () => void) {
    this.mirror = new CommittedMirror(onActivity);
  }

  get busy(): boolean {
    return this.opening > 0 || this.mirror.inFlight > 0;
  }

  open(): StoreApi {
    const store = Store.open(this.name, FAKE_IDB);
    store.db.use(this.mirror.middleware());
    this.stores.push(store);
    // Opened now (not on its first request), so that the settle loop waits for it.
    this.opening += 1;
    void store.db.open().then(
      () => (this.opening -= 1),
      () => (this.opening -= 1),
    );
    return store;
  }

  kill(store: StoreApi): void {
    const db = (store as DexieStore).db;
    // Synchronously, at the kill: fake-indexeddb would otherwise commit a transaction whose
    // callback awaits forever (no request pending), storing half a step; Chromium aborts it.
    db.tracker.abortOpen();
    db.close();
  }

  committed(): MemoryData {
    return this.mirror.data;
  }

  async view(): Promise<StoredView> {
    const data = await this.snapshot();
    return {
      data,
      rows: async (t) => [...data.table(t).values()],
      drift: this.drift(data),
    };
  }

  /** Every table, read in one read-only transaction (a consistent view of what is stored). */
  private async snapshot(): Promise<MemoryData> {
    if (!this.inspector) {
      this.inspector = new KeelDB(this.name, FAKE_IDB);
      await this.inspector.open();
    }
    const db = this.inspector;
    const out = new MemoryData();
    await db.transaction('r', db.tables, async () => {
      for (const t of db.tables) {
        const key = t.schema.primKey.keyPath as string;
        const rows = out.table(t.name as StoreTable);
        for (const row of await t.toArray()) rows.set(row[key], row);
      }
    });
    return out;
  }

  private drift(snapshot: MemoryData): string {
    const names = new Set([...snapshot.tables.keys(), ...this.mirror.data.tables.keys()]);
    for (const name of names) {
      const a = snapshot.table(name);
      const b = this.mirror.data.table(name);
      for (const k of new Set([...a.keys(), ...b.keys()]))
        if (!isDeepStrictEqual(a.get(k), b.get(k)))
          return `harness: the committed mirror differs from IndexedDB at ${name}/${k}`;
    }
    return '';
  }

  async dispose(): Promise<void> {
    for (const s of this.stores) s.db.close();
    this.inspector?.close();
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase(this.name);
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    });
  }
}

export function openSimStore(mode: SimStoreMode, onActivity: () => void): SimStore {
  return mode === 'dexie' ? new DexieSimStore(onActivity) : new MemorySimStore();
}
