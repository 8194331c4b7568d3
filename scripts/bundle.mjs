// Bundles the CLI (compiled by tsc into dist/) into a few CommonJS files in
// dist/src/cli/, by what a run needs (docs/internals.md, "Bundles"):
//
//   fast.cjs    the bin: what every run loads (the command line, the report
//               memo, the discovery record, the stamps) and nothing else;
//   report.cjs  a report or `limits` of a store already up to date: DuckDB's
//               JavaScript, the store, the queries, the renderers;
//   main.cjs    the rest: yargs' command line, the ingest and the harnesses,
//               the price data, the other commands;
//   statusline.cjs, ../ingest/worker.cjs  the status line and the extraction
//               worker, each on its own.
//
// A layer is the modules statically reachable from its roots that no layer
// before it holds. A module is bundled once, in its layer; another layer that
// imports it statically takes it from that layer's exports (the same module
// instance, its state included), and an `import()` of a module of another
// layer loads that layer when it runs. Packages stay outside (required from
// node_modules), but for @duckdb/node-api's and @pydantic/genai-prices'
// JavaScript, which are bundled in the layer that first needs them.
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every bundle is built as. */
const COMMON = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const cli = join(dist, 'src', 'cli');
/**
 * Packages whose JavaScript is bundled, in the layer named (others take it
 * from there); every other package is required from node_modules, and
 * compiled addons (.node) always are. DuckDB's JavaScript: its ~180 small
 * CommonJS files were resolved, read and compiled one by one; better-sqlite3
 * (the store's lock, store/lock.ts): resolving its files was ~28 M
 * instructions of every run that opens the store; the price data is one
 * 480 KB module.
 */
