import { tmpdir } from 'node:os';

/** Set by the e2e globalSetup: a directory removed when the run ends. */
export const RUN_DIR_ENV = 'KEEL_E2E_RUN_DIR';

/** Where a shared browser keeps its profile and extension copies: the run's directory if any. */
export function runDir(): string {
  return process.env[RUN_DIR_ENV] || tmpdir();
}
