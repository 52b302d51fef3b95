import { defineConfig } from 'vitest/config';

// End-to-end tests: the built dist/ in Debian's Chromium through playwright-core.
// Files run one at a time: each launches its own browser, and these machines have 2 cores.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
