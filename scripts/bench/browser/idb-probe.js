/*
 * IndexedDB probe for the engine-step benchmark. Plain JavaScript on purpose: the same source is
 * evaluated in Node (over fake-indexeddb's globals) and, as a string, in the extension's service
 * worker, so no build step may rewrite it.
 *
 *   __keelIdbProbe.start(dbName)   record every transaction on `dbName` from now on: its mode,
 *                                  scope, durability and requests in order (writes with their
 *                                  values cloned at call time; reads with their query; cursors
 *                                  with how far they were advanced)
 *   __keelIdbProbe.stop()          end the recording (kept as `last`)
 *   __keelIdbProbe.summary()       counts of the recording
 *   __keelIdbProbe.replay(mode)    → ms. Opens a fresh database with the same schema, then runs
 *                                  the recorded transactions one after another as bare IndexedDB
 *                                  calls. mode 'full': every transaction with all its reads and
 *                                  writes; mode 'commits': only the read-write transactions and
 *                                  only their writes. Before the timed part it loads the rows the
 *                                  recorded reads found, so reads hit data as they did.
 *
 * A transaction is recognised from its first request rather than from IDBDatabase#transaction:
 * Dexie binds that method when the database opens, which in the worker happens before the probe
 * is installed. A transaction without any request is not recorded (it does no work).
 */
