import { describe, expect, it } from 'vitest';
import { initialEngineState, reduceEngine } from '../../../sidepanel/state/app-state';
import { buildRows } from '../../../sidepanel/state/rows';
import { reduceThread } from '../../../sidepanel/state/thread-reducer';
import {
  emptyThread,
  isActiveRun,
  threadFromSnapshot,
} from '../../../sidepanel/state/thread-state';
import {
  approvalRequest,
  assistant,
  meta,
  settings,
  snapshot,
  toolCall,
  toolResult,
  user,
} from './helpers/fixtures';

describe('thread reducer', () => {
  const base = threadFromSnapshot(snapshot('t1', [user('u1', 'hi')]));

  it('appends started items and replaces them in place when updated or completed', () => {
    let t = reduceThread(base, {
      type: 'item.start',
      threadId: 't1',
      turnId: 'turn',
      item: assistant('a1', ''),
    });
    expect(t.path.map((i) => i.id)).toEqual(['u1', 'a1']);
    const untouched = t.path[0];
    t = reduceThread(t, { type: 'item.complete', threadId: 't1', item: assistant('a1', 'done') });
    expect(t.path).toHaveLength(2);
    expect(t.path[1]).toMatchObject({ text: 'done' });
    expect(t.path[0]).toBe(untouched); // other items keep their identity (memoized rows skip them)
  });

  it('drops a discarded streamed item', () => {
    const t = reduceThread(
      reduceThread(base, {
        type: 'item.start',
        threadId: 't1',
        turnId: 'turn',
        item: assistant('a1', ''),
      }),
      { type: 'item.discarded', threadId: 't1', itemId: 'a1' },
    );
    expect(t.path.map((i) => i.id)).toEqual(['u1']);
  });

  it('tracks the run: turn.start → run.updated → turn.complete', () => {
    let t = reduceThread(base, {
      type: 'turn.start',
      threadId: 't1',
      turnId: 'turn-1',
      runId: 'run-1',
    });
    expect(isActiveRun(t.run?.state)).toBe(true);
    t = reduceThread(t, {
      type: 'run.updated',
      threadId: 't1',
      runId: 'run-1',
      state: 'streaming_model',
    });
    expect(t.run).toMatchObject({ runId: 'run-1', turnId: 'turn-1', state: 'streaming_model' });
    t = reduceThread(t, {
      type: 'turn.complete',
      threadId: 't1',
      turnId: 'turn-1',
      runId: 'run-1',
      stopReason: 'interrupted',
    });
    expect(t.run?.state).toBe('interrupted');
    expect(t.lastTurn?.stopReason).toBe('interrupted');
  });

  it('shows an approval until it is resolved, and never past a settled run', () => {
    let t = reduceThread(base, approvalRequest('t1'));
    expect(t.approval?.approvalId).toBe('ap-1');
    expect(
      reduceThread(t, {
        type: 'approval.resolved',
        threadId: 't1',
        approvalId: 'other',
        decision: 'deny',
      }).approval,
    ).not.toBeNull();
    expect(
      reduceThread(t, {
        type: 'approval.resolved',
        threadId: 't1',
        approvalId: 'ap-1',
        decision: 'deny',
      }).approval,
    ).toBeNull();
    t = reduceThread(t, {
      type: 'run.updated',
      threadId: 't1',
      runId: 'run-1',
      state: 'interrupted',
    });
    expect(t.approval).toBeNull();
  });

  it('takes queue, todos and usage from their events', () => {
    let t = reduceThread(base, {
      type: 'queue.updated',
      threadId: 't1',
      items: [{ queueItemId: 'q1', input: { text: 'next' } }],
    });
    t = reduceThread(t, {
      type: 'todo.updated',
      threadId: 't1',
      todos: [{ id: 'd1', text: 'Open page', status: 'done' }],
    });
    t = reduceThread(t, {
      type: 'token.usage',
      threadId: 't1',
      runId: 'r',
      usage: { inputTokens: 10, outputTokens: 2 },
      turnUsage: { inputTokens: 30, outputTokens: 5 },
      turnCostUsd: 0.01,
      threadUsage: { inputTokens: 300, outputTokens: 50 },
      threadCostUsd: 0.1,
    });
    expect(t.queue).toHaveLength(1);
    expect(t.todos[0].status).toBe('done');
    expect(t.liveUsage).toMatchObject({ turnUsage: { inputTokens: 30 }, turnCostUsd: 0.01 });
    expect(t.threadUsage).toMatchObject({ usage: { inputTokens: 300 }, costUsd: 0.1 });
  });

  it('an answered question does not come back with the run state that follows it', () => {
    const interaction = {
      type: 'interaction.request' as const,
      threadId: 't1',
      runId: 'run-1',
      interactionId: 'int-1',
      kind: 'plan' as const,
      payload: {},
    };
    let t = threadFromSnapshot(
      snapshot('t1', [], {
        run: {
          runId: 'run-1',
          turnId: 'turn-1',
          state: 'waiting_interaction',
          pendingInteraction: interaction,
        },
      }),
    );
    expect(t.interaction?.interactionId).toBe('int-1');
    t = reduceThread(t, { type: 'interaction.resolved', threadId: 't1', interactionId: 'int-1' });
    expect(t.interaction).toBeNull();
    // The run goes on working (a plan approved, a question answered): no card reappears.
    for (const state of ['executing_tool', 'streaming_model'] as const) {
      t = reduceThread(t, { type: 'run.updated', threadId: 't1', runId: 'run-1', state });
      expect(t.interaction, state).toBeNull();
      expect(t.run?.pendingInteraction, state).toBeUndefined();
    }
  });

  it('reads a pending approval and interaction out of a snapshot', () => {
    const t = threadFromSnapshot(
      snapshot('t1', [], {
        run: {
          runId: 'run-1',
          turnId: 'turn-1',
          state: 'waiting_approval',
          pendingApproval: approvalRequest('t1'),
        },
      }),
    );
    expect(t.approval?.approvalId).toBe('ap-1');
    expect(t.loaded).toBe(true);
  });
});

