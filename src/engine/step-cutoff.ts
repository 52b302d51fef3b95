import type { NodeRecord, RunRecord } from '../store/records';
import type { EngineContext } from './context';
import { appendNotice } from './nodes';
import { totalTokens } from './usage';

export type Cutoff =
  | { kind: 'call'; run: RunRecord; leaf: string | null; created: NodeRecord[] }
  | { kind: 'budget' | 'failed'; run: RunRecord; created: NodeRecord[] };

/**
 * The steer cutoff of one model request (spec/001 §3), in one transaction: check the token budget,
 * materialize every admitted steer after the leaf in admission order, and count the attempt
 * (persisted before the call, so a crash loop cannot reset it). One cutoff per request: a steer
 * admitted after this commits waits for the next request.
 */
export async function takeCutoff(ctx: EngineContext, runId: string): Promise<Cutoff | null> {
  const { store } = ctx;
  return ctx.commit('cutoff', async () => {
    const run = await store.runs.get(runId);
    if (!run || run.state !== 'streaming_model' || !run.env) return null;
    const thread = await store.threads.get(run.threadId);
    if (!thread) return null;
    const now = ctx.clock.now();
    const budget = run.env.tokenBudget;
    if (budget !== null && run.stepCursor.modelCalls > 0 && totalTokens(run.usage) - run.counters.budgetBaseline >= budget) {
      const notice = await appendNotice(ctx, run, thread.leafId, 'budget_pause', `Paused: this turn used its token budget (${budget.toLocaleString('en-US')} tokens). Continue to give it another budget.`);
      await store.threads.update(run.threadId, (t) => {
        t.leafId = notice.id;
        t.updatedAt = now;
      });
      const r = await store.runs.update(runId, (r) => {
        r.state = 'budget_paused';
        r.stopReason = 'budget_pause';
      }, now);
      return { kind: 'budget' as const, run: r, created: [notice] };
    }
    const steers = [...run.pendingSteers].sort((a, b) => a.seq - b.seq);
    let leaf = thread.leafId;
    const created: NodeRecord[] = [];
    for (const s of steers) {
      const node = await store.threads.appendNode({
        threadId: run.threadId,
        parentId: leaf,
        runId,
        turnId: run.turnId,
        item: { kind: 'user_message', id: ctx.ids.next('n'), createdAt: now, text: s.input.text, ...(s.input.images?.length ? { images: s.input.images } : {}), steered: true },
      });
      created.push(node);
      leaf = node.id;
    }
    if (steers.length) {
      await store.threads.update(run.threadId, (t) => {
        t.leafId = leaf;
        t.updatedAt = now;
      });
    }
    const attempts = run.counters.modelAttempts + 1;
    if (attempts > ctx.options.maxModelAttempts) {
      const r = await store.runs.update(runId, (r) => {
        r.pendingSteers = [];
        r.state = 'failed';
        r.stopReason = 'error';
        r.error = { code: 'model_failed', message: `The model call failed ${ctx.options.maxModelAttempts} times; the run stopped. Retry with Continue or a new message.` };
      }, now);
      return { kind: 'failed' as const, run: r, created };
    }
    const r = await store.runs.update(runId, (r) => {
      r.pendingSteers = [];
      r.counters.modelAttempts = attempts;
    }, now);
    return { kind: 'call' as const, run: r, leaf, created };
  });
}
