// `npm run bench [-- --size 1G|3G --runs 5 --no-ccusage]`: tx-usage against
// ccusage (installed by the benchmark itself, see CCUSAGE_VERSION): first on
// the small history of a typical new user (small.ts: ~10 MB of every
// harness's files, every report asked for the first time beside `node -e 0`),
// then on a generated Claude Code + Codex history (see corpus/). Cold
// (empty store; the last 30 days and the whole history), new questions (six
// different reports asked once each of an up-to-date store), warm (the same
// command, nothing changed) and append (a few KB added to 10 files) runs of
// tx-usage, ccusage's commands on the same files in the same run, medians of
// wall time, peak RSS per scenario, bytes re-read after the appends, and a
// check that tx-usage's Claude Code and Codex totals equal what the
// generator wrote; then the live scenarios (live.ts) and a repeated report
// beside unchanged OpenCode and Cursor databases (databases.ts).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyTotals, METRICS, type Totals } from '../fixtures/codex/ledger.js';
import { Appender, restoreAppendTargets } from './corpus/append.js';
import {
  addDays,
  ensureCorpus,
  GIB,
  windowTotals,
  type DayTotals,
  type Harness,
  type Manifest,
} from './corpus/generate.js';
import { findCcusage } from './ccusage.js';
import { haveGnuTime, measure, median, type Measured } from './measure.js';
import { benchLive, type LiveBenchResult } from './live.js';
import { benchUnchangedDatabases } from './databases.js';
import { benchSmallHome, type SmallBenchResult } from './small.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The bin entry, as installed: dist/src/cli/fast.cjs (see src/cli/fast.ts),
// run as npm's bin link runs it, through its `#!/usr/bin/env node` line.
const CLI = join(ROOT, 'dist/src/cli/fast.cjs');
const DAY = 86_400_000;

interface Options {
  bytes: number;
  sizeLabel: string;
  runs: number;
  dir: string;
  seed: number;
  ccusage: boolean;
  anchor?: string;
  /** The small-history scenario: also (default), not at all, or alone. */
  small: 'also' | 'no' | 'only';
}

function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(s.trim());
  if (!m) throw new Error(`--size ${s}: expected e.g. 1G, 256M, 64M`);
  const mult = { '': 1, K: 1 << 10, M: 1 << 20, G: GIB }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Math.round(Number(m[1]) * mult);
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    bytes: GIB,
    sizeLabel: '1G',
    runs: 5,
    dir: join(tmpdir(), 'tx-usage-bench'),
    seed: 1,
    ccusage: true,
    small: 'also',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--size') {
      o.sizeLabel = val();
      o.bytes = parseSize(o.sizeLabel);
    } else if (a === '--runs') o.runs = Math.max(1, Number(val()));
    else if (a === '--dir') o.dir = resolve(val());
    else if (a === '--seed') o.seed = Number(val());
    else if (a === '--anchor') o.anchor = val();
    else if (a === '--no-ccusage') o.ccusage = false;
    else if (a === '--no-small') o.small = 'no';
    else if (a === '--small-only') o.small = 'only';
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'npm run bench -- [--size 1G|3G|256M|64M] [--runs 5] [--dir DIR] [--seed 1] [--anchor YYYY-MM-DD] [--no-ccusage] [--no-small | --small-only]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** Reads every corpus file once, so both tools find it in the page cache. */
function warmPageCache(dir: string): number {
  let bytes = 0;
  const buf = Buffer.allocUnsafe(8 << 20);
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const fd = openSync(p, 'r');
        try {
          let n;
          while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) bytes += n;
        } finally {
          closeSync(fd);
        }
      }
    }
  };
  walk(dir);
  return bytes;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function sumTotals(...ts: Totals[]): Totals {
  const out = emptyTotals();
  for (const t of ts) for (const k of METRICS) out[k] += t[k];
  return out;
}

function expectedBy(m: Manifest, added: DayTotals, harness: Harness, since: string, until: string): Totals {
  const days: Record<string, Totals> = {};
  addDays(days, m.totals[harness]);
  addDays(days, added[harness]);
  return windowTotals(days, since, until);
}

function diffTotals(label: string, got: Record<string, unknown> | undefined, want: Totals): string[] {
  const out: string[] = [];
  for (const k of METRICS) {
    const g = Number(got?.[k] ?? 0);
    if (g !== want[k]) out.push(`${label}: ${k} = ${g}, expected ${want[k]}`);
  }
  return out;
}

