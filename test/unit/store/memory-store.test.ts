import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/store/memory/store';

// What the in-memory store adds to the conformance suite: the IndexedDB behaviours the engine
// relies on that only show with concurrency or a worker going away.
describe('memory store: transactions', () => {
  const notice = (id: string) => ({
    kind: 'notice' as const,
    id,
    createdAt: 1,
    code: 'c',
    text: id,
  });

  it('a transaction inside another joins it (one rollback for both)', async () => {
    const store = new MemoryStore();
    await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
    await expect(
      store.transaction(async () => {
        await store.transaction(() => store.threads.update('t', (t) => void (t.title = 'inner')));
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect((await store.threads.get('t'))!.title).toBe('');
  });

  it('transactions are serialized: a read-modify-write never sees another one half done', async () => {
    const store = new MemoryStore();
    await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
    const bump = () =>
      store.transaction(async () => {
        const t = (await store.threads.get('t'))!;
        await store.threads.getNode('nothing'); // another await between the read and the write
        await store.threads.put({ ...t, costUsd: t.costUsd + 1 });
      });
    await Promise.all(Array.from({ length: 20 }, bump));
    expect((await store.threads.get('t'))!.costUsd).toBe(20);
  });

  it('records are copies: mutating what a read returned changes nothing stored', async () => {
    const store = new MemoryStore();
    await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
    const t = (await store.threads.get('t'))!;
    t.title = 'mutated';
    t.todos.push({ id: 'x', text: 'x', status: 'pending' });
    expect(await store.threads.get('t')).toMatchObject({ title: '', todos: [] });
  });

  it('closing a store aborts its unfinished transaction, and a new store over the data goes on', async () => {
    const store = new MemoryStore();
    await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
    let stuck!: () => void;
    const dying = store.transaction(async () => {
      await store.threads.appendNode({ threadId: 't', parentId: null, item: notice('half') });
      await new Promise<void>((r) => (stuck = r)); // the worker dies here
      await store.threads.appendNode({ threadId: 't', parentId: 'half', item: notice('never') });
    });
    await new Promise((r) => setImmediate(r));
    store.close();
    const next = new MemoryStore(store.data);
    expect(await next.threads.allNodes('t')).toEqual([]);
    await next.threads.appendNode({ threadId: 't', parentId: null, item: notice('after') });
    stuck();
    await expect(dying).rejects.toThrow(/closed/);
    expect((await next.threads.allNodes('t')).map((n) => n.id)).toEqual(['after']);
    await expect(store.threads.get('t')).rejects.toThrow(/closed/);
  });
});
