// `node dist/bench/same-answers.js --base DIR [--corpus HOME]... [--tz ZONE]...`: proves a
// change of how answers are computed (issue 37: units and session facts kept
// at write time, the discovery record, batching) left the answers as they
// were. Runs a base build (a checkout with dist/ built, e.g. `git worktree add
// /tmp/x 53b66ff && cd /tmp/x && ln -s $PWD/node_modules . && npm run build`)
// and this build on the same homes — the all-harness fixture home, the demo
// home, and any benchmark corpus homes given — for every report (summary by
// many keys, compare, monthly, --by session, blocks, limits, in JSON and a few
// in CSV, HTML and table form) and compares stdout, stderr and exit code byte
// for byte. A third run uses a copy of the base build's store, made before
// any of this build's commands: this build migrates it forward, and must give
// the same answers from it (the migration path). Every command runs in each
// zone given with --tz (the system zone, TZ; default UTC alone), e.g. a :30
// and a :45 offset (Asia/Kolkata, Asia/Kathmandu) and a 30-minute DST
// (Australia/Lord_Howe). Exit 1 on any difference.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAllHome } from '../fixtures/all-harnesses.js';
import { writeDemoHome } from '../fixtures/demo.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Options {
  base: string;
  corpora: string[];
  zones: string[];
  fixtures: boolean;
  keep: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      base: { type: 'string' },
      corpus: { type: 'string', multiple: true },
      tz: { type: 'string', multiple: true },
      'no-fixtures': { type: 'boolean' },
      keep: { type: 'boolean' },
    },
  });
  if (!values.base)
    throw new Error(
      '--base DIR: a checkout of the base commit with dist/ built ([--corpus HOME]... [--tz ZONE]... [--no-fixtures] [--keep])',
    );
  return {
    base: resolve(values.base),
    corpora: (values.corpus ?? []).map((c) => resolve(c)),
    zones: values.tz?.length ? values.tz : ['UTC'],
    fixtures: !values['no-fixtures'],
    keep: !!values.keep,
  };
}

/** Every report asked of each home, in this order (the first ones read with a horizon, later ones reach further back). */
function commands(): string[][] {
  const all = ['--since', '2024-01-01', '--until', '2027-12-31'];
  const json = ['--format', 'json'];
  const c: string[][] = [
    ['report', ...json],
    ['report', '--by', 'harness,project', ...json],
    ['report', 'compare', ...json],
    ['report', '--by', 'model,day', ...json],
    ['report', 'monthly', ...json],
    ['report', '--since', '7d', '--by', 'session', ...json],
    ['report', '--by', 'week', ...json],
    ['report', 'blocks', ...json],
    ['limits', ...json],
    ['report', ...all, ...json],
    ['report', ...all, '--by', 'month', ...json],
    ['report', ...all, '--by', 'model', ...json],
    ['report', ...all, '--by', 'project', ...json],
    ['report', ...all, '--by', 'harness', ...json],
    ['report', ...all, '--by', 'session', ...json],
    ['report', ...all, '--by', 'session', '--sort', 'tokens', ...json],
    ['report', ...all, '--by', 'day,harness,model', ...json],
    ['report', ...all, '--by', 'harness,session', '--tz', 'America/Los_Angeles', ...json],
    ['report', ...all, '--by', 'week', '--tz', 'Pacific/Kiritimati', ...json],
    ['report', ...all, '--by', 'session', '--harness', 'codex', ...json],
    ['report', ...all, '--by', 'project', '--project', 'src', ...json],
    ['report', ...all, '--by', 'model', '--cost', 'computed', ...json],
    ['report', 'compare', ...all, ...json],
    ['report', 'compare', ...all, '--by', 'model', ...json],
    ['report', 'compare', ...all, '--harness', 'claude-code', '--tz', 'Asia/Kolkata', ...json],
    ['report', 'compare', '--since', '14d', '--cost', 'recorded', ...json],
    ['report', 'monthly', '--tz', 'Europe/Berlin', ...json],
    ['report', 'monthly', '--harness', 'codex', ...json],
    ['report', 'blocks', ...all, ...json],
    ['report', 'blocks', '--since', '7d', '--token-limit', 'max', ...json],
    ['limits', '--since', '2024-01-01', ...json],
    ['report', ...all, '--by', 'session', '--format', 'csv'],
    ['report', 'compare', ...all, '--format', 'csv'],
    ['report', 'compare', ...all, '--format', 'html'],
    ['report', ...all, '--by', 'session', '--format', 'table'],
    ['report', 'monthly', '--format', 'table'],
  ];
  return c;
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function run(cli: string, home: string, cache: string, args: string[], now: string, tz = 'UTC'): Run {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TZ: tz,
    NO_COLOR: '1',
    COLUMNS: '160',
    XDG_CACHE_HOME: cache,
    XDG_CONFIG_HOME: join(cache, 'config'),
    TX_USAGE_NOW: now,
  };
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', maxBuffer: 512 << 20 });
  // The store's path appears in notices: the same text whichever cache dir holds it.
  const clean = (s: string) => s.split(cache).join('$CACHE');
  return { status: r.status ?? -1, stdout: clean(r.stdout ?? ''), stderr: clean(r.stderr ?? '') };
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const at = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 80), i + 80));
  return `at char ${i} of ${a.length}/${b.length}:\n      base ${at(a)}\n      this ${at(b)}`;
}

