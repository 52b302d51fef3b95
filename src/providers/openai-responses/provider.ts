import {
  createOpenAIClient,
  isOpenAIPlatform,
  openaiErrorToProviderError,
  type OpenAIProviderConfig,
} from '../openai-chat/provider';
import { providerStream, type ProviderDeps } from '../provider-stream';
import type { Provider } from '../types';
import { createResponsesNormalizer } from './normalize';
import { buildResponsesRequest } from './request';

/** The Responses API (`POST {baseURL}/responses`), on OpenAI or a compatible server. */
export function createOpenAIResponsesProvider(
  config: OpenAIProviderConfig,
  deps: ProviderDeps = {},
): Provider {
  const client = createOpenAIClient(config, deps);
  const options = { promptCacheKey: isOpenAIPlatform(config.baseURL) };
  return {
    id: config.id,
    kind: 'openai-responses',
    stream(req) {
      return providerStream({
        req,
        deps,
        secrets: [config.apiKey],
        build: () => buildResponsesRequest(req, config.modelInfo(req.model), options),
        open: (body, signal) => client.responses.create(body, { signal }),
        normalizer: createResponsesNormalizer,
        toError: openaiErrorToProviderError,
      });
    },
  };
}
