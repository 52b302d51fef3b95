import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWidgets } from '../../fixtures/widgets/build';
import { RUN_DIR_ENV } from './run-dir';

/**
 * Runs once before the e2e workers start (vitest.e2e.config.ts `globalSetup`).
 * - The widget fixtures are bundled here, so files that need them on two workers at once find
 *   them built (their own `buildWidgets()` is then a no-op) instead of writing the same files
 *   concurrently, and the bundling is not under a hook timeout.
 * - A directory for this run: the shared browsers' profiles and extension copies go there (the
 *   workers inherit the variable), and the teardown removes it once every worker has exited.
 */
export default async function setup(): Promise<() => Promise<void>> {
  await buildWidgets();
  const runDir = await mkdtemp(join(tmpdir(), 'keel-e2e-run-'));
  process.env[RUN_DIR_ENV] = runDir;
  return async () => {
    await rm(runDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
