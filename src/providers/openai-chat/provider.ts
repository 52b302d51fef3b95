import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { abortedError, httpFailureToError, providerError, unknownFailureToError } from '../errors';
import { globalFetch, providerStream, type ProviderDeps } from '../provider-stream';
import type { ModelInfo, Provider, ProviderError } from '../types';
import { createChatNormalizer } from './normalize';
import { buildChatRequest, type ChatRequestOptions } from './request';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderConfig {
  id: string;
  /** May be empty for local servers (Ollama, LM Studio, vLLM) that take no key. */
  apiKey: string;
  baseURL?: string;
  modelInfo: (model: string) => ModelInfo;
}

export function openaiErrorToProviderError(err: unknown): ProviderError {
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
 * The SDK refuses to start without a credential, so a keyless local server gets a placeholder key
 * and the Authorization header is removed (a null default header deletes it).
 */
export function createOpenAIClient(
  config: { apiKey: string; baseURL?: string },
  deps: ProviderDeps,
): OpenAI {
  const keyless = config.apiKey === '';
  return new OpenAI({
    apiKey: keyless ? 'keyless' : config.apiKey,
    baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    fetch: deps.fetch ?? globalFetch,
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
    defaultHeaders: keyless ? { Authorization: null } : undefined,
  });
}

/** Whether the endpoint is OpenAI's own API (which wants `max_completion_tokens`). */
export function isOpenAIPlatform(baseURL: string | undefined): boolean {
  if (baseURL === undefined) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

export function createOpenAIChatProvider(
  config: OpenAIProviderConfig,
  deps: ProviderDeps = {},
): Provider {
  const client = createOpenAIClient(config, deps);
  const onOpenAI = isOpenAIPlatform(config.baseURL);
  const options: ChatRequestOptions = {
    maxTokensField: onOpenAI ? 'max_completion_tokens' : 'max_tokens',
    replayReasoningContent: !onOpenAI,
    promptCacheKey: onOpenAI,
  };
  return {
    id: config.id,
    kind: 'openai',
    stream(req) {
      return providerStream({
        req,
        deps,
        secrets: [config.apiKey],
        build: () => buildChatRequest(req, config.modelInfo(req.model), options),
        open: (body, signal) => client.chat.completions.create(body, { signal }),
        normalizer: createChatNormalizer,
        toError: openaiErrorToProviderError,
      });
    },
  };
}
