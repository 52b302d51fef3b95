export * from './types';
export { createProvider, providerModelInfo, type ProviderConfig } from './create-provider';
export type { ProviderDeps } from './provider-stream';
export {
  ScriptedProvider,
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedProviderOptions,
  type ScriptedReply,
  type ScriptedToolCall,
} from './scripted';
export {
  catalogEntry,
  catalogKey,
  catalogModels,
  lookupModel,
  UNKNOWN_MODEL_DEFAULTS,
  type ModelOverride,
} from './catalog';
export { costUsd } from './cost';
export {
  collectStream,
  createStreamAccumulator,
  parseToolArgs,
  type CollectedMessage,
  type CollectedToolCall,
} from './accumulate';
export {
  backoffDelay,
  defaultSleep,
  DEFAULT_RETRY_POLICY,
  streamWithRetry,
  type Random,
  type RetryPolicy,
  type Sleep,
} from './retry';
export { scrubSecrets } from './errors';
export { buildAnthropicRequest } from './anthropic/request';
export { buildChatRequest } from './openai-chat/request';
export { buildResponsesRequest } from './openai-responses/request';
