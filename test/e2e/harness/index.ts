/** Shared helpers for e2e tests: the browser with the extension, an engine client, a model server. */
export { launchExtension, chromiumExecutable, DEFAULT_DIST } from './launch-extension';
export type { LaunchOptions, LaunchedExtension } from './launch-extension';
export { EngineClient } from './engine-client';
export type {
  CommandAnswer,
  EngineClientOptions,
  PortDisconnected,
  ReceivedEvent,
  TestOp,
} from './engine-client';
export { startModelServer } from './model-server';
export type { ModelServer, ModelServerOptions, ProviderConfig } from './model-server';
export type {
  ApiKind,
  RecordedRequest,
  ScriptedReply,
  ScriptedStop,
  ScriptedToolCall,
  ScriptedUsage,
  ScriptStep,
} from './model-script';
export { isTitleRequest, restartWorker, runSettles } from './run-helpers';