interface Scenario {
  name: string;
  runs: Measured[];
  notes: string[];
}

/**
 * The "new question" scenario (issue 29, 41): different reports, each asked
 * once of a store an ingest has just brought up to date — what a user does
 * (another grouping, another range, monthly, compare, blocks, limits), as
 * opposed to repeating one command. Beside each, ccusage's nearest command on
 * the same files (it has no store: every command reads everything again).
 * `summary`: the report has the summary's JSON shape, so its totals are
 * checked against the generator's for the window it reports.
 */
function newQuestions(today: string): { name: string; tx: string[]; cc: string[]; summary: boolean }[] {
  const weekAgo = addUtcDays(today, -7).replace(/-/g, '');
  return [
    {
      name: 'report --by harness,project',
      tx: ['report', '--by', 'harness,project'],
      cc: ['daily', '--by-agent'],
      summary: true,
    },
    { name: 'report compare', tx: ['report', 'compare'], cc: ['monthly', '--by-agent'], summary: false },
    { name: 'report --by model,day', tx: ['report', '--by', 'model,day'], cc: ['daily'], summary: true },
    { name: 'report monthly', tx: ['report', 'monthly'], cc: ['monthly'], summary: false },
    {
      name: 'report --since 7d --by session',
      tx: ['report', '--since', '7d', '--by', 'session'],
      cc: ['session', '--since', weekAgo],
      summary: true,
    },
    { name: 'report --by week', tx: ['report', '--by', 'week'], cc: ['weekly'], summary: true },
    { name: 'report blocks', tx: ['report', 'blocks'], cc: ['blocks'], summary: false },
    { name: 'limits', tx: ['limits'], cc: ['blocks', '--active'], summary: false },
  ];
}

/** Issue 41's targets for a question asked for the first time, by corpus size: a ratio to ccusage's time and a peak RSS. */
function newQuestionTarget(sizeLabel: string): { ratio: number; rssMb: number } | null {
  return sizeLabel === '1G' ? { ratio: 0.2, rssMb: 120 } : sizeLabel === '3G' ? { ratio: 0.12, rssMb: 120 } : null;
}

function addUtcDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

