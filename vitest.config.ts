import { defineConfig } from 'vitest/config';

// Unit tests: no crx plugin (TOOLCHAIN.md). Files that need a DOM opt in with
// `// @vitest-environment happy-dom` at their top.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx', 'test/sim/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'threads',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
