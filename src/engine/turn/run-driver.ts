import type { RunRecord } from '../../store/records';
import { closeRemainingCalls } from '../run/close-calls';
import { EngineKilled, RunAborted, type EngineContext } from '../host/engine-context';
import { InterruptedAnswer, type PartialAnswer } from '../model/run-aborted';
import { LeafWriter } from '../run/leaf-writer';
import { modelStep } from '../model/model-step';
import { failRun } from '../run/run-failure';
import { driveAction, isDriven, onInterrupt } from '../run/run-machine';
import { commitEnd } from '../run/run-end';
import type { StepOutcome } from '../run/step-outcome';
import { toolStep } from '../call/tool-step';
import { workflowRunEnded } from '../workflow/workflow-end';
import { replayStep } from '../workflow/workflow-step';
import { externalStep } from '../workflow/external-step';
import { replayReport } from '../../workflows/replay';
import { runSummary, threadMeta } from '../views/thread-view';
import { takeOverPoint } from '../run/take-over';
import { pauseForUser, takeOverFacts } from './hand-over';

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
        // The user asked for the page (run.takeOver): every step boundary is checked, so a
        // running call or stream finishes and is recorded first (take-over.ts).
        if (
          takeOverPoint(takeOverFacts(run)).kind === 'pause' &&
          (await pauseForUser(this.ctx, run))
        )
          return;
        const action = driveAction(run.state);
        const out: StepOutcome =
          action === 'model'
            ? run.external
              ? await externalStep(this.ctx, runId)
              : run.workflow?.mode === 'replay'
                ? await replayStep(this.ctx, runId)
                : await modelStep(this.ctx, runId, controller.signal)
            : action === 'tool'
              ? await toolStep(this.ctx, runId, controller.signal)
              : action;
        if (out === 'parked') return;
        if (out === 'ended') {
          await this.ended(runId);
          return;
        }
      }
    } catch (e) {
      if (e instanceof EngineKilled) throw e;
      if (e instanceof RunAborted || controller.signal.aborted) {
        await this.finalizeInterrupt(
          runId,
          e instanceof RunAborted ? e.partial : undefined,
          e instanceof InterruptedAnswer ? e.answer : undefined,
        );
        await this.ended(runId);
        return;
      }
      this.ctx.log.error('run failed unexpectedly', {
        runId,
        error: e instanceof Error ? e.message : String(e),
      });
      await failRun(this.ctx, runId, {
        code: 'internal',
        message: `Internal error: ${e instanceof Error ? e.message : String(e)}`,
      });
      await this.ended(runId);
    } finally {
      this.live.delete(runId);
      release();
    }
  }

  /**
   * Commit an interrupt (spec/001 §3, `onInterrupt`): keep what was committed, and the answer
   * streamed so far as an assistant message ending `interrupted` (recovery and the context see
   * it); the call in flight gets an "interrupted" result (with any partial output) and the rest of
   * its batch "not executed"; acknowledged steers are materialized at this safe leaf; the run
   * ends `interrupted`.
   */
  async finalizeInterrupt(runId: string, partial?: string, answer?: PartialAnswer): Promise<void> {
    const { store } = this.ctx;
    await this.ctx.commit('interrupt', async (outbox) => {
      const run = await store.runs.get(runId);
      if (!run) return;
      const t = onInterrupt({
        state: run.state,
        toolCalls: run.stepCursor.toolCalls,
        nextToolIndex: run.stepCursor.nextToolIndex,
        ...(run.pendingTool ? { pendingTool: run.pendingTool } : {}),
        ...(partial ? { partial } : {}),
      });
      if (t.kind === 'noop') return;
      const now = this.ctx.clock.now();
      const w = await LeafWriter.open(this.ctx, run, outbox);
      const kept =
        answer && run.state === 'streaming_model' && (answer.text.trim() || answer.thinking.trim());
      if (kept) {
        await w.append({
          kind: 'assistant_message',
          id: answer.assistantId,
          createdAt: now,
          text: answer.text,
          ...(answer.thinking ? { thinking: answer.thinking } : {}),
          providerStopReason: 'interrupted',
          ...(run.env ? { model: run.env.model, providerId: run.env.providerId } : {}),
        });
      }
      await closeRemainingCalls(
        this.ctx,
        w,
        run,
        t.close.map((c) => ({ call: run.stepCursor.toolCalls[c.index], why: c.why })),
        { outcome: 'interrupted' },
      );
      if (t.cancelApproval) {
        const a = await store.approvals.get(t.cancelApproval);
        if (a?.status === 'pending')
          await store.approvals.put({ ...a, status: 'cancelled', resolvedAt: now });
      }
      if (t.cancelInteraction) {
        const i = await store.interactions.get(t.cancelInteraction);
        if (i?.status === 'pending')
          await store.interactions.put({ ...i, status: 'cancelled', resolvedAt: now });
      }
      // After a kept partial answer the model must hear that it was cut off (and the next
      // request must not end on an assistant message).
      const notice = kept
        ? {
            code: 'interrupted',
            text: 'The user interrupted this reply. Continue to resume, or send a new message.',
            forModel: true,
          }
        : { code: 'interrupted', text: 'Interrupted. Continue to resume, or send a new message.' };
      await commitEnd(
        this.ctx,
        w,
        run,
        { by: 'onInterrupt', to: 'interrupted', stopReason: 'interrupted', notice },
        {
          run: (r) => {
            r.pendingTool = undefined;
            r.stepCursor = { ...r.stepCursor, nextToolIndex: r.stepCursor.toolCalls.length };
          },
        },
      );
    });
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
        this.ctx.log.warn('tool lifecycle hook failed', {
          error: e instanceof Error ? e.message : String(e),
        });
      }
    }
    this.ctx.emit({
      type: 'run.updated',
      threadId: run.threadId,
      runId,
      state: run.state,
      run: runSummary(run),
    });
    const thread = await this.ctx.store.threads.get(run.threadId);
    if (thread) this.ctx.emit({ type: 'thread.updated', thread: threadMeta(thread, run) });
    if (run.stopReason && !isDriven(run.state)) {
      this.ctx.emit({
        type: 'turn.complete',
        threadId: run.threadId,
        turnId: run.turnId,
        runId,
        stopReason: run.stopReason,
        ...(run.error ? { error: run.error } : {}),
        ...(run.workflow
          ? { workflow: replayReport(run.workflow, run.stepCursor.modelCalls) }
          : {}),
      });
    }
    if (run.workflow) await workflowRunEnded(this.ctx, run);
    await this.hooks.runEnded(run);
  }
}
