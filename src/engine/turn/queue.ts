import type { UserInput } from '../../protocol';
import type { EngineHost } from './engine-host';
import { EnvironmentError } from '../env/environment';
import { announceTurnStart, commitTurnStart, imagesRefusal, prepareStart } from './turn-lifecycle';
import { workflowRunStarted } from '../workflow/workflow-end';
import { prepareWorkflowStart } from './workflow-env';
import { publishWorkflows } from '../views/workflow-view';
import { moveRun } from '../run/run-edges';

/**
 * The queue (spec/001 §3): messages queued behind the thread's current run start in order when it
 * ends. A queued run resolves its environment only when it starts; if it cannot start, it fails
 * with its real reason (no provider, too large, no vision) and the next one is tried.
 */

export async function queueItems(
  engine: EngineHost,
  threadId: string,
): Promise<{ queueItemId: string; input: UserInput }[]> {
  return (await engine.ctx.store.runs.queued(threadId)).map((r) => ({
    queueItemId: r.runId,
    input: r.input ?? { text: '' },
  }));
}

/**
 * Whether a message can be queued for the model a queued start would use now (the default model):
 * images for a model without vision are refused at enqueue, like at submit. Null = fine (or
 * unknown: no model configured yet — the start itself will say so).
 */
export async function queuedInputRefusal(
  engine: EngineHost,
  input: UserInput,
): Promise<string | null> {
  if (!input.images?.length) return null;
  const { store, providers } = engine.ctx;
  const def = (await store.settings.get()).defaultModel;
  if (!def) return null;
  const info = await providers.modelInfo(def.providerId, def.model).catch(() => null);
  return info ? imagesRefusal(input, info.vision, def.model) : null;
}

/** Start the next queued run of a thread if it has no current run ("started in order when a turn ends"). */
export function startNextQueued(engine: EngineHost, threadId: string): Promise<void> {
  return engine.actors.for(threadId).run(async () => {
    const { store, clock } = engine.ctx;
    for (;;) {
      if (await store.runs.current(threadId)) return;
      const next = (await store.runs.queued(threadId))[0];
      if (!next) return;
      const thread = await store.threads.get(threadId);
      if (!thread) return;
      let prepared: Awaited<ReturnType<typeof prepareStart>>;
      let refusal: { code: string; message: string } | null = null;
      try {
        // A queued workflow run (a scheduled fire that found the thread busy) may replay alone.
        prepared = next.workflow
          ? await prepareWorkflowStart(engine, thread)
          : await prepareStart(engine, thread, next.overrides);
        const images = imagesRefusal(
          next.input ?? { text: '' },
          prepared.env.modelInfo.vision,
          prepared.env.model,
        );
        if (images) refusal = { code: 'no_vision', message: images };
      } catch (e) {
        refusal = {
          code: e instanceof EnvironmentError ? e.code : 'internal',
          message: e instanceof Error ? e.message : String(e),
        };
      }
      if (refusal) {
        const error = refusal;
        await engine.ctx.commit('queued_failed', async (outbox) => {
          await store.runs.update(
            next.runId,
            (r) => {
              moveRun(r, 'startNextQueued', 'failed');
              r.stopReason = 'error';
              r.error = error;
            },
            clock.now(),
          );
          outbox.emit({
            type: 'queue.updated',
            threadId,
            items: await queueItems(engine, threadId),
          });
          outbox.emit({
            type: 'turn.complete',
            threadId,
            turnId: next.turnId,
            runId: next.runId,
            stopReason: 'error',
            error,
          });
        });
        continue;
      }
      const started = await engine.ctx.commit('queued_start', async (outbox) => {
        if (await store.runs.current(threadId)) return null;
        const r0 = await store.runs.get(next.runId);
        if (!r0 || r0.state !== 'queued') return null;
        const t = (await store.threads.get(threadId))!;
        const now = clock.now();
        const run = await store.runs.update(
          next.runId,
          (r) => {
            moveRun(r, 'startNextQueued', 'streaming_model');
            r.env = prepared.env;
            if (prepared.tabId !== undefined) r.tabId = prepared.tabId;
            delete r.queueSeq;
          },
          now,
        );
        const res = await commitTurnStart(engine, {
          thread: t,
          run,
          input: r0.input ?? { text: '' },
          parentId: t.leafId,
          now,
        });
        await workflowRunStarted(engine.ctx, run);
        outbox.emit({ type: 'queue.updated', threadId, items: await queueItems(engine, threadId) });
        return { ...res, run };
      });
      if (!started) continue;
      await announceTurnStart(engine, started, 'inline');
      if (started.run.workflow) await publishWorkflows(engine.ctx);
      return;
    }
  });
}