function compareRuns(label: string, base: Run, other: Run): string[] {
  const out: string[] = [];
  if (base.status !== other.status) out.push(`${label}: exit ${base.status} vs ${other.status}`);
  if (base.stdout !== other.stdout) out.push(`${label}: stdout differs ${firstDifference(base.stdout, other.stdout)}`);
  if (base.stderr !== other.stderr) out.push(`${label}: stderr differs ${firstDifference(base.stderr, other.stderr)}`);
  return out;
}

function checkHome(
  name: string,
  home: string,
  work: string,
  o: Options,
  now: string,
): { asked: number; problems: string[] } {
  const baseCli = join(o.base, 'dist/src/cli/fast.cjs');
  const thisCli = join(ROOT, 'dist/src/cli/fast.cjs');
  const caches = {
    base: join(work, `${name}-base`),
    fresh: join(work, `${name}-fresh`),
    migrated: join(work, `${name}-migrated`),
  };
  // The base build's store of the whole home, copied before this build opens it: this build migrates it.
  const first = run(baseCli, home, caches.base, ['ingest'], now);
  if (first.status !== 0)
    return { asked: 0, problems: [`${name}: base ingest exited ${first.status}: ${first.stderr}`] };
  mkdirSync(caches.migrated, { recursive: true });
  cpSync(join(caches.base, 'tx-usage'), join(caches.migrated, 'tx-usage'), { recursive: true });
  const problems: string[] = [];
  const cmds = commands();
  for (const tz of o.zones) {
    for (const args of cmds) {
      const label = `${name}: TZ=${tz} ${args.join(' ')}`;
      const b = run(baseCli, home, caches.base, args, now, tz);
      const f = run(thisCli, home, caches.fresh, args, now, tz);
      const m = run(thisCli, home, caches.migrated, args, now, tz);
      const p = [...compareRuns(`${label} (new store)`, b, f), ...compareRuns(`${label} (migrated store)`, b, m)];
      problems.push(...p);
      process.stderr.write(`${p.length ? 'DIFF' : 'same'}  ${label} (${b.stdout.length} bytes, exit ${b.status})\n`);
    }
  }
  return { asked: cmds.length * o.zones.length, problems };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'tx-usage-same-'));
  // One instant for every run: blocks and limits read the clock (TX_USAGE_NOW pins it).
  const now = new Date().toISOString();
  const problems: string[] = [];
  let asked = 0;
  const homes: { name: string; home: string; close?: () => void }[] = [];
  try {
    if (o.fixtures) {
      const all = buildAllHome(join(work, 'all-home'));
      homes.push({ name: 'all-harnesses', home: all.home, close: () => all.close() });
      const demo = join(work, 'demo-home');
      await writeDemoHome(demo, new Date(now));
      homes.push({ name: 'demo', home: demo });
    }
    o.corpora.forEach((home, i) => homes.push({ name: `corpus${i + 1}`, home }));
    for (const h of homes) {
      const r = checkHome(h.name, h.home, work, o, now);
      asked += r.asked;
      problems.push(...r.problems);
    }
  } finally {
    for (const h of homes) h.close?.();
    if (!o.keep) rmSync(work, { recursive: true, force: true });
    else process.stderr.write(`kept ${work}\n`);
  }
  process.stdout.write(
    `${asked} commands on ${homes.length} homes, each by the base build, this build on a new store and this build on the base's store migrated: ${problems.length ? `${problems.length} differences` : 'byte-identical'}\n`,
  );
  for (const p of problems) process.stdout.write(`  ${p}\n`);
  process.exit(problems.length ? 1 : 0);
}

void main();
