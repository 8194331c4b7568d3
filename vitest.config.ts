import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A safety net against a hung test, not a timing target: some end-to-end files take ~60 s on a loaded 2-core machine.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Each test file gets its own TMPDIR and fails if it leaves anything there.
    setupFiles: ['test/setup/tmp-guard.ts'],
  },
});
