import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store';
import type { WorkflowRecord } from '../../../src/store/records';

const V1 = {
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
};

function wf(id: string, updatedAt: number): WorkflowRecord {
  return {
    v: 1,
    workflowId: id,
    name: id,
    createdAt: 1,
    updatedAt,
    source: { threadId: 't', turnId: 'u' },
    definition: {
      v: 1,
      task: 'x',
      steps: [{ tool: 'browser_navigate', params: { url: 'https://a.example/' }, summary: 'Go' }],
      inputs: [],
      check: { texts: [] },
    },
    schedule: null,
  };
}

describe('workflows table (schema v2)', () => {
  it('opening a v1 database keeps its data and adds the workflows table', async () => {
    const name = `keel-v1-${Math.random().toString(36).slice(2)}`;
    const old = new Dexie(name);
    old.version(1).stores(V1);
    await old.table('threads').put({ v: 1, threadId: 'thr_1', title: 'Old', updatedAt: 5 });
    await old
      .table('skills')
      .put({ v: 1, name: 'pdf', description: 'd', body: 'b', createdAt: 1, updatedAt: 1 });
    old.close();
    const store = Store.open(name);
    expect(await store.threads.get('thr_1')).toMatchObject({ title: 'Old' });
    expect(await store.skills.get('pdf')).toMatchObject({ body: 'b' });
    expect(await store.workflows.list()).toEqual([]);
    await store.transaction(() => store.workflows.put(wf('wf_1', 2)));
    expect(store.db.verno).toBe(4);
    store.close();
  });

  it('list is newest first; update is read-modify-write; remove says whether it existed', async () => {
    const store = Store.open(`keel-wf-${Math.random().toString(36).slice(2)}`);
    await store.workflows.put(wf('a', 1));
    await store.workflows.put(wf('b', 3));
    await store.workflows.put(wf('c', 2));
    expect((await store.workflows.list()).map((w) => w.workflowId)).toEqual(['b', 'c', 'a']);
    expect(
      await store.workflows.update('a', (w) => ({ ...w, name: 'A', updatedAt: 9 })),
    ).toMatchObject({ name: 'A' });
    expect(await store.workflows.update('zz', (w) => w)).toBeUndefined();
    expect((await store.workflows.list())[0].workflowId).toBe('a');
    expect(await store.workflows.remove('a')).toBe(true);
    expect(await store.workflows.remove('a')).toBe(false);
    expect(await store.workflows.get('a')).toBeUndefined();
  });
});
