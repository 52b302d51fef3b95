import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { abortedError, httpFailureToError, providerError, unknownFailureToError } from '../errors';
import { globalFetch, providerStream, type ProviderDeps } from '../provider-stream';
import type { ModelInfo, Provider, ProviderError } from '../types';
import { createAnthropicNormalizer } from './normalize';
import { buildAnthropicRequest } from './request';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderConfig {
  id: string;
  apiKey: string;
  baseURL?: string;
  modelInfo: (model: string) => ModelInfo;
}

export function anthropicErrorToProviderError(err: unknown): ProviderError {
  if (err instanceof APIUserAbortError) return abortedError();
  if (err instanceof APIConnectionError) {
    return providerError('network', err.message || 'Connection error.');
  }
  if (err instanceof APIError) {
    const { status, headers, error: body, message } = err;
    return httpFailureToError({ status, headers, body, fallbackMessage: message });
  }
  return unknownFailureToError(err);
}

/**
 * Authentication: the Messages API takes an API key in `x-api-key`; this SDK version sends a key
 * given as `apiKey` as `Authorization: Bearer` (the OAuth scheme), which the API rejects for
 * `sk-ant-api…` keys. So the key goes in `x-api-key` and the Authorization header is removed
 * (a null default header deletes it). `dangerouslyAllowBrowser` makes the SDK send
 * `anthropic-dangerous-direct-browser-access: true`, which the API requires for CORS requests from
 * a browser origin; we set it explicitly too, since the service worker depends on it.
 */
export function createAnthropicClient(
  config: { apiKey: string; baseURL?: string },
  deps: ProviderDeps,
): Anthropic {
  const headers: Record<string, string | null> = {
    Authorization: null,
    'anthropic-dangerous-direct-browser-access': 'true',
  };
  if (config.apiKey !== '') headers['x-api-key'] = config.apiKey;
  return new Anthropic({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
    fetch: deps.fetch ?? globalFetch,
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
    defaultHeaders: headers,
  });
}

export function createAnthropicProvider(
  config: AnthropicProviderConfig,
  deps: ProviderDeps = {},
): Provider {
  const client = createAnthropicClient(config, deps);
  return {
    id: config.id,
    kind: 'anthropic',
    stream(req) {
      return providerStream({
        req,
        deps,
        secrets: [config.apiKey],
        build: () => buildAnthropicRequest(req, config.modelInfo(req.model)),
        open: (body, signal) => client.messages.create(body, { signal }),
        normalizer: createAnthropicNormalizer,
        toError: anthropicErrorToProviderError,
      });
    },
  };
}
