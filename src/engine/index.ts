export { Engine } from './engine-core';
export { registerBuiltins } from './builtins';
export { SettingsProviderResolver } from './env/provider-resolver';
export type {
  EngineDeps,
  EngineOptions,
  FaultInjector,
  BrowserEnv,
  Clock,
  IdSource,
} from './host/types';
export { EngineKilled } from './host/engine-context';
