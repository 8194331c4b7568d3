import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A safety net against a hung test, not a timing target: some end-to-end files take ~60 s on a loaded 2-core machine.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Most files wait on the CLI processes they spawn: two files at once on a 2-core machine (vitest's
    // default there is one) ran 107 files in 0.6x the wall time; more cores, one file per core less one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each test file gets its own TMPDIR and fails if it leaves anything there.
    setupFiles: ['test/setup/tmp-guard.ts'],
  },
});
