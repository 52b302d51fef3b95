import type { ProviderMessage, ProviderRequest } from '../../providers/types';
import type { ToolCatalogEntry } from '../../store/records';
import { commitAssistant } from './assistant-commit';
import { estimateTokens, maybeCompact } from './compaction';
import { buildContext, runContextOptions } from '../context/context-builder';
import { RunAborted, type EngineContext } from '../host/engine-context';
import { discard, streamOnce } from './model-stream';
import { CONTINUATION_PROMPT, IntentTagFilter, PLANNING_PROMPT, stripIntentTags } from './planning';
import { InterruptedAnswer } from './run-aborted';
import { attemptFailed, failRun } from '../run/run-failure';
import { takeCutoff } from './step-cutoff';
import { refreshPageTools } from './page-catalog';
import { offeredTools } from './offered-tools';
import { currentRound, type StepOutcome } from '../run/step-outcome';

export type { StepOutcome };

/**
 * One model call of a run (spec/001 §2): take the steer cutoff and materialize admitted steers
 * after the leaf, build the context, stream, and commit the assistant message with its usage and
 * the run's next state in one transaction. Partial streams are never persisted: a failed or
 * interrupted attempt is discarded and redone from this checkpoint.
 */
export async function modelStep(
  ctx: EngineContext,
  runId: string,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const { store } = ctx;

  // 1. Cutoff: one per request. Budget check, steers materialized, attempt counted — atomically.
  const cut = await takeCutoff(ctx, runId);
  if (!cut) return 'ended';
  if (cut.kind !== 'call') return 'ended';
  // What the tab's page offers now joins the end of the catalog (page-catalog.ts).
  const run = await refreshPageTools(ctx, cut.run);
  const env = run.env!;

  // 2. Context from the path (old tool results clipped; older turns summarized when the window
  // fills up), and the provider.
  const round = currentRound(run);
  const contextOpts = runContextOptions(env);
  let path = await store.threads.path(run.threadId, cut.leaf);
  let messages = buildContext(path, contextOpts);
  const specs =
    env.modelInfo.toolUse && !round ? requestTools(env.toolCatalog, messages) : NO_TOOLS;
  const tools = specs.tools;
  const estimate = estimateTokens(env.systemPrompt, messages, specs.json);
  const compacted = await maybeCompact(ctx, run, path, estimate, signal);
  if (compacted !== path) {
    path = compacted;
    messages = buildContext(path, contextOpts);
  }
  const provider = await ctx.providers.resolve(env.providerId);
  if (!provider)
    return failRun(ctx, runId, {
      code: 'no_provider',
      message: `Provider "${env.providerId}" is not configured any more.`,
    });
  const toolsDisabled = run.counters.toolsDisabled;
  const system =
    round === 'plan'
      ? `${env.systemPrompt}\n\n${PLANNING_PROMPT}`
      : round === 'continuation'
        ? `${env.systemPrompt}\n\n${CONTINUATION_PROMPT}`
        : env.systemPrompt;
  const request: ProviderRequest = {
    model: env.model,
    system,
    messages,
    tools,
    ...(toolsDisabled && tools.length ? { toolChoice: 'none' as const } : {}),
    maxOutputTokens: Math.min(env.modelInfo.maxOutputTokens, 32_000),
    cacheKey: run.threadId,
    signal,
  };

  // 3. Stream.
  const assistantId = ctx.ids.next('n');
  const res = await streamOnce(ctx, run, provider, {
    assistantId,
    request,
    tags: round ? new IntentTagFilter() : null,
  });
  if (signal.aborted) {
    // The answer so far is kept (as an interrupted message, by the interrupt's commit); tool calls
    // that had started streaming never ran and are dropped.
    const kept = Boolean(res.text.trim() || res.thinking.trim());
    if (kept)
      for (const c of res.calls)
        ctx.emit({ type: 'item.discarded', threadId: run.threadId, itemId: c.nodeId });
    else discard(ctx, run.threadId, assistantId, res.calls);
    throw kept
      ? new InterruptedAnswer({
          assistantId,
          text: shownAnswer(res.text, round),
          thinking: res.thinking,
        })
      : new RunAborted();
  }
  if (res.error || !res.stop) {
    discard(ctx, run.threadId, assistantId, res.calls);
    const err = res.error ?? {
      code: 'stream' as const,
      message: 'The model stream ended without a stop reason.',
      retryable: true,
    };
    return attemptFailed(ctx, runId, err);
  }

  // 4. Commit the assistant message and decide the run's next state.
  return commitAssistant(ctx, run, assistantId, res, path);
}

const NO_TOOLS = { tools: [], json: '[]' };

/**
 * The tools one request offers (offered-tools.ts) and their JSON. The JSON is kept per catalog
 * and list: the catalog snapshot is frozen for the whole run (runs-repo.ts), and the list changes
 * only when the model loads a tool, so most steps reuse it.
 */
const specsOf = new WeakMap<
  object,
  Map<string, { tools: ProviderRequest['tools']; json: string }>
>();

function requestTools(catalog: ToolCatalogEntry[], messages: ProviderMessage[]) {
  const tools = offeredTools(catalog, messages);
  const key = tools.map((t) => t.name).join('\n');
  let byList = specsOf.get(catalog);
  let s = byList?.get(key);
  if (!s) {
    s = { tools, json: JSON.stringify(tools) };
    if (Object.isFrozen(catalog)) {
      if (!byList) specsOf.set(catalog, (byList = new Map()));
      byList.set(key, s);
    }
  }
  return s;
}

/** What the user saw of a round's text: intent tags never reach them. */
function shownAnswer(text: string, round: 'plan' | 'continuation' | undefined): string {
  return round ? stripIntentTags(text) : text;
}

export { currentRound, failRun };
