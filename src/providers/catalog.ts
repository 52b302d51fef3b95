import type { ProviderKind } from '../protocol';
import type { ModelInfo } from './types';

/**
 * Model capabilities and list prices (USD per million tokens), for the context budget and the cost
 * display. Checked against the vendors' pricing and model pages in November 2026 (Anthropic:
 * platform.claude.com "Pricing" and model overviews; OpenAI: the API pricing page). Anthropic's
 * `cacheWrite` is the 5-minute write price, which is what our cache breakpoints use; OpenAI has no
 * cache-write charge. Prices change: settings overrides win, and unknown models get no price (the
 * UI then shows no cost rather than a wrong one).
 */

type Entry = Omit<ModelInfo, 'id'>;
type Pricing = NonNullable<ModelInfo['pricing']>;

/** Anthropic prices cache reads at 0.1× input and 5-minute cache writes at 1.25× unless stated. */
function claudePrice(input: number, output: number, cacheRead = input / 10): Pricing {
  return { input, output, cacheRead, cacheWrite: input * 1.25 };
}

/**
 * A Claude model. `adaptive`: manual thinking budgets are deprecated or rejected. `fixedSampling`:
 * the model rejects non-default sampling parameters (Claude 4.7 / 5 generation onwards).
 */
function claude(
  contextWindow: number,
  maxOutputTokens: number,
  thinkingMode: 'budget' | 'adaptive',
  pricing: Pricing,
  fixedSampling = false,
): Entry {
  const entry: Entry = { toolUse: true, vision: true, contextWindow, maxOutputTokens, pricing };
  entry.thinking = true;
  entry.thinkingMode = thinkingMode;
  if (fixedSampling) entry.temperature = false;
  return entry;
}

/** An OpenAI model; reasoning models take an effort instead of a budget, and no temperature. */
function gpt(
  contextWindow: number,
  maxOutputTokens: number,
  reasoning: boolean,
  pricing: Pricing,
  vision = true,
): Entry {
  const base: Entry = { toolUse: true, vision, contextWindow, maxOutputTokens, pricing };
  return reasoning
    ? { ...base, thinking: true, thinkingMode: 'effort', temperature: false }
    : { ...base, thinking: false };
}

const M = 1_000_000;
const K = 1000;

export const ANTHROPIC_MODELS: Readonly<Record<string, Entry>> = {
  'claude-fable-5-1': claude(M, 128 * K, 'adaptive', claudePrice(10, 50, 0.25), true),
  'claude-fable-5': claude(M, 128 * K, 'adaptive', claudePrice(10, 50, 1), true),
  'claude-opus-5-5': claude(M, 128 * K, 'adaptive', claudePrice(4, 20, 0.2), true),
  'claude-opus-5': claude(M, 128 * K, 'adaptive', claudePrice(5, 25), true),
  'claude-sonnet-5-5': claude(M, 128 * K, 'adaptive', claudePrice(2, 10, 0.1), true),
  'claude-sonnet-5': claude(M, 128 * K, 'adaptive', claudePrice(2, 10), true),
  'claude-opus-4-8': claude(M, 128 * K, 'adaptive', claudePrice(5, 25), true),
  'claude-opus-4-7': claude(M, 128 * K, 'adaptive', claudePrice(5, 25), true),
  'claude-opus-4-6': claude(M, 128 * K, 'adaptive', claudePrice(5, 25)),
  'claude-sonnet-4-6': claude(M, 64 * K, 'adaptive', claudePrice(3, 15)),
  'claude-opus-4-5': claude(200 * K, 64 * K, 'budget', claudePrice(5, 25)),
  'claude-sonnet-4-5': claude(200 * K, 64 * K, 'budget', claudePrice(3, 15)),
  'claude-haiku-4-5': claude(200 * K, 64 * K, 'budget', claudePrice(1, 5)),
  'claude-opus-4-1': claude(200 * K, 32 * K, 'budget', claudePrice(15, 75)),
  'claude-opus-4-0': claude(200 * K, 32 * K, 'budget', claudePrice(15, 75)),
  'claude-sonnet-4-0': claude(200 * K, 64 * K, 'budget', claudePrice(3, 15)),
  'claude-3-7-sonnet': claude(200 * K, 64 * K, 'budget', claudePrice(3, 15)),
  'claude-3-5-haiku': { ...claude(200 * K, 8192, 'budget', claudePrice(0.8, 4)), thinking: false },
};

