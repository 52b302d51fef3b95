import { afterEach, describe, expect, it } from 'vitest';
import type { Item, RunState } from '../../../src/protocol';
import {
  CURRENT_RUN_STATES,
  RECORD_VERSION,
  defaultSettings,
  type ApprovalRecord,
  type CredentialRecord,
  type KeyRecord,
  type InteractionRecord,
  type NodeRecord,
  type RunEnvironmentSnapshot,
  type RunRecord,
  type Store,
  type StoreTable,
} from '../../../src/store/store';
import { ReceiptsRepo } from '../../../src/store/receipts-repo';

/**
 * One storage conformance suite (STYLE.md §5): every Store implementation must pass it. It pins
 * each repository's contract as the engine relies on it, the atomicity of `store.transaction`,
 * and the schema version on every record. `open` returns a fresh, empty store each call.
 * Raw reads (`store.rows`, and `rawPut` to tamper) are used only where the contract is about what is stored at rest
 * (credentials are encrypted, records carry `v`).
 *
 * `open(name)` opens the store named `name`: a new name is a new, empty store; the same name
 * again opens the same data (a service-worker restart).
 */
export type OpenStore = (name: string) => Store;

/** Writes a row as is, bypassing the repositories (to tamper with what is stored at rest). */
export type RawPut = (store: Store, table: StoreTable, row: object) => Promise<void>;

let storeCounter = 0;

// ---- record builders -------------------------------------------------------------------------

const notice = (id: string, createdAt = 1): Item => ({
  kind: 'notice',
  id,
  createdAt,
  code: 'c',
  text: id,
});

function runRecord(fields: Partial<RunRecord> & { runId: string; threadId: string }): RunRecord {
  return {
    v: RECORD_VERSION,
    turnId: `turn-${fields.runId}`,
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
    ...fields,
  };
}

function approvalRecord(
  fields: Partial<ApprovalRecord> & { approvalId: string; runId: string; threadId: string },
): ApprovalRecord {
  return {
    v: RECORD_VERSION,
    toolCallId: 'call',
    nodeId: 'node',
    tool: { name: 'click', label: 'Click', level: 'L1', effects: 'write' },
    params: { ref: 'e1' },
    target: { origin: 'https://shop.example' },
    options: ['allow_once', 'allow_site', 'deny', 'deny_stop'],
    digest: 'd'.repeat(64),
    status: 'pending',
    createdAt: 1,
    ...fields,
  };
}

function interactionRecord(
  fields: Partial<InteractionRecord> & { interactionId: string; runId: string; threadId: string },
): InteractionRecord {
  return {
    v: RECORD_VERSION,
    toolCallId: 'call',
    nodeId: 'node',
    kind: 'ask_user',
    payload: { question: 'q?' },
    status: 'pending',
    createdAt: 1,
    ...fields,
  };
}

function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

// ---- the suite -------------------------------------------------------------------------------

