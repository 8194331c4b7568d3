// Bundles the bin entry (dist/src/cli/fast.js, compiled by tsc) and the
// modules it imports statically into dist/src/cli/fast.cjs, and the delta
// path (dist/src/cli/delta.js) into dist/src/cli/delta.cjs, which the memo
// check loads only on a miss, so that a hit never parses it. Dynamic imports
// stay as they are: they load the compiled ES modules next to them (main.js
// and what it needs), so nothing but the warm and delta paths is duplicated.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What every bundle here shares: one CommonJS file for Node 20 next to the compiled modules. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  // import.meta.url of the bundled modules: the bundle's own URL (it sits next to them).
  define: { 'import.meta.url': '__txUsageUrl' },
  banner: { js: "const __txUsageUrl = require('node:url').pathToFileURL(__filename).href;" },
};
for (const name of ['fast', 'delta']) {
  const out = join(root, 'dist', 'src', 'cli', `${name}.cjs`);
  await build({
    ...common,
    entryPoints: [join(root, 'dist', 'src', 'cli', `${name}.js`)],
    outfile: out,
    plugins: [
      {
        name: 'dynamic-imports-stay',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined));
        },
      },
    ],
  });
  chmodSync(out, 0o755);
}

// The extraction worker (dist/src/ingest/worker.js and everything it loads,
// the harnesses' extractors included) as one CommonJS file next to it: each
// worker of a cold run loaded about 40 ES modules one by one before its first
// job (~30 ms per worker, on the cold run's critical path). Packages stay
// outside (required from node_modules as usual). pool.ts starts this file
// when it exists, else worker.js.
await build({
  ...common,
  entryPoints: [join(root, 'dist', 'src', 'ingest', 'worker.js')],
  outfile: join(root, 'dist', 'src', 'ingest', 'worker.cjs'),
  packages: 'external',
});
