import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Item } from '../../../src/protocol';
import { RECORD_VERSION, Store, type DexieStore, type RunRecord } from '../../../src/store/store';
import { ThreadsRepo } from '../../../src/store/threads-repo';

/**
 * Issue 17: the Dexie store keeps committed threads, nodes and runs in memory (committed-map.ts,
 * tx-tracker.ts). Every read must still see exactly what IndexedDB would return: each writer's
 * write is seen by the next read, an aborted transaction leaves nothing behind, a transaction
 * that runs after an unfinished writer sees that writer's data, and a new store starts empty.
 * Each test first reads the records, so that the cache holds them before the write under test.
 */

let n = 0;
const open: DexieStore[] = [];
function fresh(name = `cache-${++n}`): DexieStore {
  const s = Store.open(name);
  open.push(s);
  return s;
}
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const note = (id: string): Item => ({ kind: 'notice', id, createdAt: 1, code: 'c', text: id });

function run(runId: string, threadId: string): RunRecord {
  return {
    v: RECORD_VERSION,
    runId,
    threadId,
    turnId: `turn-${runId}`,
    state: 'streaming_model',
    createdAt: 1,
    updatedAt: 1,
    revision: 1,
    stepCursor: { modelCalls: 0, toolCalls: [], nextToolIndex: 0 },
    counters: {
      consecutiveToolFailures: 0,
      toolsDisabled: false,
      modelAttempts: 0,
      budgetBaseline: 0,
    },
    pendingSteers: [],
    nextSteerSeq: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
  };
}

/** A thread t with a chain a → b → c (leaf c), one run r, all read once (so all are cached). */
async function seeded(store: DexieStore) {
  await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
  let parent: string | null = null;
  for (const id of ['a', 'b', 'c']) {
    await store.threads.appendNode({ threadId: 't', parentId: parent, item: note(id) });
    parent = id;
  }
  await store.threads.update('t', (t) => void (t.leafId = 'c'));
  await store.runs.add(run('r', 't'));
  await warm(store);
}

async function warm(store: DexieStore) {
  await store.threads.get('t');
  await store.threads.path('t', 'c');
  for (const id of ['a', 'b', 'c']) await store.threads.getNode(id);
  await store.runs.get('r');
}

const ids = (nodes: { id: string }[]) => nodes.map((x) => x.id);
const textOf = (item: Item | undefined) => (item?.kind === 'notice' ? item.text : undefined);

