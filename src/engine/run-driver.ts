import type { NodeRecord, RunRecord } from '../store/records';
import { EngineKilled, RunAborted, type EngineContext } from './context';
import { failRun, modelStep, type StepOutcome } from './model-step';
import { appendNotice, emitCommitted } from './nodes';
import { toolStep } from './tool-step';
import { runSummary, threadMeta } from './thread-view';

/** States in which a run waits for the user (a new drive would do nothing). */
const WAITING = new Set(['waiting_approval', 'waiting_interaction', 'paused_uncertain', 'budget_paused', 'interrupted']);

interface LiveRun {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Drives runs step by step from their persisted state. The same code serves a fresh turn, a
 * resumed one and a recovered one: every step re-reads the run, so a restart loses nothing but
 * the step in flight (which is redone from its checkpoint).
 */
export class RunDriver {
  private readonly live = new Map<string, LiveRun>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: { runEnded(run: RunRecord): Promise<void> },
  ) {}

  get liveCount(): number {
    return this.live.size;
  }

  isLive(runId: string): boolean {
    return this.live.has(runId);
  }

  /** Abort a live run; resolves once its interrupt has been committed. */
  async abort(runId: string): Promise<boolean> {
    const live = this.live.get(runId);
    if (!live) return false;
    live.controller.abort();
    await live.done;
    return true;
  }

  /** Drive until the run parks or ends. Call from the thread's actor. */
  async drive(runId: string): Promise<void> {
    if (this.live.has(runId)) return;
    const controller = new AbortController();
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    this.live.set(runId, { controller, done });
    try {
      for (;;) {
        if (controller.signal.aborted) throw new RunAborted();
        const run = await this.ctx.store.runs.get(runId);
        if (!run) return;
        let out: StepOutcome;
        if (run.state === 'streaming_model') out = await modelStep(this.ctx, runId, controller.signal);
        else if (run.state === 'executing_tool') out = await toolStep(this.ctx, runId, controller.signal);
        else out = WAITING.has(run.state) ? 'parked' : 'ended';
        if (out === 'parked') return;
        if (out === 'ended') {
          await this.ended(runId);
          return;
        }
      }
    } catch (e) {
      if (e instanceof EngineKilled) throw e;
      if (e instanceof RunAborted || controller.signal.aborted) {
        await this.finalizeInterrupt(runId, e instanceof RunAborted ? e.partial : undefined);
        await this.ended(runId);
        return;
      }
      this.ctx.log.error('run failed unexpectedly', { runId, error: e instanceof Error ? e.message : String(e) });
      await failRun(this.ctx, runId, { code: 'internal', message: `Internal error: ${e instanceof Error ? e.message : String(e)}` });
      await this.ended(runId);
    } finally {
      this.live.delete(runId);
      release();
    }
  }

