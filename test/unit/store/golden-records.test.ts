import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { Normalizer, expectGolden, runGoldenTurn } from '../protocol/golden';

describe('golden: persisted records after a turn with a tool call, an approval and a final answer', () => {
  it('freezes the thread, nodes, run (with its environment snapshot), approval and receipts (test/fixtures/golden/records-turn.json)', async () => {
    const { rig, threadId, runId, ops } = await runGoldenTurn();
    const { store } = rig;
    const thread = await store.threads.get(threadId);
    const nodes = (await store.threads.allNodes(threadId)).sort((a, b) => a.seq - b.seq);
    const runs = await store.runs.byThread(threadId);
    const approvals = await store.db.approvals.where('threadId').equals(threadId).toArray();
    const order = ops.map((o) => `${String(o.clientId)}\u0000${String(o.submissionId)}`);
    const receipts = (await store.db.receipts.toArray())
      .filter((r) => order.includes(r.key))
      .sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));

    // Contract checks the fixture alone would not make obvious.
    expect(runs.map((r) => r.runId)).toEqual([runId]);
    expect(receipts).toHaveLength(ops.length);
    for (const rec of [thread!, ...nodes, ...runs, ...approvals, ...receipts])
      expect(rec.v).toBe(1);
    expect(runs[0].env?.v).toBe(1);
    expect(runs[0].env?.toolCatalog.map((t) => t.name)).toEqual([
      'ask_user',
      'click',
      'load_tools',
      'request_takeover',
      'todo',
    ]);
    for (const t of runs[0].env!.toolCatalog) expect(t.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(approvals).toHaveLength(1);
    expect(approvals[0].digest).toMatch(/^[0-9a-f]{64}$/);
    expect(nodes.map((n) => n.seq)).toEqual(nodes.map((_, i) => i + 1));

    const norm = new Normalizer();
    expectGolden('records-turn', norm.normalize({ thread, nodes, runs, approvals, receipts }));
  });
});
