// The report memo replays a rendering only while everything its run read
// gives the same answer again, and it knows what the run read because every
// read that can change an answer goes through core/inputs.ts (files, folders,
// the environment, the terminal). This holds that convention: reports are run
// (unbundled, so each stack names its module) with every file-system call and
// every read of the environment watched, and each one must come through
// core/inputs.ts or from a module whose reads are witnessed another way (the
// sources: their stamps are the memo's digest; discovery: its record; the
// store and tx-usage's own side files; the build). A report module that reads
// a file or a variable any other way fails here, naming the read and its stack.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';

const UNBUNDLED = resolve(__dirname, '../../dist/src/cli/fast.js');
const dir = tempDir('txu-report-reads-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Modules whose own reads are not the memo's inputs, and why: everything else
 * (report/, render/, live/, export/, pricing/, the report commands) must read
 * through core/inputs.ts.
 */
const WITNESSED: [RegExp, string][] = [
  [/^src\/core\/inputs\.js$/, 'the door itself'],
  [
    /^src\/ingest\/(stamp|tail|horizon|early|pool|worker|job|collect|ingest|discover|survey|handoff|sidecar|discovery-record|ready)\.js$/,
    'the sources (their stamps are the digest) and the side files of the ingest',
  ],
  [/^src\/io\//, 'readers of the sources, and the recorded discovery (observed-fs.ts)'],
  [/^src\/harnesses\//, "the harnesses' discovery (recorded) and extraction (of stamped sources)"],
  [/^src\/store\//, 'the store and its lock'],
  [
    /^src\/cli\/(memo|out-file|workdir)\.js$/,
    "the memo's own files and build stamps, the --out record, temporary folders",
  ],
  [
    /^src\/core\/(package-root|cache-dir)\.js$/,
    'the build (package.json), the cache folder (its variables read through Runtime.env)',
  ],
];

/** Variables read directly that are no input: they tune how a run works (core/inputs.ts RUN_KNOBS) or say where the run's own statistics go. */
const KNOBS = new Set([
  'TX_USAGE_STATS',
  'TX_USAGE_TRACE',
  'TX_USAGE_WORKERS',
  'TX_USAGE_DEBUG',
  'TX_USAGE_NO_WASM',
  'TX_USAGE_LOCK_WAIT_MS',
]);

const PRELOAD = `
const fs = require('node:fs');
const reads = [];
const here = () => new Error().stack.split('\\n').slice(2).join('\\n');
const watch = (obj, names, kind) => {
  for (const n of names) {
    const f = obj[n];
    if (typeof f !== 'function') continue;
    obj[n] = function (p, ...rest) {
      if (typeof p === 'string' || p instanceof URL || Buffer.isBuffer(p)) reads.push({ kind, fn: n, what: String(p), stack: here() });
      return f.call(this, p, ...rest);
    };
    if (f.native) obj[n].native = f.native;
  }
};
watch(fs, ['readFileSync', 'openSync', 'readdirSync', 'statSync', 'lstatSync', 'existsSync', 'realpathSync', 'accessSync', 'opendirSync', 'readFile', 'readdir', 'stat', 'lstat', 'open', 'access'], 'file');
watch(fs.promises, ['readFile', 'readdir', 'stat', 'lstat', 'open', 'access', 'opendir'], 'file');
require('node:module').syncBuiltinESMExports();
const env = process.env;
process.env = new Proxy(env, {
  get(t, k) { if (typeof k === 'string') reads.push({ kind: 'env', fn: 'get', what: k, stack: here() }); return Reflect.get(t, k); },
  has(t, k) { if (typeof k === 'string') reads.push({ kind: 'env', fn: 'has', what: k, stack: here() }); return Reflect.has(t, k); },
});
process.on('exit', () => fs.writeFileSync(process.env.TXU_READS_OUT, JSON.stringify(reads)));
`;

interface Read {
  kind: 'file' | 'env';
  fn: string;
  what: string;
  stack: string;
}

/** The module (dist/-relative) of each stack frame in the project, innermost first. */
function projectFrames(stack: string): string[] {
  const out: string[] = [];
  for (const m of stack.matchAll(/\/dist\/((?:src|fixtures)\/[^:)]+\.js):\d+/g)) out.push(m[1]!);
  return out;
}

/** Files that are tx-usage's own (the store, its lock and side files, temporary folders) or the build's (packages). */
const OWN_FILE =
  /(\/tx-usage\/(usage\.duckdb[^/]*|discovery\.json|report-memo\.json|outputs\.json|warnings-said\.json)$)|\/node_modules\/|\/tx-usage-runs-/;

/**
 * The reads of a run that are neither inputs (through core/inputs.ts, or of a
 * file or variable the run also asked through it: then its answer is part of
 * the memo's key) nor witnessed another way.
 */
function unwitnessed(reads: Read[]): string[] {
  const noted = new Set<string>();
  for (const r of reads) if (projectFrames(r.stack).includes('src/core/inputs.js')) noted.add(`${r.kind}\0${r.what}`);
  const bad: string[] = [];
  for (const r of reads) {
    const frames = projectFrames(r.stack);
    if (!frames.length) continue; // Node's own module loading, packages
    if (noted.has(`${r.kind}\0${r.what}`)) continue;
    if (r.kind === 'env' ? KNOBS.has(r.what) : OWN_FILE.test(r.what) || WITNESSED.some(([re]) => re.test(frames[0]!)))
      continue;
    bad.push(`${r.kind} ${r.fn}(${r.what}) from ${frames[0]}\n${r.stack.split('\n').slice(0, 6).join('\n')}`);
  }
  return [...new Set(bad)];
}

describe('what a report reads', () => {
  it("goes through core/inputs.ts, but for the sources, discovery, the store and tx-usage's own files", () => {
    const all = buildAllHome(join(dir, 'home'));
    all.close();
    const preload = join(dir, 'watch-reads.cjs');
    writeFileSync(preload, PRELOAD);
    const out = join(dir, 'reads.json');
    const env = cleanEnv(all.home, { TXU_READS_OUT: out, COLUMNS: '120' });
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, ['--require', preload, UNBUNDLED, ...args], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')) as Read[];
    };
    const range = ['--since', '2025-09-01', '--until', '2026-12-31'];
    const problems: string[] = [];
    // A first run (the full path: discovery, ingest, prices), new questions of a current store, a memo hit.
    for (const args of [
      ['report', ...range, '--format', 'json'],
      ['report', ...range, '--by', 'model,machine', '--format', 'json'],
      ['report', 'compare', ...range, '--format', 'json'],
      ['report', 'monthly', '--format', 'json'],
      ['report', ...range, '--by', 'session', '--tz', 'Asia/Kolkata'],
      ['report', ...range, '--by', 'project', '--format', 'html', '--out', join(dir, 'r.html')],
      ['report', ...range, '--format', 'json'],
    ])
      problems.push(...unwitnessed(run(args)).map((p) => `${args.join(' ')}: ${p}`));
    expect(problems).toEqual([]);
  });
});
