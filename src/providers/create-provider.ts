import type { ProviderKind } from '../protocol';
import { createAnthropicProvider } from './anthropic/provider';
import { lookupModel, type ModelOverride } from './catalog';
import { createOpenAIChatProvider } from './openai-chat/provider';
import { createOpenAIResponsesProvider } from './openai-responses/provider';
import type { ProviderDeps } from './provider-stream';
import type { ModelInfo, Provider } from './types';

export interface ProviderConfig {
  id: string;
  kind: ProviderKind;
  /** Anthropic: the API root (default https://api.anthropic.com). OpenAI kinds: the `/v1` root. */
  baseURL?: string;
  /** The decrypted key, resolved by the caller at call time; empty for keyless local servers. */
  apiKey: string;
  /** Capability overrides from settings for models the catalog does not know. */
  models?: readonly ModelOverride[];
}

/** Catalog lookup with this provider's overrides: what the engine shows and budgets with. */
export function providerModelInfo(
  config: Pick<ProviderConfig, 'models'>,
  model: string,
): ModelInfo {
  return lookupModel(model, config.models ?? []);
}

/**
 * A live Provider for one configured endpoint. The key is held only by this object (and its SDK
 * client); build one per call from freshly decrypted settings and drop it afterwards.
 */
export function createProvider(config: ProviderConfig, deps: ProviderDeps = {}): Provider {
  const base = {
    id: config.id,
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    modelInfo: (model: string) => providerModelInfo(config, model),
  };
  switch (config.kind) {
    case 'anthropic':
      return createAnthropicProvider(base, deps);
    case 'openai':
      return createOpenAIChatProvider(base, deps);
    case 'openai-responses':
      return createOpenAIResponsesProvider(base, deps);
  }
}