describe('committed cache: every writer is seen by the next read', () => {
  it('thread put, update and delete', async () => {
    const store = fresh();
    await seeded(store);
    await store.threads.put({ ...(await store.threads.get('t'))!, title: 'put' });
    expect((await store.threads.get('t'))?.title).toBe('put');
    await store.threads.update('t', (t) => void (t.title = 'updated'));
    expect((await store.threads.get('t'))?.title).toBe('updated');
    await store.transaction(() => store.threads.update('t', (t) => void (t.title = 'in tx')));
    expect((await store.threads.get('t'))?.title).toBe('in tx');
    await store.threads.delete('t');
    expect(await store.threads.get('t')).toBeUndefined();
    expect(await store.threads.getNode('a')).toBeUndefined();
    expect(await store.threads.path('t', 'c')).toEqual([]);
  });

  it('appendNode, putNode and updateNodeItem, and the path over them', async () => {
    const store = fresh();
    await seeded(store);
    await store.threads.appendNode({ threadId: 't', parentId: 'c', item: note('d') });
    expect(ids(await store.threads.path('t', 'd'))).toEqual(['a', 'b', 'c', 'd']);
    await store.threads.updateNodeItem('b', (it) => void (it.kind === 'notice' && (it.text = 'B')));
    expect(textOf((await store.threads.getNode('b'))?.item)).toBe('B');
    expect(textOf((await store.threads.path('t', 'd'))[1].item)).toBe('B');
    // A branch: a sibling of c, then its path, then the old branch again.
    await store.threads.appendNode({ threadId: 't', parentId: 'b', item: note('c2') });
    expect(ids(await store.threads.path('t', 'c2'))).toEqual(['a', 'b', 'c2']);
    expect(ids(await store.threads.path('t', 'd'))).toEqual(['a', 'b', 'c', 'd']);
    // putNode re-parents c under c2 (a fork or an import writes whole nodes).
    const c = (await store.threads.getNode('c'))!;
    await store.threads.putNode({ ...c, parentId: 'c2' });
    expect(ids(await store.threads.path('t', 'd'))).toEqual(['a', 'b', 'c2', 'c', 'd']);
  });

  it('run add, update, delete and deleteByThread', async () => {
    const store = fresh();
    await seeded(store);
    await store.runs.update('r', (r) => void (r.state = 'executing_tool'));
    expect((await store.runs.get('r'))?.state).toBe('executing_tool');
    await store.transaction(() => store.runs.update('r', (r) => void (r.costUsd = 2)));
    expect((await store.runs.get('r'))?.costUsd).toBe(2);
    await store.runs.delete('r');
    expect(await store.runs.get('r')).toBeUndefined();
    await store.runs.add(run('r2', 't'));
    expect((await store.runs.get('r2'))?.state).toBe('streaming_model');
    await store.runs.deleteByThread('t');
    expect(await store.runs.get('r2')).toBeUndefined();
  });

  it('settings put and credential writes (what every model call reads)', async () => {
    const store = fresh();
    const s0 = await store.settings.get();
    s0.approvalMode = 'act';
    // The caller's copy is its own: changing it changes nothing stored or cached.
    expect((await store.settings.get()).approvalMode).toBe('ask');
    await store.settings.put(s0);
    expect((await store.settings.get()).approvalMode).toBe('act');
    await expect(
      store.transaction(async () => {
        await store.settings.put({ ...(await store.settings.get()), approvalMode: 'ask' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await store.settings.get()).approvalMode).toBe('act');
    expect(await store.credentials.stamp('k')).toBe(0);
    await store.credentials.setSecret('k', 'secret-1', 10);
    expect(await store.credentials.stamp('k')).toBe(10);
    await store.credentials.setSecret('k', 'secret-2', 20);
    expect(await store.credentials.stamp('k')).toBe(20);
    expect(await store.credentials.getSecret('k')).toBe('secret-2');
    await store.credentials.delete('k');
    expect(await store.credentials.stamp('k')).toBe(0);
  });

  it('a transaction sees its own writes before it commits', async () => {
    const store = fresh();
    await seeded(store);
    await store.transaction(async () => {
      await store.threads.update('t', (t) => void (t.title = 'mine'));
      expect((await store.threads.get('t'))?.title).toBe('mine');
      await store.threads.appendNode({ threadId: 't', parentId: 'c', item: note('d') });
      expect(ids(await store.threads.path('t', 'd'))).toEqual(['a', 'b', 'c', 'd']);
      await store.runs.update('r', (r) => void (r.costUsd = 5));
      expect((await store.runs.get('r'))?.costUsd).toBe(5);
    });
  });
});

describe('committed cache: only committed data', () => {
  it('an aborted transaction leaves every cached record and path as it was', async () => {
    const store = fresh();
    await seeded(store);
    const boom = new Error('boom');
    await expect(
      store.transaction(async () => {
        await store.threads.update('t', (t) => void (t.title = 'lost'));
        await store.threads.appendNode({ threadId: 't', parentId: 'c', item: note('d') });
        await store.threads.update('t', (t) => void (t.leafId = 'd'));
        await store.threads.updateNodeItem(
          'a',
          (it) => void (it.kind === 'notice' && (it.text = 'A')),
        );
        await store.runs.update('r', (r) => void (r.state = 'completed'));
        await store.threads.delete('t');
        throw boom;
      }),
    ).rejects.toBe(boom);
    const t = await store.threads.get('t');
    expect(t?.title).toBe('');
    expect(t?.leafId).toBe('c');
    expect(await store.threads.getNode('d')).toBeUndefined();
    expect(textOf((await store.threads.getNode('a'))?.item)).toBe('a');
    expect(ids(await store.threads.path('t', 'c'))).toEqual(['a', 'b', 'c']);
    expect((await store.runs.get('r'))?.state).toBe('streaming_model');
    // And IndexedDB agrees (a new store reads it afresh).
    const again = fresh(store.db.name);
    expect((await again.threads.get('t'))?.title).toBe('');
    expect((await again.runs.get('r'))?.state).toBe('streaming_model');
  });

  it('a failed write that the caller catches leaves nothing in the cache', async () => {
    const store = fresh();
    await seeded(store);
    await store.transaction(async () => {
      // Duplicate keys: the adds fail, the transaction goes on and commits.
      await expect(
        store.threads.appendNode({
          threadId: 't',
          parentId: 'c',
          item: { kind: 'notice', id: 'a', createdAt: 1, code: 'c', text: 'dup' },
        }),
      ).rejects.toThrow();
      await expect(store.runs.add({ ...run('r', 't'), state: 'failed' })).rejects.toThrow();
      expect((await store.runs.get('r'))?.state).toBe('streaming_model');
      await store.threads.update('t', (t) => void (t.title = 'kept'));
    });
    expect(textOf((await store.threads.getNode('a'))?.item)).toBe('a');
    expect((await store.threads.getNode('a'))?.parentId).toBeNull();
    expect(ids(await store.threads.path('t', 'c'))).toEqual(['a', 'b', 'c']);
    expect((await store.runs.get('r'))?.state).toBe('streaming_model');
    expect((await store.threads.get('t'))?.title).toBe('kept');
  });

  it('a transaction created after an unfinished writer reads that writer’s data', async () => {
    const store = fresh();
    await seeded(store);
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const first = store.transaction(async () => {
      await store.threads.update('t', (t) => void (t.title = 'first'));
      wrote();
      await store.runs.update('r', (r) => void (r.costUsd = 1));
      await store.threads.getNode('a');
    });
    const second = store.transaction(async () => ({
      title: (await store.threads.get('t'))?.title,
      cost: (await store.runs.get('r'))?.costUsd,
    }));
    // A read outside any transaction, made while the first one is open (not yet committed).
    await written;
    const outside = store.threads.get('t').then((t) => t?.title);
    await first;
    expect(await second).toEqual({ title: 'first', cost: 1 });
    expect(await outside).toBe('first');
  });

  it('records handed out from the cache cannot be changed by their reader', async () => {
    const store = fresh();
    await seeded(store);
    const t = (await store.threads.get('t'))!;
    expect(() => {
      (t as { title: string }).title = 'x';
    }).toThrow(TypeError);
    const r = (await store.runs.get('r'))!;
    expect(() => {
      r.counters.modelAttempts = 9;
    }).toThrow(TypeError);
    expect((await store.runs.get('r'))?.counters.modelAttempts).toBe(0);
  });

  it('a new store instance starts empty and reads from IndexedDB', async () => {
    const store = fresh();
    await seeded(store);
    store.close();
    // Changed at rest behind the repositories' back, as another worker's life would have left it.
    const raw = fresh(store.db.name);
    await raw.db.threads.update('t', { title: 'at rest' });
    await raw.db.nodes.update('b', { item: note('at rest') });
    await raw.db.runs.update('r', { state: 'completed' });
    raw.close();
    const next = fresh(store.db.name);
    expect((await next.threads.get('t'))?.title).toBe('at rest');
    expect(textOf((await next.threads.path('t', 'c'))[1].item)).toBe('at rest');
    expect((await next.runs.get('r'))?.state).toBe('completed');
  });

  it('a bounded cache starts over past its limit and still answers like IndexedDB', async () => {
    const store = fresh();
    const threads = new ThreadsRepo(store.db, { nodes: 3 });
    await threads.put(threads.newThread({ threadId: 'u', now: 1 }));
    let parent: string | null = null;
    const chain: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = `u${i}`;
      await threads.appendNode({ threadId: 'u', parentId: parent, item: note(id) });
      chain.push(id);
      parent = id;
      expect(ids(await threads.path('u', id))).toEqual(chain);
    }
    await threads.updateNodeItem('u2', (it) => void (it.kind === 'notice' && (it.text = 'U2')));
    expect(textOf((await threads.path('u', 'u7'))[2].item)).toBe('U2');
    await threads.delete('u');
    expect(await threads.path('u', 'u7')).toEqual([]);
    expect(await threads.getNode('u3')).toBeUndefined();
  });
});