export const OPENAI_MODELS: Readonly<Record<string, Entry>> = {
  'gpt-5.5': gpt(1_050_000, 128 * K, true, { input: 5, output: 30, cacheRead: 0.5 }),
  'gpt-5.4': gpt(1_050_000, 128 * K, true, { input: 2.5, output: 15, cacheRead: 0.25 }),
  'gpt-5.4-mini': gpt(400 * K, 128 * K, true, { input: 0.75, output: 4.5, cacheRead: 0.075 }),
  'gpt-5.2': gpt(400 * K, 128 * K, true, { input: 1.75, output: 14, cacheRead: 0.175 }),
  'gpt-5.1': gpt(400 * K, 128 * K, true, { input: 1.25, output: 10, cacheRead: 0.125 }),
  'gpt-5': gpt(400 * K, 128 * K, true, { input: 1.25, output: 10, cacheRead: 0.125 }),
  'gpt-5-mini': gpt(400 * K, 128 * K, true, { input: 0.25, output: 2, cacheRead: 0.025 }),
  'gpt-5-nano': gpt(400 * K, 128 * K, true, { input: 0.05, output: 0.4, cacheRead: 0.005 }),
  'gpt-4.1': gpt(1_047_576, 32_768, false, { input: 2, output: 8, cacheRead: 0.5 }),
  'gpt-4.1-mini': gpt(1_047_576, 32_768, false, { input: 0.4, output: 1.6, cacheRead: 0.1 }),
  'gpt-4.1-nano': gpt(1_047_576, 32_768, false, { input: 0.1, output: 0.4, cacheRead: 0.025 }),
  'gpt-4o': gpt(128 * K, 16_384, false, { input: 2.5, output: 10, cacheRead: 1.25 }),
  'gpt-4o-mini': gpt(128 * K, 16_384, false, { input: 0.15, output: 0.6, cacheRead: 0.075 }),
  o3: gpt(200 * K, 100 * K, true, { input: 2, output: 8, cacheRead: 0.5 }),
  'o4-mini': gpt(200 * K, 100 * K, true, { input: 1.1, output: 4.4, cacheRead: 0.275 }),
  'o3-mini': gpt(200 * K, 100 * K, true, { input: 1.1, output: 4.4, cacheRead: 0.55 }, false),
  o1: gpt(200 * K, 100 * K, true, { input: 15, output: 60, cacheRead: 7.5 }),
};

/** Older names that mean a catalog entry (after the date suffix is removed). */
const ALIASES: Readonly<Record<string, string>> = {
  'claude-opus-4': 'claude-opus-4-0',
  'claude-sonnet-4': 'claude-sonnet-4-0',
  'claude-3-7-sonnet-latest': 'claude-3-7-sonnet',
  'claude-3-5-haiku-latest': 'claude-3-5-haiku',
  'chatgpt-4o-latest': 'gpt-4o',
};

/** What an unknown model gets: usable with tools, no images, a conservative window, no price. */
export const UNKNOWN_MODEL_DEFAULTS: Entry = {
  toolUse: true,
  vision: false,
  contextWindow: 128_000,
  maxOutputTokens: 8192,
};

/** A per-provider capability override from settings (`providers[].models`). */
export interface ModelOverride {
  id: string;
  toolUse?: boolean;
  vision?: boolean;
  contextWindow?: number;
  maxOutputTokens?: number;
}

/**
 * The catalog key for a model name as users and gateways write it: `anthropic/claude-sonnet-4.5`
 * (OpenRouter), `claude-sonnet-4-5-20250929` (dated snapshot), `gpt-4o-2024-08-06`.
 */
export function catalogKey(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf('/') + 1);
  if (id.startsWith('claude-')) id = id.replace(/(\d)\.(\d)/g, '$1-$2');
  id = id.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return ALIASES[id] ?? id;
}

export function catalogEntry(model: string): Entry | undefined {
  const key = catalogKey(model);
  return ANTHROPIC_MODELS[key] ?? OPENAI_MODELS[key];
}

/**
 * Capabilities and price of `model`: catalog entry (or the unknown-model defaults), then the
 * provider's override for that exact model id on top.
 */
export function lookupModel(model: string, overrides: readonly ModelOverride[] = []): ModelInfo {
  const base: ModelInfo = { id: model, ...(catalogEntry(model) ?? UNKNOWN_MODEL_DEFAULTS) };
  const override = overrides.find((candidate) => candidate.id === model);
  if (!override) return base;
  const info: ModelInfo = { ...base };
  if (override.toolUse !== undefined) info.toolUse = override.toolUse;
  if (override.vision !== undefined) info.vision = override.vision;
  if (override.contextWindow !== undefined) info.contextWindow = override.contextWindow;
  if (override.maxOutputTokens !== undefined) info.maxOutputTokens = override.maxOutputTokens;
  return info;
}

/** The catalog's models for a provider kind, for model pickers. */
export function catalogModels(kind: ProviderKind): ModelInfo[] {
  const table = kind === 'anthropic' ? ANTHROPIC_MODELS : OPENAI_MODELS;
  return Object.entries(table).map(([id, entry]) => ({ id, ...entry }));
}
