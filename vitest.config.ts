import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Unit tests: no crx plugin (TOOLCHAIN.md). Files that need a DOM opt in with
// `// @vitest-environment happy-dom` at their top.
// Workers: vitest's default is one fewer than the cores, which is a single worker on the 2-core
// machines CI runs on; the main process only collects results, so use every core.
// KEEL_UNIT_WORKERS overrides (docs/testing.md).
const workers = Math.max(1, Number(process.env.KEEL_UNIT_WORKERS) || availableParallelism());

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx', 'test/sim/**/*.test.ts'],
    environment: 'node',
    // Records the run machine's edges the tests take (scripts/run-edge-coverage.ts).
    setupFiles: ['test/setup/run-edges.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    maxWorkers: workers,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
