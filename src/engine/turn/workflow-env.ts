import {
  RECORD_VERSION,
  type RunEnvironmentSnapshot,
  type ThreadRecord,
} from '../../store/records';
import { catalogOf, type RegisteredTool } from '../../tools/registry';
import type { EngineHost } from './engine-host';
import { checkToolBounds, EnvironmentError, REPLAY_ONLY_TRANSPORT } from '../env/environment';
import { buildSystemPrompt } from '../env/system-prompt';
import { prepareStart } from './turn-lifecycle';

/**
 * The environment of a workflow run. With a model that can use tools it is an ordinary turn's
 * (a divergence can be handed over). Without one — none configured, or no tool use — the run is
 * replay-only: every registered tool in the catalog (so the steps can act), no transport, and a
 * divergence stops the run.
 */
export async function prepareWorkflowStart(
  engine: EngineHost,
  thread: ThreadRecord,
): Promise<{ env: RunEnvironmentSnapshot; tabId?: number }> {
  try {
    const prepared = await prepareStart(engine, thread);
    if (prepared.env.modelInfo.toolUse) return prepared;
  } catch (e) {
    if (!(e instanceof EnvironmentError) || e.code !== 'no_provider') throw e;
  }
  return toolsOnlyStart(engine, engine.ctx.registry.list());
}

/**
 * A run that needs no model (a replay-only workflow, an outside agent's call through the MCP
 * bridge): the given tools in the catalog, no transport, the settings' approval mode.
 */
export async function toolsOnlyStart(
  engine: EngineHost,
  tools: RegisteredTool[],
): Promise<{ env: RunEnvironmentSnapshot; tabId?: number }> {
  const { ctx } = engine;
  const settings = await ctx.store.settings.get();
  checkToolBounds(tools.map((t) => t.descriptor));
  const toolCatalog = await catalogOf(tools);
  const env: RunEnvironmentSnapshot = {
    v: RECORD_VERSION,
    systemPrompt: buildSystemPrompt({
      now: ctx.clock.now(),
      locale: settings.locale,
      toolNames: toolCatalog.map((t) => t.name),
      skills: [],
    }),
    providerId: '',
    model: '',
    modelInfo: { toolUse: false, vision: false, contextWindow: 0, maxOutputTokens: 0 },
    transport: { kind: REPLAY_ONLY_TRANSPORT },
    toolCatalog,
    skills: [],
    tokenBudget: null,
    approvalMode: settings.approvalMode,
    planFirst: false,
  };
  const tabId = await ctx.browser?.activeTabId().catch(() => undefined);
  return { env, ...(tabId !== undefined ? { tabId } : {}) };
}