const PACKAGES = {
  '@duckdb/node-api': 'report',
  '@duckdb/node-bindings': 'report',
  'detect-libc': 'report',
  'better-sqlite3': 'report',
  '@pydantic/genai-prices': 'main',
};
const packageOf = (p) => Object.keys(PACKAGES).find((name) => p === name || p.startsWith(`${name}/`));
/** `createRequire(import.meta.url)('<package>...')`, how modules load CommonJS packages unbundled (store/duckdb.ts, store/lock.ts). */
const CREATE_REQUIRE = /createRequire\(import\.meta\.url\)\((['"])([^'"]+)\1\)/g;

/** The layers, in order: each takes what its roots reach that no earlier one holds; the last takes the rest. */
const LAYERS = [
  { name: 'fast', roots: ['src/cli/fast.js'] },
  { name: 'report', roots: ['src/cli/report.js', 'src/cli/limits.js', 'src/store/store.js'] },
  { name: 'main', roots: null },
];

/**
 * Leaves the bundle `file` pure ASCII. esbuild escapes what is not ASCII in
 * strings, regular expressions and names, but keeps comments as written, and
 * one "—" in a comment made Node read the whole file into a two-byte string:
 * ~5 ms instead of ~1 ms for a large bundle on every run. What is left can
 * only be in comments, where an escape sequence reads as well.
 */
function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

/** A module's id: its path under dist/, with forward slashes. */
const idOf = (abs) => relative(dist, abs).split(sep).join('/');

/** A bundled package loaded with createRequire, which a bundler cannot follow, as a plain require it can. */
const withRequires = (src) =>
  src.replace(CREATE_REQUIRE, (m, q, spec) =>
    packageOf(spec) && !spec.endsWith('.node') ? `require(${q}${spec}${q})` : m,
  );

/** A compiled module's text as bundled: each keeps its own import.meta.url (the file it was compiled to). */
function moduleText(abs) {
  let src = withRequires(readFileSync(abs, 'utf8'));
  if (src.includes('import.meta.url')) {
    const rel = relative(cli, abs).split(sep).join('/');
    src = src.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, __txUsageBundleUrl).href`);
  }
  return src;
}

/** `import('./x.js')` with a literal relative specifier, as tsc writes it. */
const DYNAMIC_IMPORT = /\bimport\((['"])(\.{1,2}\/[^'"]+)\1\)/g;

// The import graph of the project's compiled modules (packages left out), from the bin.
const graph = new Map(); // id -> { static: Set<id>, dynamic: Set<id>, packages: Set<specifier> }
{
  const r = await build({
    entryPoints: [join(cli, 'fast.js')],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    outdir: join(dist, '.graph'),
    logLevel: 'silent',
    plugins: [
      {
        name: 'packages-outside',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true }));
          // As bundled: a package loaded with createRequire is a plain require.
          b.onLoad({ filter: /\.js$/ }, (a) =>
            a.path.includes(`${sep}node_modules${sep}`)
              ? undefined
              : { contents: withRequires(readFileSync(a.path, 'utf8')), loader: 'js' },
          );
        },
      },
    ],
  });
  for (const [path, input] of Object.entries(r.metafile.inputs)) {
    const node = { static: new Set(), dynamic: new Set(), packages: new Set() };
    for (const i of input.imports) {
      if (i.external) {
        if (packageOf(i.path)) node.packages.add(i.path);
        continue;
      }
      (i.kind === 'dynamic-import' ? node.dynamic : node.static).add(idOf(resolve(root, i.path)));
    }
    graph.set(idOf(resolve(root, path)), node);
  }
}
const closure = (from, taken) => {
  const out = new Set();
  const stack = [...from];
  while (stack.length) {
    const id = stack.pop();
    if (out.has(id) || taken.has(id)) continue;
    out.add(id);
    for (const s of graph.get(id)?.static ?? []) stack.push(s);
  }
  return out;
};
const layerOf = new Map(); // id -> layer name
{
  const taken = new Set();
  for (const l of LAYERS) {
    const mods = l.roots ? closure(l.roots, taken) : new Set([...graph.keys()].filter((id) => !taken.has(id)));
    for (const id of mods) {
      taken.add(id);
      layerOf.set(id, l.name);
    }
  }
}
// What each layer must hand to others: modules imported statically from another layer, or dynamically.
const exported = new Map(LAYERS.map((l) => [l.name, { sync: new Set(), lazy: new Set() }]));
for (const [id, node] of graph) {
  for (const p of node.packages)
    if (PACKAGES[packageOf(p)] !== layerOf.get(id)) exported.get(PACKAGES[packageOf(p)]).sync.add(`package:${p}`);
  for (const s of node.static) if (layerOf.get(s) !== layerOf.get(id)) exported.get(layerOf.get(s)).sync.add(s);
  for (const d of node.dynamic) if (layerOf.get(d) !== layerOf.get(id)) exported.get(layerOf.get(d)).lazy.add(d);
}

const LOADER = `const __txUsageBundleUrl = require('node:url').pathToFileURL(__filename).href;
const __txUsageLayer = (layer, id) => Promise.resolve().then(() => require('./' + layer + '.cjs').__lazy[id]());`;

for (const l of LAYERS) {
  const ex = exported.get(l.name);
  const lines = [];
  // Modules by their namespace; CommonJS packages by their module.exports (what a default import of them is).
  const pkgs = [...ex.sync].filter((id) => id.startsWith('package:'));
  for (const id of ex.sync)
    if (!id.startsWith('package:'))
      lines.push(`export * as ${JSON.stringify(id)} from ${JSON.stringify(join(dist, id))};`);
  pkgs.forEach((id, i) => lines.push(`import pkg${i} from ${JSON.stringify(id.slice(8))};`));
  lines.push(
    `export const __packages = {${pkgs.map((id, i) => `${JSON.stringify(id.slice(8))}: pkg${i}`).join(', ')}};`,
  );
  lines.push(
    `export const __lazy = {${[...ex.lazy].map((id) => `${JSON.stringify(id)}: () => import(${JSON.stringify(join(dist, id))})`).join(', ')}};`,
  );
  // The bin's own module runs when its layer loads.
  if (l.name === 'fast') lines.push(`import ${JSON.stringify(join(cli, 'fast.js'))};`);
  const out = join(cli, `${l.name}.cjs`);
  await build({
    stdin: { contents: lines.join('\n'), resolveDir: cli, sourcefile: `${l.name}-layer.js`, loader: 'js' },
    ...COMMON,
    outfile: out,
    banner: { js: l.name === 'fast' ? `#!/usr/bin/env node\n${LOADER}` : LOADER },
    plugins: [
      {
        name: 'layers',
        setup(b) {
          // Another layer's file, as the shims below require it.
          b.onResolve({ filter: /^\.\/[a-z]+\.cjs$/ }, (a) =>
            a.namespace === 'other-layer' ? { path: a.path, external: true } : undefined,
          );
          // Compiled addons are loaded where they are installed.
          b.onResolve({ filter: /\.node$/ }, (a) => ({ path: a.path, external: true }));
          // better-sqlite3 finds its addon with the \`bindings\` package, which searches from the folder of
          // the code that calls it (a bundle's, here): named directly instead, where npm installs it.
          b.onResolve({ filter: /^bindings$/ }, () => ({ path: 'bindings', namespace: 'sqlite-addon' }));
          b.onLoad({ filter: /.*/, namespace: 'sqlite-addon' }, () => ({
            contents: `module.exports = (name) => require(require.resolve('better-sqlite3/build/Release/' + name));`,
            loader: 'js',
          }));
          // Packages stay outside, but for the bundled ones: in their layer, or taken from it.
          b.onResolve({ filter: /^[^./]/ }, (a) => {
            const pkg = packageOf(a.path);
            if (!pkg) return { path: a.path, external: true };
            if (PACKAGES[pkg] === l.name) return undefined;
            return { path: `package:${a.path}`, namespace: 'other-layer', pluginData: { owner: PACKAGES[pkg] } };
          });
          // A module of another layer: that layer's export of it.
          b.onResolve({ filter: /^\.{1,2}\// }, (a) => {
            if (!a.importer || a.importer.includes(`${sep}node_modules${sep}`)) return undefined;
            const id = idOf(resolve(dirname(a.importer), a.path));
            const owner = layerOf.get(id);
            if (!owner || owner === l.name || a.kind === 'dynamic-import') return undefined;
            return { path: id, namespace: 'other-layer', pluginData: { owner } };
          });
          b.onLoad({ filter: /.*/, namespace: 'other-layer' }, (a) => ({
            contents: a.path.startsWith('package:')
              ? `module.exports = require('./${a.pluginData.owner}.cjs').__packages[${JSON.stringify(a.path.slice(8))}];`
              : `module.exports = require('./${a.pluginData.owner}.cjs')[${JSON.stringify(a.path)}];`,
            loader: 'js',
          }));
          b.onLoad({ filter: /\.js$/ }, (a) => {
            if (a.path.includes(`${sep}node_modules${sep}`)) return undefined;
            const here = idOf(a.path);
            const src = moduleText(a.path).replace(DYNAMIC_IMPORT, (m, _q, spec) => {
              const id = idOf(resolve(dirname(a.path), spec));
              const owner = layerOf.get(id);
              return owner && owner !== layerOf.get(here)
                ? `__txUsageLayer(${JSON.stringify(owner)}, ${JSON.stringify(id)})`
                : m;
            });
            return { contents: src, loader: 'js' };
          });
        },
      },
    ],
  });
  writeFileSync(out, asciiOnly(readFileSync(out, 'utf8')));
  // The bin (fast.cjs) starts as npm's shims start any bin: through its `#!/usr/bin/env node` line.
  if (l.name === 'fast') chmodSync(out, 0o755);
}
rmSync(join(dist, '.graph'), { recursive: true, force: true });
// What earlier builds left that nothing reads now (V8's code for the one bundle main.cjs was).
rmSync(join(cli, 'main.cjs.code'), { force: true });

/** A bundle that runs on its own (its modules are copies of the layers' own): packages outside. */

async function standalone(entry, out) {
  await build({
    entryPoints: [entry],
    ...COMMON,
    outfile: out,
    define: { 'import.meta.url': '__txUsageUrl' },
    banner: { js: "const __txUsageUrl = require('node:url').pathToFileURL(__filename).href;" },
    packages: 'external',
  });
  writeFileSync(out, asciiOnly(readFileSync(out, 'utf8')));
}
// The status line (src/cli/statusline-entry.ts): run by the bin without any layer but its own.
await standalone(join(cli, 'statusline-entry.js'), join(cli, 'statusline.cjs'));
// The extraction worker (dist/src/ingest/worker.js and everything it loads,
// the harnesses' extractors included): each worker of a cold run loaded about
// 40 ES modules one by one before its first job (~30 ms per worker, on the
// cold run's critical path). pool.ts starts this file when it exists, else worker.js.
await standalone(join(dist, 'src', 'ingest', 'worker.js'), join(dist, 'src', 'ingest', 'worker.cjs'));
