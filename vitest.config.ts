import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each test file gets its own TMPDIR and fails if it leaves anything there.
    setupFiles: ['test/setup/tmp-guard.ts'],
  },
});
