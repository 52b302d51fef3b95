import { placeholderOf } from '../../secrets/site-secrets';
import type { ModelInfo, ProviderResolver } from '../../providers/types';
import {
  RECORD_VERSION,
  type RunEnvironmentSnapshot,
  type SettingsRecord,
  type ToolCatalogEntry,
} from '../../store/records';
import { catalogOf, type RegisteredTool, type ToolRegistry } from '../../tools/registry';
import type { ToolDescriptor } from '../../tools/types';
import { buildSystemPrompt } from './system-prompt';

/** The transport kind of a workflow run's environment when no model is configured. */
export const REPLAY_ONLY_TRANSPORT = 'none';

export class EnvironmentError extends Error {
  constructor(
    readonly code: 'no_provider' | 'drift' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Resolve a run's environment once, when it starts: model, prompt, tool catalog with digests,
 * transport identity. Capabilities shape the catalog (spec/001 §4): `toolUse: false` binds an
 * empty catalog; `vision: false` removes the screenshot tool.
 */
export async function resolveEnvironment(args: {
  settings: SettingsRecord;
  overrides?: { providerId?: string; model?: string };
  providers: ProviderResolver;
  registry: ToolRegistry;
  now: number;
  planFirst: boolean;
  maxBytes: number;
  /** The thread's enabled skills, with bodies. */
  skills?: { name: string; description: string; body: string }[];
}): Promise<RunEnvironmentSnapshot> {
  const { settings, overrides } = args;
  const providerId = overrides?.providerId ?? settings.defaultModel?.providerId;
  const model =
    overrides?.model ??
    (overrides?.providerId && overrides.providerId !== settings.defaultModel?.providerId
      ? undefined
      : settings.defaultModel?.model);
  if (!providerId || !model)
    throw new EnvironmentError(
      'no_provider',
      'No model is configured: add a provider and choose a model in settings.',
    );
  const transport = await args.providers.transportIdentity(providerId);
  if (!transport)
    throw new EnvironmentError('no_provider', `Provider "${providerId}" is not configured.`);
  const info: ModelInfo = await args.providers.modelInfo(providerId, model);
  const skills = args.skills ?? [];
  const tools = info.toolUse
    ? args.registry.list().filter(
        (t) =>
          (info.vision || t.tool.name !== 'browser_screenshot') &&
          (skills.length > 0 || t.tool.name !== 'get_skill') &&
          // Proposing a plan means something only where the Gatekeeper reads one.
          (settings.approvalMode === 'plan' || t.tool.name !== 'propose_plan') &&
          // Page tools join a run's catalog per model call, from its tab (page-catalog.ts).
          t.descriptor.binding.kind !== 'page',
      )
    : [];
  // Bound first: an oversized or too deeply nested catalog is refused before any digest is computed.
  checkToolBounds(tools.map((t) => t.descriptor));
  const toolCatalog = await catalogOf(tools);
  const env: RunEnvironmentSnapshot = {
    v: RECORD_VERSION,
    systemPrompt: buildSystemPrompt({
      now: args.now,
      locale: settings.locale,
      toolNames: toolCatalog.map((t) => t.name),
      skills: info.toolUse ? skills : [],
      secrets: (settings.siteSecrets ?? []).map(placeholderOf).sort(),
    }),
    providerId,
    model,
    modelInfo: {
      toolUse: info.toolUse,
      vision: info.vision,
      contextWindow: info.contextWindow,
      maxOutputTokens: info.maxOutputTokens,
      ...(info.pricing ? { pricing: info.pricing } : {}),
    },
    transport,
    toolCatalog,
    skills: info.toolUse ? skills : [],
    tokenBudget: settings.tokenBudget,
    approvalMode: settings.approvalMode,
    planFirst: args.planFirst,
  };
  checkSnapshotBounds(env, args.maxBytes);
  return env;
}

/**
 * Before a recovered run continues, its snapshot must still describe the world: same transport
 * and credential reference shape, and for each tool in the catalog the same descriptor digest.
 * A rotated key behind the same reference is fine. Returns the drift, or null.
 */
export async function verifyEnvironment(
  env: RunEnvironmentSnapshot,
  providers: ProviderResolver,
  tools: ReadonlyMap<string, RegisteredTool>,
): Promise<string | null> {
  if (env.v !== RECORD_VERSION) return `the run was created by an incompatible version (${env.v})`;
  // A replay-only run (no model configured, src/engine/workflow-env.ts) has no transport to check.
  const transport =
    env.transport.kind === REPLAY_ONLY_TRANSPORT
      ? env.transport
      : await providers.transportIdentity(env.providerId);
  if (!transport) return `provider "${env.providerId}" was removed`;
  if (
    transport.kind !== env.transport.kind ||
    (transport.baseURL ?? '') !== (env.transport.baseURL ?? '')
  ) {
    return `provider "${env.providerId}" now points to a different endpoint`;
  }
  if (
    Boolean(transport.credentialRef) !== Boolean(env.transport.credentialRef) ||
    (transport.credentialRef && transport.credentialRef !== env.transport.credentialRef)
  ) {
    return `the credential of provider "${env.providerId}" changed shape`;
  }
  const current = await catalogOf(
    [...tools.values()].filter((t) => env.toolCatalog.some((e) => e.name === t.descriptor.name)),
  );
  const byName = new Map(current.map((e) => [e.name, e]));
  for (const entry of env.toolCatalog) {
    // Page tools live in their page, not in the worker: they are listed again before the next
    // model call, and a call of one is re-checked against its page when it runs.
    if (entry.descriptor.binding.kind === 'page') continue;
    const now = byName.get(entry.name);
    if (!now) return `tool ${entry.name} is no longer available`;
    if (now.digest !== entry.digest) return `tool ${entry.name} changed since the run started`;
  }
  return null;
}

export function catalogEntry(
  env: RunEnvironmentSnapshot,
  name: string,
): ToolCatalogEntry | undefined {
  return env.toolCatalog.find((e) => e.name === name);
}

/** Bounds on what a run snapshot may hold (spec/001 §5): total bytes, catalog entries, nesting depth. */
export const SNAPSHOT_LIMITS = { maxEntries: 256, maxEntryBytes: 64 * 1024, maxDepth: 24 } as const;

/**
 * The per-tool bounds (entry count, nesting depth — checked before size, since serializing a
 * pathologically deep schema is itself the hazard — and bytes per definition). Cheap and
 * synchronous, so it runs before any digest.
 */
export function checkToolBounds(descriptors: readonly ToolDescriptor[]): void {
  if (descriptors.length > SNAPSHOT_LIMITS.maxEntries) {
    throw new EnvironmentError(
      'too_large',
      `${descriptors.length} tools are enabled (limit ${SNAPSHOT_LIMITS.maxEntries}); disable some MCP servers or tools.`,
    );
  }
  for (const d of descriptors) {
    if (depthOf(d.inputSchema) > SNAPSHOT_LIMITS.maxDepth)
      throw new EnvironmentError(
        'too_large',
        `Tool ${d.name} has a schema nested deeper than ${SNAPSHOT_LIMITS.maxDepth} levels.`,
      );
    // + room for the catalog entry's name and digest.
    const size = JSON.stringify(d).length + d.name.length + 100;
    if (size > SNAPSHOT_LIMITS.maxEntryBytes)
      throw new EnvironmentError(
        'too_large',
        `Tool ${d.name} has a ${size}-byte definition (limit ${SNAPSHOT_LIMITS.maxEntryBytes}).`,
      );
  }
}

export function checkSnapshotBounds(env: RunEnvironmentSnapshot, maxBytes: number): void {
  checkToolBounds(env.toolCatalog.map((e) => e.descriptor));
  const bytes = JSON.stringify(env).length;
  if (bytes > maxBytes)
    throw new EnvironmentError(
      'too_large',
      `The run environment is ${bytes} bytes (limit ${maxBytes}); disable some tools or MCP servers.`,
    );
}

function depthOf(v: unknown, d = 0): number {
  if (d > SNAPSHOT_LIMITS.maxDepth) return d;
  if (!v || typeof v !== 'object') return d;
  let max = d;
  for (const x of Object.values(v as object)) max = Math.max(max, depthOf(x, d + 1));
  return max;
}