function summarize(s: Scenario) {
  const walls = s.runs.map((r) => r.wallMs);
  const rss = s.runs.map((r) => r.rssMb ?? NaN).filter(Number.isFinite);
  const cpu = s.runs.map((r) => r.cpuMs ?? NaN).filter(Number.isFinite);
  return {
    median: median(walls),
    min: Math.min(...walls),
    max: Math.max(...walls),
    cpu: cpu.length ? median(cpu) : null,
    rss: rss.length ? Math.max(...rss) : null,
    n: walls.length,
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npx tsc -p tsconfig.json\` first (npm run bench does)`);
  const corpusDir = join(o.dir, `corpus-${o.sizeLabel}-s${o.seed}`);
  mkdirSync(o.dir, { recursive: true });
  const log = (s: string) => process.stderr.write(`${s}\n`);
  let small: SmallBenchResult | null = null;
  if (o.small !== 'no') {
    const cc = o.ccusage ? findCcusage(o.dir, [join(ROOT, 'node_modules')], log) : null;
    small = benchSmallHome({ dir: o.dir, cli: CLI, runs: Math.max(o.runs, 5), ccusage: cc, log });
    if (o.small === 'only') {
      process.stdout.write(
        small.lines.join('\n') + '\n' + (small.problems.length ? `problems:\n  ${small.problems.join('\n  ')}\n` : ''),
      );
      writeFileSync(
        join(o.dir, 'results-small.json'),
        JSON.stringify(
          {
            date: new Date().toISOString(),
            small: { node: small.node, questions: small.questions, problems: small.problems },
          },
          null,
          1,
        ),
      );
      if (small.problems.length) process.exitCode = 1;
      return;
    }
  }
  const t0 = Date.now();
  const { manifest: m, generated } = ensureCorpus({ dir: corpusDir, bytes: o.bytes, seed: o.seed, anchor: o.anchor });
  const restored = restoreAppendTargets(m);
  log(
    `corpus ${corpusDir}: ${generated ? `generated in ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'reused'}${restored ? `, ${restored} appended files cut back` : ''}`,
  );
  log(
    `  ${m.shape.files} files, ${(m.shape.bytes / 2 ** 20).toFixed(0)} MiB, ${m.shape.lines} lines (${(m.shape.usageLineShare * 100).toFixed(1)}% with usage), median file ${(m.shape.medianFile / 1024).toFixed(0)} KB, p99 ${(m.shape.p99File / 2 ** 20).toFixed(1)} MB, largest ${(m.shape.largestFile / 2 ** 20).toFixed(0)} MB, ${m.shape.filesOver40MB} files over 40 MB, longest line ${(m.shape.largestLine / 2 ** 20).toFixed(1)} MB`,
  );
  log(`  page cache warmed: ${(warmPageCache(m.home) / 2 ** 20).toFixed(0)} MiB read`);

  const work = join(o.dir, `run-${process.pid}`);
  const cache = join(work, 'cache');
  const statsFile = join(work, 'stats.json');
  mkdirSync(work, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: m.home,
    TZ: 'UTC',
    NO_COLOR: '1',
    XDG_CACHE_HOME: cache,
    XDG_CONFIG_HOME: join(work, 'config'),
    TX_USAGE_STATS: statsFile,
  };
  const ccEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: m.home, TZ: 'UTC', NO_COLOR: '1' };
  const reportArgs = ['report', '--since', '30d', '--format', 'json'];
  const tx = (args = reportArgs) => {
    rmSync(statsFile, { force: true });
    const r = measure(CLI, args, env);
    if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
    const stats = existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')) : null;
    return { r, stats };
  };
  const cc = o.ccusage ? findCcusage(o.dir, [join(ROOT, 'node_modules')], log) : null;
  if (o.ccusage && !cc) log('ccusage is not available: its runs are skipped');
  const load0 = loadavg();

  const problems: string[] = [];
  // The window is the one tx-usage says it reported (--since 30d: today minus 30 days, to today, UTC);
  // what it must contain comes from the generator's own per-day totals.
  const checkWindow = (out: string, added: DayTotals, label: string) => {
    const j = JSON.parse(out) as { since: string; until: string; timezone: string; totals: Record<string, unknown> };
    if (j.timezone !== 'UTC') problems.push(`${label}: report in ${j.timezone}, expected UTC`);
    const want = sumTotals(
      expectedBy(m, added, 'claude-code', j.since, j.until),
      expectedBy(m, added, 'codex', j.since, j.until),
    );
    problems.push(...diffTotals(`${label} (--since 30d: ${j.since}..${j.until})`, j.totals, want));
    if (want.requests === 0)
      problems.push(`${label}: the corpus has nothing in ${j.since}..${j.until} (anchor ${m.anchor}); regenerate it`);
    return want;
  };
  const checkByHarness = (added: DayTotals, label: string) => {
    const first = utcDay(Date.parse(`${m.anchor}T00:00:00Z`) - 70 * DAY);
    const last = utcDay(Date.parse(`${m.anchor}T00:00:00Z`) + 3 * DAY);
    const r = measure(CLI, ['report', '--since', first, '--until', last, '--by', 'harness', '--format', 'json'], env);
    if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
    const rows = (JSON.parse(r.stdout) as { rows: Record<string, unknown>[] }).rows;
    const want: Record<string, Totals> = {};
    for (const h of ['claude-code', 'codex'] as const) {
      want[h] = expectedBy(m, added, h, first, last);
      problems.push(
        ...diffTotals(
          `${label}: ${h}`,
          rows.find((x) => x.harness === h),
          want[h]!,
        ),
      );
    }
    for (const x of rows)
      if (x.harness !== 'claude-code' && x.harness !== 'codex')
        problems.push(`${label}: unexpected harness ${String(x.harness)}`);
    return want;
  };

  // Cold runs, interleaved with ccusage's, so drift in machine load hits both alike.
  const cold: Scenario = { name: 'cold (empty store)', runs: [], notes: [] };
  const ccRuns: Scenario = { name: 'ccusage daily --offline --json', runs: [], notes: [] };
  // The same cold run over all of the corpus's days: nothing left unread (see src/ingest/horizon.ts).
  const historyStart = utcDay(Date.parse(`${m.anchor}T00:00:00Z`) - 70 * DAY);
  const whole: Scenario = { name: `cold, whole history (--since ${historyStart})`, runs: [], notes: [] };
  let ccTotal: number | null = null;
  for (let i = 0; i < o.runs; i++) {
    if (cc) {
      const r = measure(cc.cmd, ['daily', '--offline', '--json'], ccEnv);
      if (r.status !== 0) throw new Error(`ccusage exited ${r.status}: ${r.stderr.slice(0, 500)}`);
      ccRuns.runs.push(r);
      ccTotal = Number((JSON.parse(r.stdout) as { totals?: { totalTokens?: number } }).totals?.totalTokens ?? NaN);
    }
    rmSync(cache, { recursive: true, force: true });
    const h = tx(['report', '--since', historyStart, '--format', 'json']);
    whole.runs.push(h.r);
    if (h.stats?.kind !== 'ingest' || h.stats.rewritten !== m.shape.files)
      whole.notes.push(
        `run ${i + 1}: expected a full ingest of ${m.shape.files} files, stats ${JSON.stringify(h.stats)}`,
      );
    rmSync(cache, { recursive: true, force: true });
    const { r, stats } = tx();
    cold.runs.push(r);
    // Files last written before the window (less two days) are left for a command that needs them.
    if (stats?.kind !== 'ingest' || stats.rewritten + (stats.deferred ?? 0) !== m.shape.files)
      cold.notes.push(
        `run ${i + 1}: expected an ingest of ${m.shape.files} files read or left unread, stats ${JSON.stringify(stats)}`,
      );
    if (i === o.runs - 1) {
      checkWindow(r.stdout, { 'claude-code': {}, codex: {} }, 'cold');
      const j = JSON.parse(h.r.stdout) as { totals: Record<string, unknown> };
      const none: DayTotals = { 'claude-code': {}, codex: {} };
      const last = utcDay(Date.parse(`${m.anchor}T00:00:00Z`) + 3 * DAY);
      problems.push(
        ...diffTotals(
          `cold, whole history`,
          j.totals,
          sumTotals(
            expectedBy(m, none, 'claude-code', historyStart, last),
            expectedBy(m, none, 'codex', historyStart, last),
          ),
        ),
      );
      cold.notes.push(
        `workers ${stats?.workers}, bytes read ${stats?.bytesRead}, sources read ${stats?.rewritten}, left unread ${stats?.deferred ?? 0}`,
      );
    }
  }
  const allTime = checkByHarness({ 'claude-code': {}, codex: {} }, 'after cold');

  // New questions: after a cold ingest of everything, six different reports
  // once each (none answered from a memo: each is asked for the first time),
  // interleaved with ccusage's nearest commands.
  const questions = newQuestions(utcDay(Date.now()));
  const asked = questions.map((q) => ({
    q,
    tx: { name: q.name, runs: [], notes: [] } as Scenario,
    cc: { name: `ccusage ${q.cc.join(' ')}`, runs: [], notes: [] } as Scenario,
  }));
  for (let i = 0; i < o.runs; i++) {
    rmSync(cache, { recursive: true, force: true });
    const setup = tx(['ingest']);
    if (setup.stats?.kind !== 'ingest' || setup.stats.rewritten !== m.shape.files)
      asked[0]!.tx.notes.push(`run ${i + 1}: the cold ingest read ${setup.stats?.rewritten} of ${m.shape.files} files`);
    for (const a of asked) {
      const { r, stats } = tx([...a.q.tx, '--format', 'json']);
      a.tx.runs.push(r);
      if (stats?.kind !== 'ingest' || !stats.upToDate)
        a.tx.notes.push(`run ${i + 1}: the store was not found up to date (stats ${JSON.stringify(stats)})`);
      if (i === 0 && a.q.summary) checkWindow(r.stdout, { 'claude-code': {}, codex: {} }, a.q.name);
      if (cc) {
        const c = measure(cc.cmd, [...a.q.cc, '--offline', '--json'], ccEnv);
        if (c.status !== 0)
          throw new Error(`ccusage ${a.q.cc.join(' ')} exited ${c.status}: ${c.stderr.slice(0, 500)}`);
        a.cc.runs.push(c);
      }
    }
  }

  // Warm: the same command again, nothing changed.
  const warm: Scenario = { name: 'warm (nothing changed)', runs: [], notes: [] };
  tx(); // the by-harness check above ran another command: make sure the memo for this one is current
  for (let i = 0; i < o.runs; i++) {
    const { r, stats } = tx();
    warm.runs.push(r);
    if (stats?.kind !== 'memo-hit')
      warm.notes.push(`run ${i + 1}: not answered from the memo (${JSON.stringify(stats)})`);
    if (i === 0) checkWindow(r.stdout, { 'claude-code': {}, codex: {} }, 'warm');
  }

  // Append: a few KB at the end of 10 files, then the same command.
  const append: Scenario = { name: `append (a few KB to ${m.appendTargets.length} files)`, runs: [], notes: [] };
  const appender = new Appender(m);
  const reread: { appended: number; read: number; tail: number }[] = [];
  let live: LiveBenchResult | null = null;
  try {
    for (let i = 0; i < o.runs; i++) {
      const appended = appender.appendAll();
      const { r, stats } = tx();
      append.runs.push(r);
      reread.push({ appended, read: stats?.bytesRead ?? NaN, tail: stats?.tailCheckBytes ?? NaN });
      // An incremental ingest: only the appended sources are read, from their resume points.
      if (stats?.kind !== 'ingest' || stats.appended !== m.appendTargets.length || stats.rewritten !== 0) {
        append.notes.push(
          `run ${i + 1}: expected ${m.appendTargets.length} appended sources and none re-read, stats ${JSON.stringify(stats)}`,
        );
      }
      if (stats?.bytesRead !== appended)
        problems.push(`append run ${i + 1}: ${stats?.bytesRead} transcript bytes read, ${appended} appended`);
      if (i === o.runs - 1) checkWindow(r.stdout, appender.added, 'after appends');
    }
    checkByHarness(appender.added, 'after appends');
    // The live scenarios (bench/live.ts): status line and watch refresh, on the same store.
    live = await benchLive({ m, cli: CLI, env, ccusage: cc, ccEnv, runs: o.runs * 5, log });
    problems.push(...live.problems);
  } finally {
    restoreAppendTargets(m);
  }
  // A repeated report beside unchanged OpenCode and Cursor databases, against the same home without them.
  const dbs = benchUnchangedDatabases({ cli: CLI, dir: work, runs: Math.max(o.runs * 5, 15) });
  problems.push(...dbs.problems);
  const load1 = loadavg();

  // Report.
  const c = summarize(cold);
  const hw = summarize(whole);
  const w = summarize(warm);
  const a = summarize(append);
  const k = cc ? summarize(ccRuns) : null;
  const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  const mb = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(0)} MB`);
  const lines: string[] = [];
  lines.push(
    `tx-usage benchmark: ${m.shape.files} files, ${(m.shape.bytes / 2 ** 20).toFixed(0)} MiB (Claude Code + Codex), ${o.runs} runs each, medians`,
  );
  lines.push(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${load0[0]!.toFixed(2)} before / ${load1[0]!.toFixed(2)} after; ccusage ${cc?.version ?? 'not run'}`,
  );
  lines.push('');
  lines.push(`| scenario | median wall | min – max | peak RSS | vs ccusage | target | met |`);
  lines.push(`|---|---|---|---|---|---|---|`);
  const ratio = (x: number) => (k ? `${(x / k.median).toFixed(2)}×` : 'n/a');
  if (k)
    lines.push(
      `| ccusage daily --offline --json | ${fmt(k.median)} | ${fmt(k.min)} – ${fmt(k.max)} | ${mb(k.rss)} | 1.00× | | |`,
    );
  lines.push(
    `| tx-usage cold (empty store) | ${fmt(c.median)} | ${fmt(c.min)} – ${fmt(c.max)} | ${mb(c.rss)} | ${ratio(c.median)} | ≤ 1.0× ccusage | ${k ? (c.median <= k.median ? 'yes' : 'no') : '?'} |`,
  );
  const wholeMet = k ? hw.median <= 1.25 * k.median && (hw.rss === null || k.rss === null || hw.rss <= k.rss) : null;
  lines.push(
    `| tx-usage ${whole.name} | ${fmt(hw.median)} | ${fmt(hw.min)} – ${fmt(hw.max)} | ${mb(hw.rss)} | ${ratio(hw.median)} | ≤ 1.25× ccusage, RSS ≤ ccusage's | ${wholeMet === null ? '?' : wholeMet ? 'yes' : 'no'} |`,
  );
  lines.push(
    `| tx-usage warm (nothing changed) | ${fmt(w.median)} | ${fmt(w.min)} – ${fmt(w.max)} | ${mb(w.rss)} | ${ratio(w.median)} | ≤ 0.1× ccusage and < 300 ms | ${k ? (w.median <= 0.1 * k.median && w.median < 300 ? 'yes' : 'no') : w.median < 300 ? '< 300 ms: yes' : 'no'} |`,
  );
  lines.push(
    `| tx-usage append (${m.appendTargets.length} files) | ${fmt(a.median)} | ${fmt(a.min)} – ${fmt(a.max)} | ${mb(a.rss)} | ${ratio(a.median)} | ≤ 1.5× warm (${(a.median / w.median).toFixed(2)}×) | ${a.median <= 1.5 * w.median ? 'yes' : 'no'} |`,
  );
  lines.push('');
  const target = newQuestionTarget(o.sizeLabel);
  lines.push(
    `new questions: the store up to date after a cold ingest, ${asked.length} different reports asked once each (${o.runs} rounds, medians), beside ccusage's nearest command on the same files:`,
  );
  lines.push('');
  lines.push(
    `| report | tx-usage | CPU | peak RSS | ccusage command | ccusage | peak RSS | ratio | target: ${target ? `≤ ${target.ratio}× ccusage, ≤ ${target.rssMb} MB` : 'none at this size'} | met |`,
  );
  lines.push(`|---|---|---|---|---|---|---|---|---|---|`);
  const nq = asked.map((x) => ({
    name: x.q.name,
    cc: x.cc.name,
    tx: summarize(x.tx),
    ccusage: x.cc.runs.length ? summarize(x.cc) : null,
  }));
  for (const x of nq) {
    const r = x.ccusage ? x.tx.median / x.ccusage.median : null;
    const met =
      r === null || !target ? '?' : r <= target.ratio && (x.tx.rss === null || x.tx.rss <= target.rssMb) ? 'yes' : 'no';
    lines.push(
      `| ${x.name} | ${fmt(x.tx.median)} | ${x.tx.cpu === null ? 'n/a' : fmt(x.tx.cpu)} | ${mb(x.tx.rss)} | ${x.cc} --offline --json | ${x.ccusage ? fmt(x.ccusage.median) : 'n/a'} | ${mb(x.ccusage?.rss ?? null)} | ${r === null ? 'n/a' : `${r.toFixed(2)}×`} | | ${met} |`,
    );
  }
  // Every tx-usage scenario above, the whole-history cold run included (it peaks highest).
  const peak = Math.max(c.rss ?? 0, hw.rss ?? 0, w.rss ?? 0, a.rss ?? 0, ...nq.map((x) => x.tx.rss ?? 0));
  lines.push('');
  lines.push(
    `peak RSS of any tx-usage run: ${mb(haveGnuTime ? peak : null)} (target < 400 MB: ${haveGnuTime ? (peak < 400 ? 'met' : 'NOT met') : 'not measured, no /usr/bin/time'})`,
  );
  const rr = reread.map((x) => `${x.read}/${x.appended}`).join(', ');
  lines.push(
    `bytes re-read per append run (read/appended): ${rr}; plus ${reread[0]?.tail ?? 0} bytes of checks per run (first and last 256 bytes before each of the ${m.appendTargets.length} resume points)`,
  );
  const ccTot =
    ccTotal === null
      ? ''
      : `; ccusage reported total_tokens ${ccTotal} for all days (expected ${allTime['claude-code']!.total_tokens + allTime.codex!.total_tokens}, for information only)`;
  lines.push(
    `totals check (Claude Code and Codex, 30-day window and by harness, before and after the appends): ${problems.length ? `FAILED\n  ${problems.join('\n  ')}` : 'passed'}${ccTot}`,
  );
  for (const s of [cold, whole, warm, append, ...asked.map((x) => x.tx)])
    for (const n of s.notes) lines.push(`note (${s.name}): ${n}`);
  lines.push(...(live?.lines ?? []));
  lines.push(...dbs.lines);
  if (small) {
    lines.push('', ...small.lines);
    problems.push(...small.problems);
  }
  process.stdout.write(lines.join('\n') + '\n');
  const result = {
    date: new Date().toISOString(),
    options: o,
    shape: m.shape,
    anchor: m.anchor,
    ccusage: cc?.version ?? null,
    load: { before: load0, after: load1 },
    cold: c,
    wholeHistory: hw,
    warm: w,
    append: a,
    newQuestions: nq,
    ccusageRuns: k,
    reread,
    problems,
    live: live && {
      statusline: live.statusline,
      ccusageStatusline: live.ccusageStatusline,
      watchRefresh: live.watchRefresh,
    },
    databases: { with: dbs.withDatabases, without: dbs.without, ratio: dbs.ratio },
    small: small && { node: small.node, questions: small.questions },
  };
  writeFileSync(join(o.dir, `results-${o.sizeLabel}.json`), JSON.stringify(result, null, 1));
  rmSync(work, { recursive: true, force: true });
  if (problems.length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exitCode = 2;
});
