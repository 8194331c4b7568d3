// Bundles the bin entry (dist/src/cli/fast.js, compiled by tsc) and the
// modules it imports statically into dist/src/cli/fast.cjs. Its dynamic
// imports stay as they are. The rest of the CLI (main.js and everything it
// imports, dynamically too) goes into dist/src/cli/main.cjs, which fast.cjs
// loads on a miss; main.js itself still runs as it is.
import { build } from 'esbuild';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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

/**
 * Leaves the bundle `file` pure ASCII. esbuild escapes what is not ASCII in
 * strings, regular expressions and names, but keeps comments as written, and
 * one "—" in a comment made Node read the whole file into a two-byte string:
 * ~5 ms instead of ~1 ms for main.cjs on every run. What is left can only be
 * in comments, where an escape sequence reads as well.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  if (ascii !== text) writeFileSync(file, ascii);
}
for (const name of ['fast', 'statusline']) {
  const out = join(root, 'dist', 'src', 'cli', `${name}.cjs`);
  await build({
    ...common,
    entryPoints: [join(root, 'dist', 'src', 'cli', `${name === 'statusline' ? 'statusline-entry' : name}.js`)],
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
  asciiOnly(out);
  // The bin (fast.cjs) starts as npm's shims start any bin: through its `#!/usr/bin/env node` line.
  if (name === 'fast' && !readFileSync(out, 'utf8').startsWith('#!/usr/bin/env node\n')) throw new Error(`${out}: expected the entry's #! line first`);
  chmodSync(out, 0o755);
}

// Everything else main.js runs (yargs commands, report, store, ingest,
// pricing...) as one CommonJS file next to it, which fast.cjs loads instead
// of main.js: Node's ES module loader resolved, read, compiled and linked
// ~70 modules one by one on a cold run's main thread (~80 ms of CPU less
// bundled, measured on the benchmark's cold run). Packages stay outside
// (but for @duckdb/node-api's JavaScript, see below).
// Each bundled module keeps its own import.meta.url (the compiled file it
// came from, relative to the bundle), which it uses to find the package
// root, the worker, the .proto file, the price data.
{
  const DUCKDB_API = '@duckdb/node-api';
  /** Packages whose JavaScript goes into main.cjs; every other one is required from node_modules. */
  const INSIDE = [DUCKDB_API, '@pydantic/genai-prices'];
  const DUCKDB_REQUIRE = `createRequire(import.meta.url)('${DUCKDB_API}')`;
  const out = join(root, 'dist', 'src', 'cli', 'main.cjs');
  await build({
    ...common,
    define: {},
    banner: { js: "const __txUsageBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    entryPoints: [join(root, 'dist', 'src', 'cli', 'main.js')],
    outfile: out,
    plugins: [
      {
        // Packages stay outside, but for @duckdb/node-api's JavaScript: its
        // ~180 small CommonJS files were resolved, read and compiled one by
        // one when a run first needed the store (~35 ms of the main thread's
        // CPU on a cold run, ~25 ms bundled instead). Its native part,
        // @duckdb/node-bindings, stays a package.
        // The same for @pydantic/genai-prices (one 480 KB file of code and
        // price data, ~18 ms to compile and ~16 ms to run on every report
        // that prices): inside the bundle, the code V8 keeps for the bundle
        // (scripts/code-cache.mjs) covers it too.
        name: 'packages-outside-but-duckdb-api-and-prices',
        setup(b) {
          const inside = (p) => INSIDE.some((name) => p === name || p.startsWith(`${name}/`));
          b.onResolve({ filter: /^[^./]/ }, (a) => (inside(a.path) ? undefined : { path: a.path, external: true }));
        },
      },
      {
        name: 'import-meta-url-per-module',
        setup(b) {
          b.onLoad({ filter: /\.js$/ }, (a) => {
            if (a.path.includes(`${sep}node_modules${sep}`)) return undefined;
            let src = readFileSync(a.path, 'utf8');
            // store/duckdb.js loads the package with createRequire (see there), which a bundler cannot follow.
            if (a.path.endsWith(join('store', 'duckdb.js'))) {
              if (!src.includes(DUCKDB_REQUIRE)) throw new Error(`bundle: ${a.path} no longer loads ${DUCKDB_API} with ${DUCKDB_REQUIRE}`);
              src = src.replace(DUCKDB_REQUIRE, `require('${DUCKDB_API}')`);
            }
            if (!src.includes('import.meta.url')) return { contents: src, loader: 'js' };
            const rel = relative(dirname(out), a.path).split('\\').join('/');
            return { contents: src.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, __txUsageBundleUrl).href`), loader: 'js' };
          });
        },
      },
    ],
  });
  asciiOnly(out);
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
asciiOnly(join(root, 'dist', 'src', 'ingest', 'worker.cjs'));
