export { Engine } from './engine-core';
export { registerBuiltins } from './builtins';
export { SettingsProviderResolver } from './provider-resolver';
export type {
  EngineDeps,
  EngineOptions,
  FaultInjector,
  BrowserEnv,
  Clock,
  IdSource,
} from './types';
export { EngineKilled } from './context';
