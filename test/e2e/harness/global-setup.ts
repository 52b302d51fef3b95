import { buildWidgets } from '../../fixtures/widgets/build';

/**
 * Runs once before the e2e workers start (vitest.e2e.config.ts `globalSetup`): the widget
 * fixtures are bundled here, so files that need them on two workers at once find them built
 * (their own `buildWidgets()` is then a no-op) instead of writing the same files concurrently.
 */
export default async function setup(): Promise<void> {
  await buildWidgets();
}