export function storeConformance(name: string, open: OpenStore, rawPut: RawPut): void {
  describe(`store conformance: ${name}`, () => {
    const opened: Store[] = [];
    const fresh = (
      dbName = `keel-conformance-${++storeCounter}-${Math.random().toString(36).slice(2)}`,
    ) => {
      const s = open(dbName);
      opened.push(s);
      return s;
    };
    afterEach(() => {
      for (const s of opened.splice(0)) s.close();
    });
    const rows = async <T>(store: Store, table: StoreTable): Promise<T[]> =>
      (await store.rows(table)) as T[];
    const credential = async (store: Store, id: string) =>
      (await rows<CredentialRecord>(store, 'credentials')).find((c) => c.id === id);

    async function threadWithChain(
      store: Store,
      threadId: string,
      length: number,
    ): Promise<NodeRecord[]> {
      await store.threads.put(store.threads.newThread({ threadId, now: 1 }));
      const out: NodeRecord[] = [];
      await store.transaction(async () => {
        let parent: string | null = null;
        for (let i = 0; i < length; i++) {
          const n = await store.threads.appendNode({
            threadId,
            parentId: parent,
            item: notice(`${threadId}-n${i}`, i),
          });
          out.push(n);
          parent = n.id;
        }
        await store.threads.update(threadId, (t) => void (t.leafId = parent));
      });
      return out;
    }

    describe('threads', () => {
      it('newThread builds a versioned, empty thread; put/get/list round-trip, newest first', async () => {
        const store = fresh();
        const a = store.threads.newThread({ threadId: 'a', now: 10 });
        expect(a).toMatchObject({
          v: 1,
          threadId: 'a',
          title: '',
          titleSource: 'default',
          leafId: null,
          createdAt: 10,
          updatedAt: 10,
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
          todos: [],
          revision: 1,
        });
        expect(store.threads.newThread({ threadId: 'b', title: 'Named', now: 20 })).toMatchObject({
          title: 'Named',
          titleSource: 'user',
        });
        await store.threads.put(a);
        await store.threads.put(
          store.threads.newThread({ threadId: 'b', title: 'Named', now: 20 }),
        );
        await store.threads.put(store.threads.newThread({ threadId: 'c', now: 15 }));
        expect(await store.threads.get('a')).toEqual(a);
        expect(await store.threads.get('missing')).toBeUndefined();
        expect((await store.threads.list()).map((t) => t.threadId)).toEqual(['b', 'c', 'a']);
      });

      it('update is read-modify-write: it sees the stored record, bumps revision, and throws for a missing thread', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        await store.threads.update('t', (t) => void (t.title = 'one'));
        const after = await store.threads.update(
          't',
          (t) => void (t.todos = [{ id: 'x', text: 'do', status: 'pending' }]),
        );
        expect(after).toMatchObject({ title: 'one', todos: [{ id: 'x' }], revision: 3 });
        expect(await store.threads.get('t')).toEqual(after);
        await expect(store.threads.update('nope', () => undefined)).rejects.toThrow(/nope/);
      });

      it('delete removes the thread and all its nodes, and only its nodes', async () => {
        const store = fresh();
        await threadWithChain(store, 'a', 3);
        await threadWithChain(store, 'b', 2);
        await store.threads.delete('a');
        expect(await store.threads.get('a')).toBeUndefined();
        expect(await store.threads.allNodes('a')).toEqual([]);
        expect(await store.threads.allNodes('b')).toHaveLength(2);
      });
    });

    describe('node tree', () => {
      it('appendNode stores a versioned node under its parent with the item as given', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        const item = notice('root', 5);
        const n = await store.threads.appendNode({
          threadId: 't',
          parentId: null,
          item,
          runId: 'r',
          turnId: 'u',
        });
        expect(n).toEqual({
          v: 1,
          id: 'root',
          threadId: 't',
          parentId: null,
          seq: 1,
          runId: 'r',
          turnId: 'u',
          createdAt: 5,
          item,
        });
        expect(await store.threads.getNode('root')).toEqual(n);
        // Ids are the item ids: appending the same id twice is refused, not silently merged.
        await expect(
          store.threads.appendNode({ threadId: 't', parentId: null, item }),
        ).rejects.toThrow();
      });

      it('nextSeq is monotonic per thread, across branches, and independent between threads', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        await store.threads.put(store.threads.newThread({ threadId: 'u', now: 1 }));
        expect(await store.threads.nextSeq('t')).toBe(1);
        const seqs: number[] = [];
        const root = await store.threads.appendNode({
          threadId: 't',
          parentId: null,
          item: notice('r'),
        });
        seqs.push(root.seq);
        for (const id of ['a', 'b', 'c'])
          seqs.push(
            (await store.threads.appendNode({ threadId: 't', parentId: 'r', item: notice(id) }))
              .seq,
          );
        seqs.push(
          (await store.threads.appendNode({ threadId: 't', parentId: 'b', item: notice('b1') }))
            .seq,
        );
        expect(seqs).toEqual([1, 2, 3, 4, 5]);
        expect(await store.threads.nextSeq('t')).toBe(6);
        expect(
          (
            await store.threads.appendNode({
              threadId: 'u',
              parentId: null,
              item: notice('u-root'),
            })
          ).seq,
        ).toBe(1);
        expect(await store.threads.nextSeq('t')).toBe(6);
      });

      it('path walks root → leaf along parent links and ignores other branches', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        const add = (id: string, parentId: string | null) =>
          store.threads.appendNode({ threadId: 't', parentId, item: notice(id) });
        await add('root', null);
        await add('a', 'root');
        await add('b', 'root');
        await add('a1', 'a');
        await add('b1', 'b');
        await add('b2', 'b1');
        expect((await store.threads.path('t', 'b2')).map((n) => n.id)).toEqual([
          'root',
          'b',
          'b1',
          'b2',
        ]);
        expect((await store.threads.path('t', 'a1')).map((n) => n.id)).toEqual(['root', 'a', 'a1']);
        expect((await store.threads.path('t', 'root')).map((n) => n.id)).toEqual(['root']);
        expect(await store.threads.path('t', null)).toEqual([]);
        expect(await store.threads.path('t', 'unknown')).toEqual([]);
      });

      it('path over a 2,000-node chain returns every node, root first', async () => {
        const store = fresh();
        const chain = await threadWithChain(store, 'long', 2000);
        const t = (await store.threads.get('long'))!;
        const path = await store.threads.path('long', t.leafId);
        expect(path).toHaveLength(2000);
        expect(path[0].id).toBe(chain[0].id);
        expect(path[0].parentId).toBeNull();
        expect(path.at(-1)!.id).toBe(chain.at(-1)!.id);
        for (let i = 1; i < path.length; i++) expect(path[i].parentId).toBe(path[i - 1].id);
        expect(path.map((n) => n.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
      });

      it('a cycle in parent links does not hang: the walk stops and visits each node once', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        const node = (id: string, parentId: string, seq: number): NodeRecord => ({
          v: RECORD_VERSION,
          id,
          threadId: 't',
          parentId,
          seq,
          createdAt: 1,
          item: notice(id),
        });
        await store.threads.putNode(node('x', 'z', 1));
        await store.threads.putNode(node('y', 'x', 2));
        await store.threads.putNode(node('z', 'y', 3));
        await store.threads.putNode(node('self', 'self', 4));
        const path = await store.threads.path('t', 'z');
        expect(path.map((n) => n.id).sort()).toEqual(['x', 'y', 'z']);
        expect(path.at(-1)!.id).toBe('z');
        expect((await store.threads.path('t', 'self')).map((n) => n.id)).toEqual(['self']);
      });

      it('a parent link into another thread is not followed', async () => {
        const store = fresh();
        await threadWithChain(store, 'other', 2);
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        await store.threads.appendNode({
          threadId: 't',
          parentId: 'other-n1',
          item: notice('stray'),
        });
        expect((await store.threads.path('t', 'stray')).map((n) => n.id)).toEqual(['stray']);
      });

      it('updateNodeItem mutates the stored item in place and throws for a missing node', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        await store.threads.appendNode({
          threadId: 't',
          parentId: null,
          item: {
            kind: 'tool_call',
            id: 'c',
            createdAt: 1,
            toolCallId: 'call_1',
            name: 'click',
            label: 'Click',
            params: {},
            state: 'start',
          },
        });
        const rec = await store.threads.updateNodeItem('c', (it) => {
          if (it.kind === 'tool_call') it.state = 'executing';
        });
        expect(rec.item).toMatchObject({ state: 'executing' });
        expect((await store.threads.getNode('c'))!.item).toMatchObject({ state: 'executing' });
        expect((await store.threads.getNode('c'))!.seq).toBe(1);
        await expect(store.threads.updateNodeItem('missing', () => undefined)).rejects.toThrow(
          /missing/,
        );
      });
    });

    describe('runs', () => {
      it('add/get round-trip; add refuses a duplicate id', async () => {
        const store = fresh();
        const r = runRecord({ runId: 'r1', threadId: 't' });
        await store.runs.add(r);
        expect(await store.runs.get('r1')).toEqual(r);
        await expect(store.runs.add(r)).rejects.toThrow();
      });

      it('update is read-modify-write: it bumps revision, sets updatedAt only when given, and throws for a missing run', async () => {
        const store = fresh();
        await store.runs.add(runRecord({ runId: 'r1', threadId: 't', updatedAt: 5 }));
        const a = await store.runs.update('r1', (r) => void (r.state = 'executing_tool'));
        expect(a).toMatchObject({ state: 'executing_tool', revision: 2, updatedAt: 5 });
        const b = await store.runs.update('r1', (r) => void (r.counters.modelAttempts += 1), 99);
        expect(b).toMatchObject({
          state: 'executing_tool',
          revision: 3,
          updatedAt: 99,
          counters: { modelAttempts: 1 },
        });
        expect(await store.runs.get('r1')).toEqual(b);
        await expect(store.runs.update('nope', () => undefined)).rejects.toThrow(/nope/);
      });

      it('concurrent updates in separate transactions never lose a write (steer admission vs the turn loop)', async () => {
        const store = fresh();
        await store.runs.add(runRecord({ runId: 'r1', threadId: 't' }));
        const admit = (text: string) =>
          store.transaction(() =>
            store.runs.update('r1', (r) => {
              r.pendingSteers.push({
                steerId: text,
                seq: r.nextSteerSeq,
                input: { text },
                admittedAt: 1,
              });
              r.nextSteerSeq += 1;
            }),
          );
        const step = () =>
          store.transaction(() =>
            store.runs.update('r1', (r) => void (r.stepCursor.modelCalls += 1)),
          );
        await Promise.all([admit('a'), step(), admit('b'), step(), admit('c')]);
        const r = (await store.runs.get('r1'))!;
        expect(r.pendingSteers.map((s) => s.steerId).sort()).toEqual(['a', 'b', 'c']);
        expect(r.pendingSteers.map((s) => s.seq).sort()).toEqual([1, 2, 3]);
        expect(r.nextSteerSeq).toBe(4);
        expect(r.stepCursor.modelCalls).toBe(2);
        expect(r.revision).toBe(6);
      });

      it('the environment snapshot is stored once beside the run, joined back on every read', async () => {
        const name = `keel-env-${++storeCounter}-${Math.random().toString(36).slice(2)}`;
        const store = fresh(name);
        const env = { v: 1, systemPrompt: 'p'.repeat(2000), toolCatalog: [{ name: 'a' }] };
        const snapshot = env as unknown as RunEnvironmentSnapshot;
        await store.runs.add(runRecord({ runId: 'r1', threadId: 't', env: snapshot }));
        await store.runs.add(runRecord({ runId: 'q1', threadId: 't', state: 'queued' }));
        for (let i = 0; i < 3; i++)
          await store.transaction(() =>
            store.runs.update('r1', (r) => void (r.stepCursor.modelCalls += 1)),
          );
        // At rest the run row carries no snapshot; the snapshot row is the one written by add.
        const runRows = await rows<RunRecord>(store, 'runs');
        expect(runRows.map((r) => 'env' in r)).toEqual([false, false]);
        expect(await rows(store, 'runEnvs')).toEqual([
          { v: RECORD_VERSION, runId: 'r1', threadId: 't', env },
        ]);
        // Every way of reading a run joins it back, in this store and in a restarted one.
        for (const s of [store, fresh(name)]) {
          expect((await s.runs.get('r1'))?.env).toEqual(env);
          expect((await s.runs.current('t'))?.env).toEqual(env);
          expect((await s.runs.unfinished()).find((r) => r.runId === 'r1')?.env).toEqual(env);
          expect((await s.runs.byThread('t')).map((r) => r.env ?? null)).toEqual(
            (await s.runs.byThread('t')).map((r) => (r.runId === 'r1' ? env : null)),
          );
          expect((await s.runs.get('r1'))?.stepCursor.modelCalls).toBe(3);
        }
        // A queued run gains its snapshot when it starts; deleting the thread's runs drops both.
        await store.transaction(() =>
          store.runs.update('q1', (r) => {
            r.state = 'streaming_model';
            r.env = snapshot;
          }),
        );
        expect((await store.runs.get('q1'))?.env).toEqual(env);
        expect((await rows(store, 'runEnvs')).length).toBe(2);
        await store.runs.deleteByThread('t');
        expect(await rows(store, 'runEnvs')).toEqual([]);
        expect(await store.runs.get('r1')).toBeUndefined();
      });

      it('a rolled-back snapshot write leaves no snapshot behind, in the store or its cache', async () => {
        const name = `keel-env-rb-${++storeCounter}-${Math.random().toString(36).slice(2)}`;
        const store = fresh(name);
        await store.runs.add(runRecord({ runId: 'q1', threadId: 't', state: 'queued' }));
        const env = { v: 1, systemPrompt: 'p' } as unknown as RunEnvironmentSnapshot;
        await expect(
          store.transaction(async () => {
            await store.runs.update('q1', (r) => void (r.env = env));
            expect((await store.runs.get('q1'))?.env).toEqual(env); // sees its own write
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect((await store.runs.get('q1'))?.env).toBeUndefined();
        expect(await rows(store, 'runEnvs')).toEqual([]);
        expect((await fresh(name).runs.get('q1'))?.env).toBeUndefined();
      });

      it('current is the newest run in a current state; queued are in queue order; latest skips queued runs', async () => {
        const store = fresh();
        expect(await store.runs.current('t')).toBeUndefined();
        expect(await store.runs.latest('t')).toBeUndefined();
        await store.runs.add(
          runRecord({ runId: 'done', threadId: 't', state: 'completed', createdAt: 1 }),
        );
        await store.runs.add(
          runRecord({ runId: 'q2', threadId: 't', state: 'queued', queueSeq: 2, createdAt: 5 }),
        );
        await store.runs.add(
          runRecord({ runId: 'q1', threadId: 't', state: 'queued', queueSeq: 1, createdAt: 6 }),
        );
        await store.runs.add(
          runRecord({ runId: 'q3', threadId: 't', state: 'queued', queueSeq: 3, createdAt: 4 }),
        );
        await store.runs.add(
          runRecord({ runId: 'other', threadId: 'u', state: 'streaming_model', createdAt: 9 }),
        );
        expect(await store.runs.current('t')).toBeUndefined();
        expect((await store.runs.latest('t'))!.runId).toBe('done');
        expect((await store.runs.queued('t')).map((r) => r.runId)).toEqual(['q1', 'q2', 'q3']);

        await store.runs.add(
          runRecord({ runId: 'paused', threadId: 't', state: 'budget_paused', createdAt: 2 }),
        );
        await store.runs.add(
          runRecord({ runId: 'live', threadId: 't', state: 'waiting_approval', createdAt: 3 }),
        );
        expect((await store.runs.current('t'))!.runId).toBe('live');
        expect((await store.runs.latest('t'))!.runId).toBe('live');
        expect((await store.runs.current('u'))!.runId).toBe('other');
        expect((await store.runs.byThread('t')).map((r) => r.runId).sort()).toEqual([
          'done',
          'live',
          'paused',
          'q1',
          'q2',
          'q3',
        ]);
      });

      it('every current state counts as current; queued, completed and failed do not', async () => {
        const store = fresh();
        const all: RunState[] = [
          'queued',
          'streaming_model',
          'executing_tool',
          'waiting_approval',
          'waiting_interaction',
          'paused_uncertain',
          'budget_paused',
          'interrupted',
          'completed',
          'failed',
        ];
        for (const [i, state] of all.entries())
          await store.runs.add(
            runRecord({ runId: `r-${state}`, threadId: `t-${state}`, state, createdAt: i }),
          );
        for (const state of all) {
          const current = await store.runs.current(`t-${state}`);
          expect([state, current?.state === state]).toEqual([
            state,
            CURRENT_RUN_STATES.includes(state),
          ]);
        }
      });

      it('unfinished lists every run that is neither completed nor failed, across threads', async () => {
        const store = fresh();
        const states: RunState[] = [
          'queued',
          'streaming_model',
          'executing_tool',
          'waiting_approval',
          'waiting_interaction',
          'paused_uncertain',
          'budget_paused',
          'interrupted',
          'completed',
          'failed',
        ];
        for (const [i, state] of states.entries())
          await store.runs.add(runRecord({ runId: `r${i}`, threadId: `t${i % 3}`, state }));
        const unfinished = (await store.runs.unfinished()).map((r) => r.state).sort();
        expect(unfinished).toEqual(
          states.filter((s) => s !== 'completed' && s !== 'failed').sort(),
        );
      });

      it("deleteByThread removes only that thread's runs", async () => {
        const store = fresh();
        await store.runs.add(runRecord({ runId: 'a1', threadId: 'a' }));
        await store.runs.add(runRecord({ runId: 'a2', threadId: 'a', state: 'queued' }));
        await store.runs.add(runRecord({ runId: 'b1', threadId: 'b' }));
        await store.runs.deleteByThread('a');
        expect(await store.runs.byThread('a')).toEqual([]);
        expect((await store.runs.get('b1'))?.runId).toBe('b1');
      });
    });

    describe('approvals and interactions', () => {
      it('pendingForRun returns only pending approvals of that run', async () => {
        const store = fresh();
        await store.approvals.put(approvalRecord({ approvalId: 'p1', runId: 'r', threadId: 't' }));
        await store.approvals.put(
          approvalRecord({
            approvalId: 'done',
            runId: 'r',
            threadId: 't',
            status: 'resolved',
            decision: 'allow_once',
            resolvedAt: 2,
          }),
        );
        await store.approvals.put(
          approvalRecord({ approvalId: 'gone', runId: 'r', threadId: 't', status: 'cancelled' }),
        );
        await store.approvals.put(
          approvalRecord({ approvalId: 'elsewhere', runId: 'r2', threadId: 't' }),
        );
        expect((await store.approvals.pendingForRun('r')).map((a) => a.approvalId)).toEqual(['p1']);
        // put replaces: resolving the pending one empties the list.
        const p1 = (await store.approvals.get('p1'))!;
        await store.approvals.put({ ...p1, status: 'resolved', decision: 'deny', resolvedAt: 3 });
        expect(await store.approvals.pendingForRun('r')).toEqual([]);
        expect(await store.approvals.get('p1')).toMatchObject({
          status: 'resolved',
          decision: 'deny',
        });
      });

      it('interactions: pendingForRun returns only pending ones of that run', async () => {
        const store = fresh();
        await store.interactions.put(
          interactionRecord({ interactionId: 'i1', runId: 'r', threadId: 't' }),
        );
        await store.interactions.put(
          interactionRecord({
            interactionId: 'i2',
            runId: 'r',
            threadId: 't',
            status: 'answered',
            response: { answer: 'x' },
          }),
        );
        await store.interactions.put(
          interactionRecord({ interactionId: 'i3', runId: 'r', threadId: 't', status: 'claimed' }),
        );
        await store.interactions.put(
          interactionRecord({ interactionId: 'i4', runId: 'r2', threadId: 't' }),
        );
        expect((await store.interactions.pendingForRun('r')).map((i) => i.interactionId)).toEqual([
          'i1',
        ]);
        expect(await store.interactions.get('i2')).toMatchObject({ response: { answer: 'x' } });
      });

      it("deleteByThread removes a thread's approvals and interactions only", async () => {
        const store = fresh();
        await store.approvals.put(approvalRecord({ approvalId: 'a', runId: 'r', threadId: 't' }));
        await store.approvals.put(approvalRecord({ approvalId: 'b', runId: 'r2', threadId: 'u' }));
        await store.interactions.put(
          interactionRecord({ interactionId: 'i', runId: 'r', threadId: 't' }),
        );
        await store.interactions.put(
          interactionRecord({ interactionId: 'j', runId: 'r2', threadId: 'u' }),
        );
        await store.approvals.deleteByThread('t');
        await store.interactions.deleteByThread('t');
        expect(await store.approvals.get('a')).toBeUndefined();
        expect(await store.interactions.get('i')).toBeUndefined();
        expect(await store.approvals.get('b')).toBeDefined();
        expect(await store.interactions.get('j')).toBeDefined();
      });
    });

    describe('receipts', () => {
      it('put/get round-trip a versioned receipt under (clientId, submissionId)', async () => {
        const store = fresh();
        const key = ReceiptsRepo.key('ui-1', 's1');
        await store.receipts.put({
          key,
          type: 'thread.create',
          fingerprint: 'f'.repeat(64),
          outcome: { kind: 'ack', result: { threadId: 't' } },
          now: 7,
        });
        expect(await store.receipts.get(key)).toEqual({
          v: 1,
          key,
          type: 'thread.create',
          fingerprint: 'f'.repeat(64),
          outcome: { kind: 'ack', result: { threadId: 't' } },
          createdAt: 7,
        });
        expect(await store.receipts.get(ReceiptsRepo.key('ui-2', 's1'))).toBeUndefined();
      });

      it('keys cannot collide by shifting text between clientId and submissionId', () => {
        expect(ReceiptsRepo.key('a', 'b c')).not.toBe(ReceiptsRepo.key('a b', 'c'));
        expect(ReceiptsRepo.key('a:', 'b')).not.toBe(ReceiptsRepo.key('a', ':b'));
      });

      it('prune deletes receipts strictly older than the cutoff and reports how many', async () => {
        const store = fresh();
        for (const [i, t] of [10, 20, 30, 40].entries()) {
          await store.receipts.put({
            key: ReceiptsRepo.key('c', `s${i}`),
            type: 'thread.create',
            fingerprint: 'x',
            outcome: { kind: 'reject', code: 'busy', message: 'm' },
            now: t,
          });
        }
        expect(await store.receipts.prune(30)).toBe(2);
        expect(await store.receipts.get(ReceiptsRepo.key('c', 's1'))).toBeUndefined();
        expect(await store.receipts.get(ReceiptsRepo.key('c', 's2'))).toMatchObject({
          createdAt: 30,
        });
        expect(await store.receipts.prune(0)).toBe(0);
      });
    });

    describe('site rules', () => {
      it('set bumps the version on every change, per origin, and list returns them all', async () => {
        const store = fresh();
        expect(await store.siteRules.get('https://a.example')).toBeUndefined();
        expect(await store.siteRules.set('https://a.example', 'allow', 1)).toEqual({
          v: 1,
          origin: 'https://a.example',
          rule: 'allow',
          version: 1,
          updatedAt: 1,
        });
        expect(await store.siteRules.set('https://a.example', 'block', 2)).toMatchObject({
          rule: 'block',
          version: 2,
          updatedAt: 2,
        });
        // Setting the same rule again still counts as a change: approvals made under v2 are re-checked.
        expect(await store.siteRules.set('https://a.example', 'block', 3)).toMatchObject({
          version: 3,
        });
        expect(await store.siteRules.set('mcp:server', 'allow', 4)).toMatchObject({ version: 1 });
        expect(await store.siteRules.get('https://a.example')).toMatchObject({
          rule: 'block',
          version: 3,
        });
        expect((await store.siteRules.list()).map((r) => r.origin).sort()).toEqual([
          'https://a.example',
          'mcp:server',
        ]);
      });
    });

    describe('settings', () => {
      it('get on an empty store returns the defaults', async () => {
        const store = fresh();
        expect(await store.settings.get()).toEqual(defaultSettings());
        expect(defaultSettings()).toEqual({
          v: 1,
          key: 'main',
          providers: [],
          defaultModel: null,
          taskModel: null,
          tokenBudget: null,
          approvalMode: 'ask',
          locale: null,
          mcpServers: [],
          revision: 0,
        });
      });

      it('put stores the record with its revision bumped', async () => {
        const store = fresh();
        const s = {
          ...defaultSettings(),
          approvalMode: 'act' as const,
          providers: [{ id: 'p', kind: 'openai' as const, credentialId: 'provider:p' }],
        };
        await store.settings.put(s);
        expect(await store.settings.get()).toEqual({ ...s, revision: 1 });
        await store.settings.put(await store.settings.get());
        expect((await store.settings.get()).revision).toBe(2);
      });
    });

    describe('credentials', () => {
      it('round-trips a secret and reports presence', async () => {
        const store = fresh();
        expect(await store.credentials.getSecret('provider:p')).toBeNull();
        expect(await store.credentials.has('provider:p')).toBe(false);
        await store.credentials.setSecret('provider:p', 'sk-live-abc123ÄÖ✓', 5);
        expect(await store.credentials.getSecret('provider:p')).toBe('sk-live-abc123ÄÖ✓');
        expect(await store.credentials.has('provider:p')).toBe(true);
        await store.credentials.delete('provider:p');
        expect(await store.credentials.getSecret('provider:p')).toBeNull();
      });

      it('stores only ciphertext: the plaintext bytes appear nowhere in the record', async () => {
        const store = fresh();
        const secret = 'sk-ant-THIS-IS-THE-PLAINTEXT-KEY-0123456789';
        await store.credentials.setSecret('provider:p', secret, 5);
        const rec = (await credential(store, 'provider:p'))!;
        expect(rec).toMatchObject({ v: 1, id: 'provider:p', createdAt: 5, updatedAt: 5 });
        expect(rec.iv).toHaveLength(12);
        const cipher = new Uint8Array(rec.ciphertext);
        const plain = new TextEncoder().encode(secret);
        expect(cipher.length).toBeGreaterThanOrEqual(plain.length); // AES-GCM: same length + 16-byte tag
        expect(containsBytes(cipher, plain)).toBe(false);
        expect(containsBytes(cipher, plain.slice(0, 8))).toBe(false);
        expect(
          JSON.stringify(rec, (_k, v) =>
            v instanceof ArrayBuffer || ArrayBuffer.isView(v)
              ? [...new Uint8Array(v instanceof ArrayBuffer ? v : v.buffer)]
              : v,
          ),
        ).not.toContain(secret);
      });

      it('encrypts under a non-extractable AES-GCM CryptoKey kept in the store', async () => {
        const store = fresh();
        await store.credentials.setSecret('x', 'value', 1);
        const keyRec = (await rows<KeyRecord>(store, 'keys'))[0];
        expect(keyRec.key).toBeInstanceOf(CryptoKey);
        expect(keyRec.key.extractable).toBe(false);
        expect(keyRec.key.algorithm).toMatchObject({ name: 'AES-GCM', length: 256 });
        expect([...keyRec.key.usages].sort()).toEqual(['decrypt', 'encrypt']);
        await expect(crypto.subtle.exportKey('raw', keyRec.key)).rejects.toThrow();
      });

      it('a fresh IV per encryption: the same secret twice gives different ciphertexts', async () => {
        const store = fresh();
        await store.credentials.setSecret('a', 'same', 1);
        await store.credentials.setSecret('b', 'same', 1);
        const a = (await credential(store, 'a'))!;
        const b = (await credential(store, 'b'))!;
        expect([...a.iv]).not.toEqual([...b.iv]);
        expect([...new Uint8Array(a.ciphertext)]).not.toEqual([...new Uint8Array(b.ciphertext)]);
      });

      it('rotation keeps the credential id and createdAt, replaces the value and bumps updatedAt', async () => {
        const store = fresh();
        await store.credentials.setSecret('provider:p', 'old-key', 1);
        await store.credentials.setSecret('provider:p', 'new-key', 9);
        expect(await store.credentials.getSecret('provider:p')).toBe('new-key');
        expect(await rows(store, 'credentials')).toEqual([
          expect.objectContaining({ id: 'provider:p', createdAt: 1, updatedAt: 9 }),
        ]);
      });

      it('the key survives a restart: a second Store over the same data decrypts, with the same key', async () => {
        const name = `keel-conformance-reopen-${Math.random().toString(36).slice(2)}`;
        const store = fresh(name);
        await store.credentials.setSecret('p', 'persisted', 1);
        store.close();
        const again = fresh(name);
        expect(await again.credentials.getSecret('p')).toBe('persisted');
        await again.credentials.setSecret('q', 'second', 2);
        expect((await rows(again, 'keys')).length).toBe(1);
      });

      it('two stores racing to create the key end up sharing one key', async () => {
        const name = `keel-conformance-race-${Math.random().toString(36).slice(2)}`;
        const a = fresh(name);
        const b = fresh(name);
        await Promise.all([
          a.credentials.setSecret('from-a', 'A', 1),
          b.credentials.setSecret('from-b', 'B', 1),
        ]);
        expect((await rows(a, 'keys')).length).toBe(1);
        expect(await a.credentials.getSecret('from-b')).toBe('B');
        expect(await b.credentials.getSecret('from-a')).toBe('A');
      });

      it('a tampered ciphertext fails with a message that names neither the secret nor the id', async () => {
        const store = fresh();
        await store.credentials.setSecret('provider:secret-id', 'top-secret', 1);
        const rec = (await credential(store, 'provider:secret-id'))!;
        const bytes = new Uint8Array(rec.ciphertext.slice(0));
        bytes[0] ^= 0xff;
        await rawPut(store, 'credentials', { ...rec, ciphertext: bytes.buffer });
        const err = await store.credentials.getSecret('provider:secret-id').then(
          () => null,
          (e: unknown) => e as Error,
        );
        expect(err).toBeInstanceOf(Error);
        expect(err!.message).not.toContain('top-secret');
        expect(err!.message).not.toContain('secret-id');
      });
    });

    describe('transactions', () => {
      it('a throw inside store.transaction rolls back every table written', async () => {
        const store = fresh();
        await store.threads.put(store.threads.newThread({ threadId: 'keep', now: 1 }));
        const before = await store.settings.get();
        await expect(
          store.transaction(async () => {
            await store.threads.put(store.threads.newThread({ threadId: 'ghost', now: 2 }));
            await store.threads.update('keep', (t) => void (t.title = 'changed'));
            await store.threads.appendNode({
              threadId: 'keep',
              parentId: null,
              item: notice('ghost-node'),
            });
            await store.runs.add(runRecord({ runId: 'ghost-run', threadId: 'keep' }));
            await store.approvals.put(
              approvalRecord({ approvalId: 'ghost-apr', runId: 'ghost-run', threadId: 'keep' }),
            );
            await store.interactions.put(
              interactionRecord({
                interactionId: 'ghost-int',
                runId: 'ghost-run',
                threadId: 'keep',
              }),
            );
            await store.receipts.put({
              key: 'ghost',
              type: 't',
              fingerprint: 'f',
              outcome: { kind: 'ack' },
              now: 1,
            });
            await store.siteRules.set('https://ghost.example', 'allow', 1);
            await store.settings.put({ ...before, approvalMode: 'act' });
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await store.threads.get('ghost')).toBeUndefined();
        expect((await store.threads.get('keep'))!.title).toBe('');
        expect(await store.threads.getNode('ghost-node')).toBeUndefined();
        expect(await store.runs.get('ghost-run')).toBeUndefined();
        expect(await store.approvals.get('ghost-apr')).toBeUndefined();
        expect(await store.interactions.get('ghost-int')).toBeUndefined();
        expect(await store.receipts.get('ghost')).toBeUndefined();
        expect(await store.siteRules.get('https://ghost.example')).toBeUndefined();
        expect(await store.settings.get()).toEqual(before);
      });

      it('a failing write (duplicate key) aborts the whole transaction too', async () => {
        const store = fresh();
        await store.runs.add(runRecord({ runId: 'r', threadId: 't' }));
        await expect(
          store.transaction(async () => {
            await store.siteRules.set('https://x.example', 'block', 1);
            await store.runs.add(runRecord({ runId: 'r', threadId: 't' }));
          }),
        ).rejects.toThrow();
        expect(await store.siteRules.get('https://x.example')).toBeUndefined();
      });

      it('a committed transaction is visible as a whole and returns its value', async () => {
        const store = fresh();
        const out = await store.transaction(async () => {
          await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
          const n = await store.threads.appendNode({
            threadId: 't',
            parentId: null,
            item: notice('n'),
          });
          await store.threads.update('t', (t) => void (t.leafId = n.id));
          return n.id;
        });
        expect(out).toBe('n');
        expect((await store.threads.get('t'))!.leafId).toBe('n');
        expect((await store.threads.path('t', 'n')).map((x) => x.id)).toEqual(['n']);
      });

      it('read gives a consistent view across tables', async () => {
        const store = fresh();
        await threadWithChain(store, 't', 3);
        await store.runs.add(runRecord({ runId: 'r', threadId: 't', state: 'waiting_approval' }));
        const view = await store.read(async () => ({
          thread: await store.threads.get('t'),
          nodes: await store.threads.allNodes('t'),
          run: await store.runs.current('t'),
        }));
        expect(view.thread!.leafId).toBe('t-n2');
        expect(view.nodes).toHaveLength(3);
        expect(view.run!.runId).toBe('r');
      });
    });

    describe('schema version', () => {
      it('every record the repositories write carries v: 1', async () => {
        const store = fresh();
        expect(RECORD_VERSION).toBe(1);
        await store.threads.put(store.threads.newThread({ threadId: 't', now: 1 }));
        await store.threads.appendNode({ threadId: 't', parentId: null, item: notice('n') });
        await store.runs.add(runRecord({ runId: 'r', threadId: 't' }));
        await store.approvals.put(approvalRecord({ approvalId: 'a', runId: 'r', threadId: 't' }));
        await store.interactions.put(
          interactionRecord({ interactionId: 'i', runId: 'r', threadId: 't' }),
        );
        await store.receipts.put({
          key: 'k',
          type: 't',
          fingerprint: 'f',
          outcome: { kind: 'ack' },
          now: 1,
        });
        await store.siteRules.set('https://a.example', 'allow', 1);
        await store.settings.put(defaultSettings());
        await store.credentials.setSecret('c', 's', 1);
        const tables: StoreTable[] = [
          'threads',
          'nodes',
          'runs',
          'approvals',
          'interactions',
          'receipts',
          'siteRules',
          'settings',
          'credentials',
        ];
        for (const name of tables) {
          const stored = await rows<{ v?: number }>(store, name);
          expect([name, stored.length]).toEqual([name, 1]);
          expect([name, stored[0].v]).toEqual([name, 1]);
        }
      });
    });
  });
}