  /**
   * Commit an interrupt (spec/001 §3): keep what was committed; the call in flight gets an
   * "interrupted" result (with any partial output) and the rest of its batch "not executed";
   * acknowledged steers are materialized at this safe leaf; the run ends `interrupted`.
   */
  async finalizeInterrupt(runId: string, partial?: string): Promise<void> {
    const { store } = this.ctx;
    const created = await this.ctx.commit('interrupt', async () => {
      const run = await store.runs.get(runId);
      if (!run || run.state === 'completed' || run.state === 'failed' || run.state === 'interrupted') return [];
      const now = this.ctx.clock.now();
      const out: NodeRecord[] = [];
      let leaf = (await store.threads.get(run.threadId))!.leafId;
      const append = async (item: NodeRecord['item']) => {
        const n = await store.threads.appendNode({ threadId: run.threadId, parentId: leaf, runId, turnId: run.turnId, item });
        out.push(n);
        leaf = n.id;
      };
      const calls = run.state === 'executing_tool' || run.state === 'waiting_approval' || run.state === 'waiting_interaction' ? run.stepCursor.toolCalls.slice(run.stepCursor.nextToolIndex) : [];
      for (const c of calls) {
        const isCurrent = run.pendingTool?.toolCallId === c.id;
        const node = await store.threads.getNode(c.nodeId);
        const reg = this.ctx.registry.get(c.name);
        if (node && node.item.kind === 'tool_call') {
          const updated = await store.threads.updateNodeItem(c.nodeId, (it) => {
            if (it.kind === 'tool_call') it.state = 'invalid';
          });
          out.push(updated);
        } else {
          await append({
            kind: 'tool_call',
            id: c.nodeId,
            createdAt: now,
            toolCallId: c.id,
            ...(run.stepCursor.assistantNodeId ? { assistantId: run.stepCursor.assistantNodeId } : {}),
            name: c.name,
            label: reg?.descriptor.label ?? c.name,
            params: c.args,
            state: 'invalid',
            ...(reg ? { level: reg.descriptor.level, effects: reg.descriptor.effects, visibility: reg.descriptor.visibility } : {}),
          });
        }
        const text = isCurrent && run.pendingTool?.phase === 'executing'
          ? `Interrupted by the user while running.${partial ? ` Partial progress: ${partial}` : ''} The action may have been partly done; check before repeating it.`
          : 'Not executed: the user interrupted the turn.';
        await append({ kind: 'tool_result', id: this.ctx.ids.next('n'), createdAt: now, toolCallId: c.id, name: c.name, ok: false, outcome: 'interrupted', content: [{ type: 'text', text }], ...(reg?.descriptor.visibility === 'internal' ? { visibility: 'internal' } : {}) });
      }
      if (run.pendingTool?.approvalId) {
        const a = await store.approvals.get(run.pendingTool.approvalId);
        if (a?.status === 'pending') await store.approvals.put({ ...a, status: 'cancelled', resolvedAt: now });
      }
      if (run.pendingTool?.interactionId) {
        const i = await store.interactions.get(run.pendingTool.interactionId);
        if (i?.status === 'pending') await store.interactions.put({ ...i, status: 'cancelled', resolvedAt: now });
      }
      for (const s of [...run.pendingSteers].sort((a, b) => a.seq - b.seq)) {
        await append({ kind: 'user_message', id: this.ctx.ids.next('n'), createdAt: now, text: s.input.text, ...(s.input.images?.length ? { images: s.input.images } : {}), steered: true });
      }
      const notice = await appendNotice(this.ctx, run, leaf, 'interrupted', 'Interrupted. Continue to resume, or send a new message.');
      out.push(notice);
      leaf = notice.id;
      await store.threads.update(run.threadId, (t) => {
        t.leafId = leaf;
        t.updatedAt = now;
      });
      await store.runs.update(runId, (r) => {
        r.pendingSteers = [];
        r.pendingTool = undefined;
        r.stepCursor = { ...r.stepCursor, nextToolIndex: r.stepCursor.toolCalls.length };
        r.state = 'interrupted';
        r.stopReason = 'interrupted';
      }, now);
      return out;
    });
    for (const n of created) emitCommitted(this.ctx, n);
  }

  /** After a run stopped stepping: tell the UI, run lifecycle hooks, hand over to the queue. */
  async ended(runId: string): Promise<void> {
    const run = await this.ctx.store.runs.get(runId);
    if (!run) return;
    // Tool lifecycles first (L2 detaches the debugger), so that when the UI hears the turn is
    // complete, nothing of the turn is still attached to the user's tabs.
    for (const l of this.ctx.registry.lifecycleHooks) {
      try {
        if (run.state === 'interrupted') await l.runInterrupted?.(runId, run.threadId);
        else await l.runEnded?.(runId, run.threadId);
      } catch (e) {
        this.ctx.log.warn('tool lifecycle hook failed', { error: e instanceof Error ? e.message : String(e) });
      }
    }
    this.ctx.emit({ type: 'run.updated', threadId: run.threadId, runId, state: run.state, run: runSummary(run) });
    const thread = await this.ctx.store.threads.get(run.threadId);
    if (thread) this.ctx.emit({ type: 'thread.updated', thread: threadMeta(thread, run) });
    if (run.stopReason && run.state !== 'streaming_model' && run.state !== 'executing_tool') {
      this.ctx.emit({
        type: 'turn.complete',
        threadId: run.threadId,
        turnId: run.turnId,
        runId,
        stopReason: run.stopReason,
        ...(run.error ? { error: run.error } : {}),
      });
    }
    await this.hooks.runEnded(run);
  }
}
