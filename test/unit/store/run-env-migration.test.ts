import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store';

const V2 = {
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
};

function oldRun(runId: string, env?: object): Record<string, unknown> {
  return {
    v: 1,
    runId,
    threadId: 'thr_1',
    turnId: `turn-${runId}`,
    state: 'interrupted',
    createdAt: 1,
    updatedAt: 1,
    revision: 4,
    stepCursor: { modelCalls: 2, toolCalls: [], nextToolIndex: 0 },
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
    ...(env ? { env } : {}),
  };
}

describe('runEnvs table (schema v3)', () => {
  it('opening a v2 database moves each run snapshot beside its run and keeps everything else', async () => {
    const name = `keel-v2-${Math.random().toString(36).slice(2)}`;
    const env = { v: 1, systemPrompt: 'You are Keel.', toolCatalog: [{ name: 'todo' }] };
    const old = new Dexie(name);
    old.version(2).stores(V2);
    await old.table('runs').bulkPut([oldRun('run_1', env), oldRun('run_2')]);
    await old.table('threads').put({ v: 1, threadId: 'thr_1', title: 'Old', updatedAt: 5 });
    old.close();

    const store = Store.open(name);
    expect((await store.runs.get('run_1'))?.env).toEqual(env);
    expect((await store.runs.get('run_1'))?.revision).toBe(4);
    expect((await store.runs.get('run_2'))?.env).toBeUndefined();
    expect((await store.runs.unfinished()).map((r) => r.runId).sort()).toEqual(['run_1', 'run_2']);
    expect((await store.threads.get('thr_1'))?.title).toBe('Old');
    const runRows = (await store.rows('runs')) as Record<string, unknown>[];
    expect(runRows.map((r) => 'env' in r)).toEqual([false, false]);
    expect(await store.rows('runEnvs')).toEqual([{ v: 1, runId: 'run_1', threadId: 'thr_1', env }]);
    expect(store.db.verno).toBe(4);
    store.close();
  });
});
