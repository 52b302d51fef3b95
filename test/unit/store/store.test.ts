import 'fake-indexeddb/auto';
import { MemoryStore } from '../../../src/store/memory/store';
import { DexieStore, Store } from '../../../src/store/store';
import { storeConformance } from './store-conformance';

// The Dexie store over fake-indexeddb (a fresh database name per test). The same suite runs in the
// real browser's IndexedDB through the protocol in test/e2e/conformance.test.ts.
storeConformance(
  'Dexie on fake-indexeddb',
  (name) => Store.open(name),
  async (store, table, row) => {
    if (!(store instanceof DexieStore)) throw new Error('not a Dexie store');
    await store.db.table(table).put(row);
  },
);

// The in-memory store the simulation runs on: the same contract, no IndexedDB.
storeConformance(
  'in memory',
  (name) => MemoryStore.open(name),
  async (store, table, row) => {
    if (!(store instanceof MemoryStore)) throw new Error('not a memory store');
    store.data
      .table(table)
      .set((row as { id?: string }).id ?? '', structuredClone(row) as Record<string, unknown>);
  },
);