(function install() {
  if (globalThis.__keelIdbProbe) return;
  const StoreP = globalThis.IDBObjectStore.prototype;
  const IndexP = globalThis.IDBIndex.prototype;
  const CursorP = globalThis.IDBCursor.prototype;
  const KeyRange = globalThis.IDBKeyRange;
  // The write and cursor methods the probe replaces, as they are now on the prototypes.
  const methods = () => ({
    put: StoreP.put,
    add: StoreP.add,
    del: StoreP.delete,
    clear: StoreP.clear,
    cursorUpdate: CursorP.update,
    cursorDelete: CursorP.delete,
    cursorContinue: CursorP.continue,
    cursorAdvance: CursorP.advance,
  });
  const orig = methods();
  const READS = ['get', 'getAll', 'getAllKeys', 'getKey', 'count', 'openCursor', 'openKeyCursor'];
  const origReads = { store: {}, index: {} };
  for (const m of READS) {
    if (typeof StoreP[m] === 'function') origReads.store[m] = StoreP[m];
    if (typeof IndexP[m] === 'function') origReads.index[m] = IndexP[m];
  }

  let state = null; // { dbName, txns: [], byTx: WeakMap, byRequest: WeakMap }
  let replays = 0;
  const clone = (v) =>
    v === undefined
      ? undefined
      : typeof structuredClone === 'function'
        ? structuredClone(v)
        : JSON.parse(JSON.stringify(v));

  const recOf = (store) => {
    if (!state) return null;
    const tx = store && store.transaction;
    if (!tx) return null;
    let rec = state.byTx.get(tx);
    if (rec) return rec;
    if (!tx.db || tx.db.name !== state.dbName) return null;
    const durability = tx.durability && tx.durability !== 'default' ? tx.durability : undefined;
    rec = { mode: tx.mode, stores: Array.from(tx.objectStoreNames), durability, ops: [] };
    state.txns.push(rec);
    state.byTx.set(tx, rec);
    return rec;
  };
  const storeOfCursor = (cursor) => {
    const src = cursor.source;
    return src && src.objectStore ? src.objectStore : src;
  };
  const encodeQuery = (q) => {
    // getAll / getAllKeys options dictionary ({ query, count, direction }), newer IndexedDB
    if (
      q &&
      typeof q === 'object' &&
      !(q instanceof KeyRange) &&
      !Array.isArray(q) &&
      'query' in q &&
      !(q instanceof Date)
    ) {
      const { query, ...rest } = q;
      return { options: true, query: encodeQuery(query), rest: clone(rest) };
    }
    if (q instanceof KeyRange)
      return {
        range: true,
        lower: clone(q.lower),
        upper: clone(q.upper),
        lowerOpen: q.lowerOpen,
        upperOpen: q.upperOpen,
      };
    return q === undefined || q === null ? undefined : { key: clone(q) };
  };
  const decodeQuery = (q) => {
    if (!q) return undefined;
    if (q.options) return { ...q.rest, query: decodeQuery(q.query) };
    if (!q.range) return q.key;
    if (q.lower === undefined) return KeyRange.upperBound(q.upper, q.upperOpen);
    if (q.upper === undefined) return KeyRange.lowerBound(q.lower, q.lowerOpen);
    return KeyRange.bound(q.lower, q.upper, q.lowerOpen, q.upperOpen);
  };

  const write = (kind, fn) =>
    function (value, key) {
      const rec = recOf(this);
      if (rec) {
        const op = { kind, store: this.name };
        if (kind === 'put' || kind === 'add') {
          op.value = clone(value);
          if (key !== undefined) op.key = clone(key);
        } else if (kind === 'delete') op.query = encodeQuery(value);
        rec.ops.push(op);
      }
      return fn.apply(this, arguments);
    };
  StoreP.put = write('put', orig.put);
  StoreP.add = write('add', orig.add);
  StoreP.delete = write('delete', orig.del);
  StoreP.clear = write('clear', orig.clear);
  CursorP.update = function (value) {
    const store = storeOfCursor(this);
    const rec = recOf(store);
    if (rec) {
      const op = { kind: 'put', store: store.name, value: clone(value) };
      if (store.keyPath === null) op.key = clone(this.primaryKey);
      rec.ops.push(op);
    }
    return orig.cursorUpdate.apply(this, arguments);
  };
  CursorP.delete = function () {
    const store = storeOfCursor(this);
    const rec = recOf(store);
    if (rec)
      rec.ops.push({ kind: 'delete', store: store.name, query: { key: clone(this.primaryKey) } });
    return orig.cursorDelete.apply(this, arguments);
  };
  const stepCursor = (fn) =>
    function () {
      const op = state && this.request ? state.byRequest.get(this.request) : undefined;
      if (op) op.steps += 1;
      return fn.apply(this, arguments);
    };
  CursorP.continue = stepCursor(orig.cursorContinue);
  CursorP.advance = stepCursor(orig.cursorAdvance);
  for (const [target, proto] of [
    ['store', StoreP],
    ['index', IndexP],
  ]) {
    for (const m of Object.keys(origReads[target])) {
      const fn = origReads[target][m];
      proto[m] = function (query, extra) {
        const store = target === 'index' ? this.objectStore : this;
        const rec = recOf(store);
        const req = fn.apply(this, arguments);
        if (rec) {
          const op = {
            kind: 'read',
            target,
            method: m,
            store: store.name,
            query: encodeQuery(query),
          };
          if (target === 'index') op.index = this.name;
          if (extra !== undefined) op.extra = clone(extra);
          if (m === 'openCursor' || m === 'openKeyCursor') {
            op.steps = 0;
            state.byRequest.set(req, op);
          }
          rec.ops.push(op);
        }
        return req;
      };
    }
  }

  const request = (r) =>
    new Promise((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });

  async function schemaOf(dbName) {
    const db = await request(indexedDB.open(dbName));
    try {
      const names = Array.from(db.objectStoreNames);
      if (!names.length) return [];
      const tx = db.transaction(names, 'readonly');
      return names.map((name) => {
        const s = tx.objectStore(name);
        return {
          name,
          keyPath: s.keyPath,
          autoIncrement: s.autoIncrement,
          indexes: Array.from(s.indexNames).map((i) => {
            const ix = s.index(i);
            return { name: i, keyPath: ix.keyPath, unique: ix.unique, multiEntry: ix.multiEntry };
          }),
        };
      });
    } finally {
      db.close();
    }
  }

  /** The rows present before the recording that its reads found: loaded untimed before a replay. */
  async function seedOf(dbName, txns) {
    const wanted = new Map();
    for (const t of txns)
      for (const op of t.ops)
        if (op.kind === 'read' && op.target === 'store' && op.query && !op.query.range) {
          if (!wanted.has(op.store)) wanted.set(op.store, []);
          wanted.get(op.store).push(op.query.key);
        }
    if (!wanted.size) return [];
    const db = await request(indexedDB.open(dbName));
    try {
      const tx = db.transaction(Array.from(wanted.keys()), 'readonly');
      const rows = [];
      for (const [store, keys] of wanted) {
        for (const key of keys) {
          const v = await request(origReads.store.get.call(tx.objectStore(store), key));
          if (v !== undefined)
            rows.push({
              store,
              value: v,
              key: tx.objectStore(store).keyPath === null ? key : undefined,
            });
        }
      }
      return rows;
    } catch {
      return [];
    } finally {
      db.close();
    }
  }

  function runOp(tx, op, withReads) {
    const store = tx.objectStore(op.store);
    if (op.kind === 'put' || op.kind === 'add') {
      // add as put: the replay database may already hold the key from the seed
      if (op.key === undefined) return orig.put.call(store, op.value);
      return orig.put.call(store, op.value, op.key);
    }
    if (op.kind === 'delete') return orig.del.call(store, decodeQuery(op.query));
    if (op.kind === 'clear') return orig.clear.call(store);
    if (op.kind === 'read' && withReads) {
      const src = op.target === 'index' ? store.index(op.index) : store;
      const fn = origReads[op.target][op.method];
      let req;
      try {
        req =
          op.extra === undefined
            ? fn.call(src, decodeQuery(op.query))
            : fn.call(src, decodeQuery(op.query), op.extra);
      } catch (e) {
        throw new Error(`replay of ${JSON.stringify(op)} failed: ${e && e.message}`);
      }
      if (op.steps !== undefined) {
        let left = op.steps;
        req.onsuccess = () => {
          const c = req.result;
          if (c && left-- > 0) orig.cursorContinue.call(c);
        };
      }
    }
  }

  const patched = methods();
  /** The prototypes as they were before the probe (`on` false) or with its recorders (true). */
  function recorders(on) {
    const src = on ? patched : orig;
    StoreP.put = src.put;
    StoreP.add = src.add;
    StoreP.delete = src.del;
    StoreP.clear = src.clear;
    CursorP.update = src.cursorUpdate;
    CursorP.delete = src.cursorDelete;
    CursorP.continue = src.cursorContinue;
    CursorP.advance = src.cursorAdvance;
  }

  /** Dexie's schema string of one recorded store: primary key first, then its indexes. */
  function dexieSpec(s) {
    const path = (p) => (Array.isArray(p) ? `[${p.join('+')}]` : p);
    const primary =
      s.keyPath === null
        ? s.autoIncrement
          ? '++'
          : ''
        : (s.autoIncrement ? '++' : '') + path(s.keyPath);
    const indexes = s.indexes.map(
      (ix) => (ix.unique ? '&' : '') + (ix.multiEntry ? '*' : '') + path(ix.keyPath),
    );
    return [primary, ...indexes].join(',');
  }

  globalThis.__keelIdbProbe = {
    last: null,
    start(dbName) {
      state = { dbName, txns: [], byTx: new WeakMap(), byRequest: new WeakMap() };
    },
    async stop() {
      const s = state;
      state = null;
      if (!s) throw new Error('probe not started');
      const rec = { schema: await schemaOf(s.dbName), txns: s.txns };
      rec.seed = await seedOf(s.dbName, s.txns);
      this.last = rec;
      return true;
    },
    summary() {
      const r = this.last;
      const out = {
        readwriteTxns: 0,
        readonlyTxns: 0,
        writes: 0,
        writeBytes: 0,
        readsInReadwrite: 0,
        readsInReadonly: 0,
        cursorSteps: 0,
        byStore: {},
      };
      const per = (store) =>
        (out.byStore[store] = out.byStore[store] || { reads: 0, writes: 0, writeBytes: 0 });
      for (const t of r.txns) {
        const rw = t.mode === 'readwrite';
        if (rw) out.readwriteTxns++;
        else out.readonlyTxns++;
        for (const op of t.ops) {
          if (op.kind === 'read') {
            if (rw) out.readsInReadwrite++;
            else out.readsInReadonly++;
            out.cursorSteps += op.steps || 0;
            per(op.store).reads++;
          } else {
            const bytes = op.value !== undefined ? JSON.stringify(op.value).length : 0;
            out.writes++;
            out.writeBytes += bytes;
            per(op.store).writes++;
            per(op.store).writeBytes += bytes;
          }
        }
      }
      return out;
    },
    async replay(mode) {
      const rec = this.last;
      const full = mode === 'full';
      const name = `keel-bench-baseline-${Date.now()}-${++replays}`;
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        const db = open.result;
        for (const s of rec.schema) {
          const store = db.createObjectStore(s.name, {
            keyPath: s.keyPath,
            autoIncrement: s.autoIncrement,
          });
          for (const ix of s.indexes)
            store.createIndex(ix.name, ix.keyPath, {
              unique: ix.unique,
              multiEntry: ix.multiEntry,
            });
        }
      };
      const db = await request(open);
      const commit = (tx) =>
        new Promise((resolve, reject) => {
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
          tx.onabort = () => reject(tx.error || new Error('aborted'));
        });
      try {
        if (rec.seed.length) {
          const stores = Array.from(new Set(rec.seed.map((r) => r.store)));
          const tx = db.transaction(stores, 'readwrite');
          for (const r of rec.seed)
            r.key === undefined
              ? orig.put.call(tx.objectStore(r.store), r.value)
              : orig.put.call(tx.objectStore(r.store), r.value, r.key);
          await commit(tx);
        }
        const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
        const t0 = now();
        for (const t of rec.txns) {
          if (!full && t.mode !== 'readwrite') continue;
          const tx = t.durability
            ? db.transaction(t.stores, t.mode, { durability: t.durability })
            : db.transaction(t.stores, t.mode);
          const done = commit(tx);
          if (mode === 'awaited') {
            // Each write waits for its success before the next is issued (as an `await` per
            // write does), in the same transaction.
            for (const op of t.ops) {
              const req = runOp(tx, op, false);
              if (req) await request(req);
            }
          } else for (const op of t.ops) runOp(tx, op, full);
          await done;
        }
        return now() - t0;
      } finally {
        db.close();
        indexedDB.deleteDatabase(name);
      }
    },
    /**
     * → ms. The recorded read-write transactions and their writes (as 'commits' replays them),
     * through Dexie (`globalThis.Dexie`, loaded by the caller) the way Keel's repositories write:
     * each write awaited in turn inside `db.transaction('rw', …)`. What the chosen stack costs for
     * the same commits, before any engine code runs (informational).
     */
    async replayDexie(awaitEach = true) {
      const Dexie = globalThis.Dexie;
      if (typeof Dexie !== 'function')
        throw new Error('replayDexie: globalThis.Dexie is not loaded');
      const rec = this.last;
      const name = `keel-bench-dexie-${Date.now()}-${++replays}`;
      const db = new Dexie(name);
      // As Keel opens it (src/store/db.ts): without the live-query, cache and hooks layers.
      db.unuse({ stack: 'dbcore', name: 'Observability' });
      db.unuse({ stack: 'dbcore', name: 'Cache' });
      db.unuse({ stack: 'dbcore', name: 'HooksMiddleware' });
      db.version(1).stores(Object.fromEntries(rec.schema.map((s) => [s.name, dexieSpec(s)])));
      recorders(false);
      try {
        await db.open();
        const seed = rec.seed.filter((r) => r.key === undefined);
        if (seed.length)
          await db.transaction('rw', Array.from(new Set(seed.map((r) => r.store))), async () => {
            for (const r of seed) await db.table(r.store).put(r.value);
          });
        const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
        const t0 = now();
        for (const t of rec.txns) {
          if (t.mode !== 'readwrite') continue;
          await db.transaction('rw', t.stores, async () => {
            const issued = [];
            for (const op of t.ops) {
              const table = db.table(op.store);
              let p;
              if (op.kind === 'put' || op.kind === 'add')
                p = op.key === undefined ? table.put(op.value) : table.put(op.value, op.key);
              else if (op.kind === 'delete') {
                const q = decodeQuery(op.query);
                p =
                  q instanceof KeyRange
                    ? table
                        .where(':id')
                        .between(
                          q.lower === undefined ? Dexie.minKey : q.lower,
                          q.upper === undefined ? Dexie.maxKey : q.upper,
                          !q.lowerOpen,
                          !q.upperOpen,
                        )
                        .delete()
                    : table.delete(q);
              } else if (op.kind === 'clear') p = table.clear();
              if (!p) continue;
              if (awaitEach) await p;
              else issued.push(p);
            }
            await Promise.all(issued);
          });
        }
        return now() - t0;
      } finally {
        recorders(true);
        db.close();
        await Dexie.delete(name).catch(() => undefined);
      }
    },
  };
})();
