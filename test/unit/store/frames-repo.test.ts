import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store';
import { framesToPrune } from '../../../src/store/frame-budget';
import type { FrameRecord } from '../../../src/store/frames-repo';

const V3 = {
  threads: 'threadId, updatedAt',
  nodes: 'id, threadId, parentId, [threadId+seq]',
  runs: 'runId, threadId, state, [threadId+state]',
  approvals: 'approvalId, runId, threadId, status',
  interactions: 'interactionId, runId, threadId, status',
  receipts: 'key, createdAt',
  siteRules: 'origin',
  settings: 'key',
  credentials: 'id',
  keys: 'id',
  skills: 'name',
  workflows: 'workflowId, updatedAt',
  runEnvs: 'runId, threadId',
};

function frame(
  frameId: string,
  at: number,
  size: number,
  threadId = 'thr_1',
  runId = 'run_1',
): FrameRecord {
  return {
    v: 1,
    frameId,
    threadId,
    runId,
    toolCallId: `call_${frameId}`,
    tool: 'browser_click',
    at,
    summary: `Clicked ${frameId}`,
    mimeType: 'image/jpeg',
    width: 4,
    height: 3,
    bytes: new Uint8Array(size),
    size,
  };
}

const uniqueName = (p: string) => `${p}-${Math.random().toString(36).slice(2)}`;

describe('framesToPrune: a thread keeps its newest frames within its budget', () => {
  const f = (frameId: string, at: number, size: number) => ({ frameId, at, size });

  it.each([
    {
      name: 'under budget: nothing',
      frames: [f('a', 1, 4), f('b', 2, 4)],
      budget: 8,
      keep: 'b',
      out: [],
    },
    {
      name: 'over: the oldest first',
      frames: [f('b', 2, 4), f('a', 1, 4), f('c', 3, 4)],
      budget: 8,
      keep: 'c',
      out: ['a'],
    },
    {
      name: 'as many as it takes',
      frames: [f('a', 1, 4), f('b', 2, 4), f('c', 3, 4)],
      budget: 4,
      keep: 'c',
      out: ['a', 'b'],
    },
    {
      name: 'the frame just added stays, even alone over budget',
      frames: [f('a', 1, 4), f('b', 2, 9)],
      budget: 5,
      keep: 'b',
      out: ['a'],
    },
    {
      name: 'equal times: by id, stable',
      frames: [f('y', 1, 4), f('x', 1, 4), f('z', 2, 4)],
      budget: 4,
      keep: 'z',
      out: ['x', 'y'],
    },
  ])('$name', ({ frames, budget, keep, out }) => {
    expect(framesToPrune(frames, budget, keep)).toEqual(out);
  });
});

describe('frames table (schema v4)', () => {
  it('opening a v3 database keeps its data and adds the frames table', async () => {
    const name = uniqueName('keel-v3');
    const old = new Dexie(name);
    old.version(3).stores(V3);
    await old.table('threads').put({ v: 1, threadId: 'thr_1', title: 'Old', updatedAt: 5 });
    old.close();
    const store = Store.open(name);
    expect(await store.threads.get('thr_1')).toMatchObject({ title: 'Old' });
    expect(await store.frames.list('thr_1')).toEqual([]);
    expect(store.db.verno).toBe(4);
    store.close();
  });

  it('lists a thread’s frames oldest first, per run on request, with their bytes', async () => {
    const store = Store.open(uniqueName('keel-frames'));
    await store.frames.add(frame('b', 2, 10));
    await store.frames.add(frame('a', 1, 10, 'thr_1', 'run_0'));
    await store.frames.add(frame('z', 1, 10, 'thr_2'));
    const all = await store.frames.list('thr_1');
    expect(all.map((x) => x.frameId)).toEqual(['a', 'b']);
    expect(all[0].bytes).toBeInstanceOf(Uint8Array);
    expect(all[0].bytes.byteLength).toBe(10);
    expect((await store.frames.list('thr_1', 'run_1')).map((x) => x.frameId)).toEqual(['b']);
    expect(await store.frames.threadBytes('thr_1')).toBe(20);
    store.close();
  });

  it('adding past the budget prunes the oldest frames of that thread only', async () => {
    const store = Store.open(uniqueName('keel-frames'));
    await store.frames.add(frame('other', 0, 50, 'thr_2'), 100);
    for (let i = 1; i <= 5; i++) await store.frames.add(frame(`f${i}`, i, 30), 100);
    expect((await store.frames.list('thr_1')).map((x) => x.frameId)).toEqual(['f3', 'f4', 'f5']);
    const added = await store.frames.add(frame('f6', 6, 30), 100);
    expect(added).toEqual({ pruned: ['f3'], threadBytes: 90 });
    expect((await store.frames.list('thr_2')).map((x) => x.frameId)).toEqual(['other']);
    store.close();
  });

  it('deleting a thread’s recording leaves the others', async () => {
    const store = Store.open(uniqueName('keel-frames'));
    await store.frames.add(frame('a', 1, 10));
    await store.frames.add(frame('b', 1, 10, 'thr_2'));
    expect(await store.frames.deleteThread('thr_1')).toBe(1);
    expect(await store.frames.list('thr_1')).toEqual([]);
    expect(await store.frames.list('thr_2')).toHaveLength(1);
    store.close();
  });
});
