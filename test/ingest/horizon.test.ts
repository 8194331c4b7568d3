// Sources a report leaves unread (src/ingest/horizon.ts): transcripts last
// written well before the report's first day. Whatever a report answers with
// some sources unread must equal, row for row, the same report over a store
// that read everything; the sources it left must be read by the first
// command that reaches back to them; a wrong modification time, a torn last
// line or a copy of a response in a file that is read must not hide anything.
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome, type ClaudeSession } from '../../fixtures/claude-code/build.js';
import { buildCodexHome } from '../../fixtures/codex/home.js';
import { buildDefaultHome } from '../../fixtures/pi/scenarios.js';
import { rng } from '../../fixtures/codex/rollout.js';
import { CLI, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { LAST_LINE_MAX, latestIsoField, readLastLine } from '../../src/io/last-line.js';
import { usableHorizon, horizonOfDay, HORIZON_MARGIN_MS } from '../../src/ingest/horizon.js';
import { HARNESSES } from '../../src/harnesses/registry.js';
import { generateCorpus } from '../../bench/corpus/generate.js';
import { Appender } from '../../bench/corpus/append.js';
import type { HarnessScan } from '../../src/ingest/discover.js';

const DAY = 86_400_000;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

function transcripts(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.cache')) walk(p);
      } else if (e.name.endsWith('.jsonl') || e.name.endsWith('.jsonl.zst')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** A `.jsonl.zst` file's text (zstd-napi, not the code under test); null when it does not decode (the fixtures' corrupt ones). */
function unzst(f: string): string | null {
  try {
    return (createRequire(import.meta.url)('zstd-napi') as { decompress(b: Uint8Array): Buffer })
      .decompress(readFileSync(f))
      .toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Each transcript's last write = the timestamp of its last line, as on a real
 * disk (read here without the code under test); a `.jsonl.zst` keeps the
 * modification time of the transcript it was compressed from.
 */
function stampLastWrites(home: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of transcripts(home)) {
    const text = f.endsWith('.zst') ? unzst(f) : readFileSync(f, 'utf8');
    if (text === null) continue;
    const lines = text.split('\n').filter(Boolean);
    let t: number | null = null;
    try {
      const rec = JSON.parse(lines[lines.length - 1]!) as { timestamp?: unknown };
      if (typeof rec.timestamp === 'string') t = Date.parse(rec.timestamp);
    } catch {
      /* a torn last line: left as it is */
    }
    if (t !== null && Number.isFinite(t)) {
      utimesSync(f, t / 1000, t / 1000);
      out.set(f, t);
    }
  }
  return out;
}

interface Run {
  json: any;
  stats: any;
  stderr: string;
}

function runner(home: string, cache: string, extraEnv: Record<string, string> = {}) {
  const statsFile = `${cache}-stats.json`;
  const env = cleanEnv(home, { XDG_CACHE_HOME: cache, TX_USAGE_STATS: statsFile, ...extraEnv });
  return (args: string[]): Run => {
    const r = runCli(args, env);
    if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
    return {
      json: args[0] === 'report' ? JSON.parse(r.stdout) : null,
      stats: existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')) : null,
      stderr: r.stderr,
    };
  };
}

/** The half-year Claude Code history, its files' mtimes at their last writes, after a report that left some unread. */
function partlyReadHistory(prefix: string) {
  const home = tempDir(prefix);
  const { sessions } = claudeHistory(home);
  stampLastWrites(home);
  // (--by session would send a new row of a session to the full path: its estimate is in the store.)
  const args = [
    'report',
    '--since',
    '2026-08-01',
    '--until',
    '2026-12-31',
    '--by',
    'day,model,project',
    '--format',
    'json',
  ];
  const grow = runner(home, join(home, '.cache-grow'));
  expect(grow(args).stats.deferred).toBeGreaterThan(0);
  return { home, sessions, args, grow };
}

const BY = ['--by', 'day,harness,model,project,session', '--format', 'json'];

/**
 * For each first day (latest first), a report on one store that starts empty
 * and is only ever widened, against the same report after `ingest` read
 * everything: the same rows and totals, and only warnings the full store has.
 */
function compareWindows(home: string, sinces: string[]): { deferred: number[] } {
  const full = runner(home, join(home, '.cache-full'));
  const all = full(['ingest']);
  expect(all.stats.deferred).toBe(0);
  const growing = runner(home, join(home, '.cache-grow'));
  const deferred: number[] = [];
  let before = Infinity;
  for (const since of sinces) {
    const args = ['report', '--since', since, '--until', '2026-12-31', ...BY];
    const got = growing(args);
    const want = full(args);
    expect(got.json.rows, `--since ${since}`).toEqual(want.json.rows);
    expect(got.json.totals, `--since ${since}`).toEqual(want.json.totals);
    for (const w of got.json.warnings ?? []) expect(want.json.warnings).toContain(w);
    deferred.push(got.stats.deferred);
    // Widening only ever reads more: what was left before is now left less or read.
    expect(got.stats.deferred).toBeLessThanOrEqual(before);
    before = got.stats.deferred;
  }
  return { deferred };
}

/** First days that cut between the files' last writes (each two days past a distinct last-write day, latest first). */
function cuttingSinces(lastWrites: Map<string, number>, n: number): string[] {
  const days = [...new Set([...lastWrites.values()].map((t) => day(t)))].sort().reverse();
  const out = days.map((d) => day(Date.parse(`${d}T00:00:00Z`) + HORIZON_MARGIN_MS + DAY));
  const step = Math.max(1, Math.floor(out.length / n));
  return [...new Set(out.filter((_, i) => i % step === 0).slice(0, n))].concat(['2020-01-01']);
}

function claudeHistory(home: string): { claude: ClaudeHome; sessions: ClaudeSession[] } {
  const claude = new ClaudeHome(join(home, '.claude'));
  const r = rng(11);
  const sessions: ClaudeSession[] = [];
  // Sessions over half a year, each a few hours long.
  for (let i = 0; i < 9; i++) {
    const start = Date.UTC(2026, 3, 1) + i * 19 * DAY + (i % 3) * 3_600_000;
    const s = claude.session({ cwd: `/w/p${i % 4}` });
    sessions.push(s);
    for (let n = 0; n < 5; n++) {
      const ts = (min: number) => new Date(start + n * 40 * 60_000 + min * 60_000).toISOString();
      s.user(ts(0));
      s.response({
        ts: ts(1),
        splits: 1 + Math.floor(r() * 3),
        model: n % 2 ? 'claude-opus-4-1-20250805' : 'claude-sonnet-4-5-20250929',
        usage: { input: 10 + n, output: 100 + 9 * i, cacheRead: 700 * n },
      });
    }
  }
  return { claude, sessions };
}

describe('reports leave transcripts last written before their window unread', () => {
  it('Claude Code: every window equals the full store, from a store that started with only the last weeks', () => {
    const home = tempDir('txu-horizon-cc-');
    claudeHistory(home);
    const lw = stampLastWrites(home);
    const { deferred } = compareWindows(home, cuttingSinces(lw, 5));
    expect(deferred[0]).toBeGreaterThan(0);
    expect(deferred[deferred.length - 1]).toBe(0);
  });

  it.each([
    ['Codex', 'compressed, archived, forked, reverted rollouts', (home: string) => void buildCodexHome(home)],
    ['Pi', 'trees, forks, version 1 files', (home: string) => void buildDefaultHome(home)],
  ])('%s: every window equals the full store (%s)', (name, _what, build) => {
    const home = tempDir(`txu-horizon-${name.toLowerCase()}-`);
    build(home);
    const { deferred } = compareWindows(home, cuttingSinces(stampLastWrites(home), 4));
    expect(Math.max(...deferred)).toBeGreaterThan(0);
  });

  it('Codex: an old compressed rollout is left unread on its modification time alone, and read by a window reaching back to it', () => {
    const home = tempDir('txu-horizon-zst-');
    buildCodexHome(home);
    const lw = stampLastWrites(home);
    const zst = [...lw.keys()].filter((f) => f.endsWith('.zst'));
    expect(zst.length).toBeGreaterThan(0);
    // One compressed rollout's last write: a window starting past it (and its margin) leaves it unread.
    const t = Math.max(...zst.map((f) => lw.get(f)!));
    const after = day(t + HORIZON_MARGIN_MS + 2 * DAY);
    const run = runner(home, join(home, '.cache-zst'));
    const narrow = run(['report', '--since', after, '--until', '2026-12-31', ...BY]);
    const fullRun = runner(home, join(home, '.cache-zst-full'));
    fullRun(['ingest']);
    // Every transcript last written before the horizon is left, the compressed ones included.
    const horizon = horizonOfDay(after, 'UTC'); // the runs' zone (TZ=UTC)
    expect(narrow.stats.deferred).toBe([...lw.values()].filter((w) => w < horizon).length);
    expect(narrow.json.rows).toEqual(fullRun(['report', '--since', after, '--until', '2026-12-31', ...BY]).json.rows);
    // A window reaching back to it reads it: the same answer as the store that read everything.
    const wide = ['report', '--since', day(t - 2 * DAY), '--until', '2026-12-31', ...BY];
    const got = run(wide);
    const want = fullRun(wide);
    expect(got.json.rows).toEqual(want.json.rows);
    expect(got.json.totals).toEqual(want.json.totals);
    expect(got.stats.deferred).toBeLessThan(narrow.stats.deferred);
    expect(Number(want.json.totals.requests)).toBeGreaterThan(0);
  });

  it("a copy of a response with a new timestamp, in a file that is read, makes the harness's unread files read", () => {
    const home = tempDir('txu-horizon-fork-');
    const { claude, sessions } = claudeHistory(home);
    // A /branch in October copying the first session's responses (April) and
    // stamping them anew: the original keeps the credit, on its own day.
    const old = sessions[0]!;
    const fork = claude.session({ cwd: old.cwd, sessionId: 'fork-0000-4000-8000-000000000001' });
    const at = Date.UTC(2026, 9, 20, 10);
    for (const line of readFileSync(old.file, 'utf8').split('\n').filter(Boolean)) {
      const rec = JSON.parse(line);
      if (rec.type !== 'assistant') continue;
      fork.record({
        ...rec,
        sessionId: 'fork-0000-4000-8000-000000000001',
        forkedFrom: { sessionId: old.sessionId, messageUuid: rec.uuid },
        timestamp: new Date(at).toISOString(),
      });
    }
    fork.user(new Date(at + 60_000).toISOString());
    fork.response({ ts: new Date(at + 120_000).toISOString(), usage: { input: 5, output: 55 } });
    stampLastWrites(home);
    const since = '2026-10-15';
    const args = ['report', '--since', since, '--until', '2026-12-31', ...BY];
    const got = runner(home, join(home, '.cache-a'))(args);
    const full = runner(home, join(home, '.cache-b'));
    full(['ingest']);
    const want = full(args);
    expect(got.json.rows).toEqual(want.json.rows);
    expect(got.json.totals).toEqual(want.json.totals);
    // Only the fork's own response is in the window.
    expect(Number(got.json.totals.requests)).toBe(1);
    expect(got.stats.deferred).toBe(0);
    // Without the copy, the same window leaves the old files unread.
    const plain = tempDir('txu-horizon-nofork-');
    claudeHistory(plain);
    stampLastWrites(plain);
    expect(runner(plain, join(plain, '.cache'))(args).stats.deferred).toBeGreaterThan(0);
  });

  it('an old modification time alone, a torn last line or a last line too long to read hides nothing', () => {
    const home = tempDir('txu-horizon-mtime-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const recent = Date.UTC(2026, 10, 20, 9);
    const a = claude.session({ cwd: '/w/recent' });
    a.user(new Date(recent).toISOString());
    a.response({ ts: new Date(recent + 60_000).toISOString(), usage: { input: 7, output: 70 } });
    const b = claude.session({ cwd: '/w/torn' });
    b.user('2026-03-01T10:00:00.000Z');
    b.response({ ts: '2026-03-01T10:01:00.000Z', usage: { input: 8, output: 80 } });
    b.tornTail();
    const c = claude.session({ cwd: '/w/long' });
    c.user('2026-03-02T10:00:00.000Z');
    c.response({ ts: '2026-03-02T10:01:00.000Z', usage: { input: 9, output: 90 } });
    c.user('2026-03-02T10:02:00.000Z', 'x'.repeat(LAST_LINE_MAX + 1000));
    // All three look untouched since 2020.
    for (const f of [a.file, b.file, c.file]) utimesSync(f, Date.UTC(2020, 0, 1) / 1000, Date.UTC(2020, 0, 1) / 1000);
    const run = runner(home, join(home, '.cache'));
    const got = run(['report', '--since', '2026-11-01', '--until', '2026-12-31', ...BY]);
    expect(got.stats.deferred).toBe(0);
    expect(Number(got.json.totals.output_tokens)).toBe(70);
    // Read, not deferred: its torn line concerns March's rows, so this window's report leaves the warning out
    // (README "Warnings": a warning where it concerns the rows shown) and a report of March shows it.
    expect(JSON.stringify(got.json.warnings)).not.toContain(b.file);
    const march = run(['report', '--since', '2026-03-01', '--until', '2026-03-31', ...BY]);
    expect(JSON.stringify(march.json.warnings)).toContain(b.file);
  });

  it("a response timestamped after its transcript's last line (clocks a day apart) still counts: the UTC margin reads the file", () => {
    const home = tempDir('txu-horizon-slack-');
    const claude = new ClaudeHome(join(home, '.claude'));
    /** A user line, a response and a last user line (times given), the file last modified at the last one's. */
    const transcript = (cwd: string, times: [string, string, string], output: number) => {
      const s = claude.session({ cwd });
      s.user(times[0]);
      s.response({ ts: times[1], usage: { input: 1, output } });
      s.user(times[2]);
      utimesSync(s.file, Date.parse(times[2]) / 1000, Date.parse(times[2]) / 1000);
    };
    // The response is on the report's first day (UTC); the line after it,
    // written last, carries an earlier time (another clock), and so does the
    // file's modification time: both are before the first day, within a day.
    transcript('/w/skewed', ['2026-11-09T12:00:00.000Z', '2026-11-10T00:30:00.000Z', '2026-11-09T12:05:00.000Z'], 30);
    // Last written more than a day before the first day: left unread.
    transcript('/w/old', ['2026-11-08T19:00:00.000Z', '2026-11-08T19:01:00.000Z', '2026-11-08T20:00:00.000Z'], 40);
    const args = ['report', '--since', '2026-11-10', '--until', '2026-12-31', ...BY];
    const got = runner(home, join(home, '.cache'))(args);
    expect(horizonOfDay('2026-11-10', 'UTC')).toBe(Date.UTC(2026, 10, 9));
    expect(got.stats.deferred).toBe(1);
    expect(Number(got.json.totals.output_tokens)).toBe(30);
    // The same report from a store that read everything.
    const full = runner(home, join(home, '.cache-full'));
    full(['ingest']);
    expect(full(args).json.totals).toEqual(got.json.totals);
  });

  it('a transcript whose last line is a long tool result (100 KB) is judged by that line, not read whole', () => {
    const home = tempDir('txu-horizon-longlast-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/recent' });
    a.user('2026-11-20T09:00:00.000Z');
    a.response({ ts: '2026-11-20T09:01:00.000Z', usage: { input: 7, output: 70 } });
    const old = claude.session({ cwd: '/w/old' });
    old.user('2026-03-02T10:00:00.000Z');
    old.response({ ts: '2026-03-02T10:01:00.000Z', usage: { input: 9, output: 90 } });
    old.user('2026-03-02T10:02:00.000Z', 'x'.repeat(100_000));
    utimesSync(old.file, Date.UTC(2026, 2, 2, 11) / 1000, Date.UTC(2026, 2, 2, 11) / 1000);
    const late = claude.session({ cwd: '/w/late' });
    late.user('2026-03-03T10:00:00.000Z');
    late.user('2026-11-21T10:02:00.000Z', 'y'.repeat(100_000));
    // A wrong (old) modification time, but the long last line says November: read.
    late.response({ ts: '2026-11-21T10:03:00.000Z', usage: { input: 5, output: 50 } });
    late.user('2026-11-21T10:04:00.000Z', 'z'.repeat(100_000));
    utimesSync(late.file, Date.UTC(2026, 2, 3, 11) / 1000, Date.UTC(2026, 2, 3, 11) / 1000);
    const run = runner(home, join(home, '.cache'));
    const got = run(['report', '--since', '2026-11-01', '--until', '2026-12-31', ...BY]);
    expect(got.stats.deferred).toBe(1);
    expect(Number(got.json.totals.output_tokens)).toBe(120);
  });

  it('a transcript left unread that is written to again is read in full', () => {
    const { home, sessions, args, grow } = partlyReadHistory('txu-horizon-append-');
    // A recent session grows: only its appended bytes are read.
    const last = sessions[sessions.length - 1]!;
    last.response({
      ts: '2026-11-02T09:00:00.000Z',
      model: 'claude-sonnet-4-5-20250929',
      usage: { input: 3, output: 33 },
    });
    const d = grow(args);
    expect(d.stats).toMatchObject({ kind: 'ingest', appended: 1, rewritten: 0 });
    // The April session is resumed: it was never read, so the full path reads all of it.
    const first = sessions[0]!;
    first.response({ ts: '2026-11-03T09:00:00.000Z', usage: { input: 4, output: 44 } });
    const f = grow(args);
    expect(f.stats.kind).toBe('ingest');
    expect(f.stats.rewritten).toBe(1);
    const fresh = runner(home, join(home, '.cache-fresh'));
    fresh(['ingest']);
    const want = fresh(args);
    expect(f.json.rows).toEqual(want.json.rows);
    expect(f.json.totals).toEqual(want.json.totals);
    expect(d.json.totals.output_tokens).not.toEqual(f.json.totals.output_tokens);
  });

  it('a wider report after appends reads the files left before (early, in the workers) and the appended lines, as a fresh store does', () => {
    // (Both batches on one pool at once once hung a run like this on the
    // benchmark corpus; test/pool.test.ts holds the pool to that.)
    const dir = tempDir('txu-horizon-pool-');
    const m = generateCorpus({ dir, bytes: 48 << 20, seed: 2 });
    expect(m.appendTargets.length).toBeGreaterThanOrEqual(2);
    const env = cleanEnv(m.home, { XDG_CACHE_HOME: join(dir, 'cache'), TX_USAGE_STATS: join(dir, 'stats.json') });
    const stats = () => JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8'));
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, 'report', ...args, '--format', 'json'], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.signal, 'the run ended').toBeNull();
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    run(['--since', '30d']);
    expect(stats().deferred).toBeGreaterThan(0);
    new Appender(m).appendAll();
    const wide = ['--since', day(Date.parse(`${m.anchor}T00:00:00Z`) - 70 * DAY), '--by', 'harness,model'];
    const got = run(wide);
    const s = stats();
    expect(s.earlyUsed).toBeGreaterThan(0);
    expect(s.appended).toBe(m.appendTargets.length);
    expect(s.deferred).toBe(0);
    const fresh = spawnSync(process.execPath, [CLI, 'report', ...wide, '--format', 'json'], {
      env: { ...env, XDG_CACHE_HOME: join(dir, 'cache-fresh') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(got).toEqual(JSON.parse(fresh.stdout));
  });

  it('recent transcripts with an old modification time are read early too, after the rest (the workers do not wait for the last-line checks)', () => {
    const dir = tempDir('txu-horizon-late-');
    const m = generateCorpus({ dir, bytes: 48 << 20, seed: 3 });
    // Sessions of the last three weeks that look untouched since 2020.
    const aged = m.appendTargets.map((t) => t.path);
    expect(aged.length).toBeGreaterThanOrEqual(2);
    for (const f of aged) utimesSync(f, Date.UTC(2020, 0, 1) / 1000, Date.UTC(2020, 0, 1) / 1000);
    const args = ['report', '--since', '30d', '--by', 'harness,model', '--format', 'json'];
    const got = runner(m.home, join(dir, 'cache'), { TX_USAGE_TRACE: '1' })(args);
    expect(got.stats.deferred).toBeGreaterThan(0);
    // Everything read was read by the early start, the aged sessions included (its second batch).
    expect(got.stats.earlyUsed).toBe(got.stats.rewritten);
    const added = /early extraction: (\d+) of (\d+) old sources added/.exec(got.stderr);
    expect(added, got.stderr).not.toBeNull();
    expect(Number(added![1])).toBeGreaterThanOrEqual(aged.length);
    // The same answer as a store that read everything.
    const full = runner(m.home, join(dir, 'cache-full'));
    full(['ingest']);
    const want = full(args);
    expect(got.json.rows).toEqual(want.json.rows);
    expect(got.json.totals).toEqual(want.json.totals);
    expect(Number(got.json.totals.requests)).toBeGreaterThan(0);
  });

  it('an appended copy of a response while files are unread reads them (its original may be in one)', () => {
    const { home, sessions, args, grow } = partlyReadHistory('txu-horizon-deltacopy-');
    // A recent session gets a /branch copy of an April response, stamped anew:
    // the April original (left unread) keeps the credit, on its own day.
    const original = readFileSync(sessions[0]!.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r) => r.type === 'assistant');
    const last = sessions[sessions.length - 1]!;
    last.record({
      ...original,
      sessionId: last.sessionId,
      forkedFrom: { sessionId: sessions[0]!.sessionId, messageUuid: original.uuid },
      timestamp: '2026-11-02T09:00:00.000Z',
    });
    const got = grow(args);
    expect(got.stats.kind).toBe('ingest');
    const fresh = runner(home, join(home, '.cache-fresh'));
    fresh(['ingest']);
    const want = fresh(args);
    expect(got.json.rows).toEqual(want.json.rows);
    expect(got.json.totals).toEqual(want.json.totals);
  });

  it('monthly reads from the month before its first month', () => {
    const home = tempDir('txu-horizon-monthly-');
    claudeHistory(home);
    stampLastWrites(home);
    const args = ['report', 'monthly', '--since', '2026-09-10', '--until', '2026-12-31', '--format', 'json'];
    const got = runner(home, join(home, '.cache-a'))(args);
    const full = runner(home, join(home, '.cache-b'));
    full(['ingest']);
    const want = full(args);
    expect(got.json).toEqual(want.json);
    // August (the month before September) was read; earlier months were not.
    expect(got.stats.deferred).toBeGreaterThan(0);
  });
});

describe('horizon parts', () => {
  it('readLastLine: the last complete line, or null when torn, too long or missing', () => {
    const dir = tempDir('txu-lastline-');
    const f = (name: string, text: string) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    const lastText = (...args: Parameters<typeof readLastLine>) => readLastLine(...args)?.toString('utf8') ?? null;
    expect(lastText(f('a', '{"a":1}\n{"b":2}\n'))).toBe('{"b":2}');
    expect(lastText(f('b', '{"only":1}\n'))).toBe('{"only":1}');
    expect(lastText(f('c', '{"a":1}\n{"torn":'))).toBeNull();
    expect(lastText(f('d', ''))).toBeNull();
    const long = 'y'.repeat(20_000);
    expect(lastText(f('e', `{"a":1}\n${long}\n`))).toBe(long);
    // Longer lines are read in growing steps, up to LAST_LINE_MAX (an image in a tool result is often 100 KB).
    expect(lastText(f('g', `{"a":1}\n${'z'.repeat(70_000)}\n`))).toBe('z'.repeat(70_000));
    expect(lastText(f('g2', `{"a":1}\n${'z'.repeat(600_000)}\n`))).toBe('z'.repeat(600_000));
    expect(lastText(f('g3', `{"a":1}\n${'z'.repeat(LAST_LINE_MAX)}\n`))).toBeNull();
    expect(lastText(f('g4', `{"a":1}\n${'z'.repeat(LAST_LINE_MAX - 1)}\n`))).toBe('z'.repeat(LAST_LINE_MAX - 1));
    expect(lastText(f('g5', `{"a":1}\n${'z'.repeat(20_000)}\n`), 16_384)).toBeNull();
    expect(lastText(f('h', `${'z'.repeat(20_000)}\n`))).toBe('z'.repeat(20_000));
    expect(lastText(join(dir, 'missing'))).toBeNull();
    expect(statSync(join(dir, 'a')).size).toBe(16);
    // Read at a size the caller stat'ed: the last line as of that size, even after an append.
    const grown = f('i', '{"a":1}\n{"b":2}\n');
    appendFileSync(grown, '{"c":3}\n');
    expect(lastText(grown, undefined, 16)).toBe('{"b":2}');
    expect(lastText(grown)).toBe('{"c":3}');
    // A size past the end (the file shrank since): no line rather than a wrong one.
    expect(lastText(f('j', '{"a":1}\n'), undefined, 100)).toBeNull();
  });

  it('readLastLine agrees with splitting the whole file, at every read boundary and after longer files', () => {
    const dir = tempDir('txu-lastline-x-');
    // What the last line is by definition: the file ends with a newline and
    // the line (with the newline before it, unless it is the whole file) fits.
    const expected = (text: string, max: number) => {
      if (!text.endsWith('\n') || text.length < 2) return null;
      const lines = text.slice(0, -1).split('\n');
      const last = lines[lines.length - 1]!;
      return last.length + (lines.length > 1 ? 2 : 1) <= max + 1 ? last : null;
    };
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    // Line lengths around the reads' edges (8 KB, then twice as much each time) and random ones.
    const edges = [8190, 8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 65536, 131071, 131072, 131073];
    const lengths = [...edges, ...Array.from({ length: 30 }, () => rnd(300_000))];
    let k = 0;
    for (const len of lengths) {
      for (const before of ['', 'x\n', `${'w'.repeat(rnd(50_000))}\n${'v'.repeat(rnd(3))}\n`]) {
        const text = `${before}${'z'.repeat(len)}\n`;
        const p = join(dir, `f${k++}`);
        writeFileSync(p, text);
        for (const max of [LAST_LINE_MAX, 100_000, 16_384]) {
          expect(
            readLastLine(p, max)?.toString('utf8') ?? null,
            `line of ${len} after ${before.length} bytes, max ${max}`,
          ).toBe(expected(text, max));
        }
      }
    }
    // A file of many short lines leaves newlines in the shared buffer: a
    // long last line read afterwards must not stop at one of them.
    const short = join(dir, 'short');
    writeFileSync(short, 'ab\n'.repeat(400_000));
    expect(readLastLine(short)?.toString()).toBe('ab');
    const longLast = join(dir, 'long-last');
    writeFileSync(longLast, `{"a":1}\n${'q'.repeat(700_000)}\n`);
    expect(readLastLine(longLast)?.toString()).toBe('q'.repeat(700_000));
    expect(readLastLine(short, undefined, 3)?.toString()).toBe('ab');
    expect(readLastLine(longLast)?.length).toBe(700_000);
  });

  it('latestIsoField: the latest value of the field, escaped text ignored', () => {
    const iso = (line: string) => latestIsoField(Buffer.from(line), 'timestamp');
    expect(iso('{"timestamp":"2026-01-02T03:04:05.000Z","x":{"timestamp":"2026-02-01T00:00:00Z"}}')).toBe(
      Date.parse('2026-02-01T00:00:00Z'),
    );
    expect(iso('{"text":"say \\"timestamp\\":\\"2030-01-01T00:00:00Z\\"","timestamp":"2026-01-02T00:00:00Z"}')).toBe(
      Date.parse('2026-01-02T00:00:00Z'),
    );
    expect(iso('{"timestamp":1767225600000}')).toBeNull();
    expect(iso('{"timestamp":"not a date"}')).toBeNull();
    // Multi-byte text around it, and the field inside a long line (searched as bytes).
    expect(iso(`{"t":"é✓${'x'.repeat(100_000)}","timestamp":"2026-03-04T05:06:07Z","u":"€"}`)).toBe(
      Date.parse('2026-03-04T05:06:07Z'),
    );
    expect(iso('{"timestamp":"2026-01-02T00:00:00Zé"}')).toBeNull();
    // A view into a larger buffer: only the view is searched.
    const whole = Buffer.from('{"timestamp":"2026-05-05T00:00:00Z"}{"timestamp":"2027-01-01T00:00:00Z"}');
    expect(latestIsoField(whole.subarray(0, 36), 'timestamp')).toBe(Date.parse('2026-05-05T00:00:00Z'));
  });

  it('the horizon is the first day less two days (one in UTC); nothing is left unread while Cursor has sources', () => {
    expect(horizonOfDay('2026-11-03')).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(horizonOfDay('2026-11-03', 'Pacific/Kiritimati')).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(horizonOfDay('2026-11-03', 'UTC')).toBe(Date.parse('2026-11-02T00:00:00Z'));
    const scans = (cursorSources: number): HarnessScan[] =>
      HARNESSES.map((harness) => ({
        harness,
        roots: [],
        sources: harness.usesKnownProjects
          ? Array.from({ length: cursorSources }, (_, i) => ({
              harness: harness.id,
              key: `k${i}`,
              path: `/p${i}`,
              kind: 'sqlite' as const,
            }))
          : [],
      }));
    expect(usableHorizon(scans(0), 5)).toBe(5);
    expect(usableHorizon(scans(1), 5)).toBeNull();
    expect(usableHorizon(scans(0), null)).toBeNull();
  });
});
