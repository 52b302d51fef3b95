import { defineConfig } from 'vitest/config';

// End-to-end tests: the built dist/ in Debian's Chromium through playwright-core.
// Each worker process keeps one Chromium and installs the extension afresh for every file
// (test/e2e/harness/shared-browser.ts); `isolate: false` is what lets that browser outlive a file.
// Two workers by default (these machines have 2 cores); KEEL_E2E_WORKERS overrides, 1 runs the
// files one at a time. docs/testing.md lists the overrides.
const workers = Math.max(1, Number(process.env.KEEL_E2E_WORKERS) || 2);

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/harness/global-setup.ts'],
    setupFiles: ['test/e2e/harness/setup.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: workers,
    fileParallelism: workers > 1,
  },
});