describe('engine state', () => {
  it('replaces everything on initialized and keeps threads newest first', () => {
    const s = reduceEngine(initialEngineState, {
      type: 'initialized',
      threads: [meta('old', { updatedAt: 1 }), meta('new', { updatedAt: 5 })],
      snapshots: [snapshot('new', [user('u1', 'x')])],
      settings: settings(),
    });
    expect(s.ready).toBe(true);
    expect(s.threads.map((m) => m.threadId)).toEqual(['new', 'old']);
    expect(s.byId.new.loaded).toBe(true);
    expect(s.byId.old.loaded).toBe(false);
  });

  it('removes deleted threads and upserts updated ones', () => {
    let s = reduceEngine(initialEngineState, {
      type: 'initialized',
      threads: [meta('a')],
      snapshots: [],
      settings: settings(),
    });
    s = reduceEngine(s, {
      type: 'thread.updated',
      thread: meta('b', { title: 'B', updatedAt: Date.now() + 10_000 }),
    });
    expect(s.threads[0]).toMatchObject({ threadId: 'b', title: 'B' });
    s = reduceEngine(s, { type: 'thread.deleted', threadId: 'a' });
    expect(s.threads.map((m) => m.threadId)).toEqual(['b']);
    expect(s.byId.a).toBeUndefined();
  });

  it('ignores event types it does not know yet', () => {
    const s = reduceEngine(initialEngineState, { type: 'thread.renamed', threadId: 't' } as never);
    expect(s).toBe(initialEngineState);
  });

  it('leaves the state identical for deltas and command answers', () => {
    const s = reduceEngine(initialEngineState, {
      type: 'item.delta',
      threadId: 't',
      itemId: 'i',
      delta: { text: 'x' },
    });
    expect(s).toBe(initialEngineState);
  });
});

describe('rows', () => {
  it('folds results into their call, hides internal tools, attaches branches and turn usage', () => {
    const path = [
      user('u1', 'first'),
      assistant('a1', '', {
        usage: { inputTokens: 100, outputTokens: 10 },
        costUsd: 0.01,
        providerStopReason: 'tool_use',
      }),
      toolCall('c1', 'result'),
      toolResult('r1', 'tc-c1'),
      toolCall('todo1', 'result', { name: 'todo', visibility: 'internal' }),
      toolResult('r2', 'tc-todo1', { visibility: 'internal' }),
      assistant('a2', 'done', { usage: { inputTokens: 200, outputTokens: 20 }, costUsd: 0.02 }),
      user('u2', 'second'),
      assistant('a3', 'ok', { usage: { inputTokens: 5, outputTokens: 1 } }),
    ];
    const rows = buildRows(path, [
      { parentId: 'a2', childIds: ['u2x', 'u2'], selected: 'u2', leafIds: ['l1', 'a3'] },
    ]);
    expect(rows.map((r) => r.item.id)).toEqual(['u1', 'a1', 'c1', 'a2', 'u2', 'a3']);
    expect(rows[2].result?.id).toBe('r1');
    expect(rows[3].turnUsage).toEqual({
      usage: {
        inputTokens: 300,
        outputTokens: 30,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      costUsd: 0.03,
    });
    expect(rows[4].branch?.childIds).toEqual(['u2x', 'u2']);
    expect(rows[4].parentId).toBe('a2');
    expect(rows[5].turnUsage?.usage.inputTokens).toBe(5);
    expect(rows[5].turnUsage?.costUsd).toBeUndefined();
  });

  it('handles an empty thread', () => {
    expect(buildRows(emptyThread('t').path, [])).toEqual([]);
  });
});
