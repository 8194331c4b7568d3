// The delta path (src/cli/delta.ts): a remembered report brought up to date
// with appended transcript lines, without the store. Whatever it answers must
// be byte for byte what the full path answers on the same files from an empty
// store; whenever it cannot prove that, the full path must answer instead.
// Transcripts grow the way harnesses write them: the fixture builders' files
// are cut back and then extended line by line, in steps.
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANARY, ClaudeHome, type ClaudeSession } from '../fixtures/claude-code/build.js';
import { tokenFields } from '../fixtures/ledger.js';
import { buildCodexHome } from '../fixtures/codex/home.js';
import { buildDefaultHome } from '../fixtures/pi/scenarios.js';
import { rng } from '../fixtures/codex/rollout.js';
import { cleanEnv, runCli, tempDir } from './helpers/cli.js';

const ALL = ['--since', '2025-12-01', '--until', '2026-12-31'];

interface Run {
  stdout: string;
  stderr: string;
  stats: any;
}

/** Runs `report` with a private stats file; `cache` picks the cache dir (a fresh one means an empty store). */
function runner(home: string, cache: string, extra: Record<string, string> = {}) {
  const statsFile = join(cache, '..', `${cache.split('/').pop()}-stats.json`);
  const env = cleanEnv(home, { XDG_CACHE_HOME: cache, TX_USAGE_STATS: statsFile, ...extra });
  return (args: string[]): Run => {
    rmSync(statsFile, { force: true });
    const r = runCli(['report', ...args], env);
    if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
    return { stdout: r.stdout, stderr: r.stderr, stats: JSON.parse(readFileSync(statsFile, 'utf8')) };
  };
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Offsets just past each newline. */
function lineEnds(buf: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) out.push(i + 1);
  return out;
}

/**
 * Cuts every transcript under `home` back to `start` of its lines, then
 * grows them again in `steps` steps (a random few files a step, each by a
 * random number of lines, the last step completing all). After the first
 * full run and after each step, `args` runs against the growing store and
 * against an empty one. Returns how the growing runs were answered.
 */
function replayGrowth(home: string, args: string[], o: { seed: number; steps: number; start?: number }): { kinds: string[]; last: Run } {
  const rand = rng(o.seed);
  const files = jsonlFiles(home).map((path) => {
    const full = readFileSync(path);
    const ends = lineEnds(full);
    return { path, full, ends, at: Math.floor(ends.length * (o.start ?? 0.4)) };
  });
  const cut = (f: (typeof files)[number]) => writeFileSync(f.path, f.full.subarray(0, f.at === 0 ? 0 : f.ends[f.at - 1]));
  for (const f of files) cut(f);
  const growing = runner(home, join(home, '.cache-grow'));
  let last = growing(args);
  expect(last.stats.kind).toBe('ingest');
  const kinds: string[] = [];
  for (let step = 1; step <= o.steps; step++) {
    for (const f of files) {
      if (f.at >= f.ends.length) continue;
      if (step === o.steps) f.at = f.ends.length;
      else if (rand() < 0.3) f.at = Math.min(f.ends.length, f.at + 1 + Math.floor(rand() * 4));
      else continue;
      // Appended, never rewritten: the new lines go after the old bytes.
      const before = statSync(f.path).size;
      writeFileSync(f.path, f.full.subarray(before, f.ends[f.at - 1]), { flag: 'a' });
    }
    last = growing(args);
    kinds.push(last.stats.kind);
    const fresh = join(home, `.cache-fresh-${step}`);
    const full = runner(home, fresh)(args);
    expect(full.stats.kind).toBe('ingest');
    expect(last.stdout, `step ${step} (${last.stats.kind}) of ${args.join(' ')}`).toBe(full.stdout);
    expect(last.stderr.replace(/^trace .*\n/gm, '')).toBe(full.stderr);
    rmSync(fresh, { recursive: true, force: true });
  }
  return { kinds, last };
}

function claudeHome(home: string): { claude: ClaudeHome; sessions: ClaudeSession[] } {
  const claude = new ClaudeHome(join(home, '.claude'));
  const sessions: ClaudeSession[] = [];
  const r = rng(7);
  for (const [i, cwd] of ['/w/alpha', '/w/beta', '/w/gamma'].entries()) {
    const s = claude.session({ cwd });
    sessions.push(s);
    for (let n = 0; n < 14; n++) {
      const day = 1 + ((n * 3 + i) % 27);
      const ts = (min: number) => new Date(Date.UTC(2026, 5, day, 8 + (n % 12), min)).toISOString();
      s.user(ts(0));
      s.response({
        ts: ts(1),
        splits: 1 + Math.floor(r() * 3),
        model: n % 3 === 0 ? 'claude-opus-4-1-20250805' : 'claude-sonnet-4-5-20250929',
        usage: { input: 10 + n, output: 200 + 7 * n, cacheRead: 1000 * n, cacheWrite5m: 50 * i, cacheWrite1h: n % 4 === 0 ? 400 : 0, thinking: n % 2 ? 30 : undefined },
      });
    }
  }
  const sub = sessions[0]!.subagent('agent-1');
  for (let n = 0; n < 6; n++) sub.response({ ts: new Date(Date.UTC(2026, 5, 20, 12, n)).toISOString(), splits: 2, usage: { input: 4, output: 90, cacheRead: 500 } });
  return { claude, sessions };
}

/** June 2026, day and minute. */
const at = (day: number, min = 0) => new Date(Date.UTC(2026, 5, day, 9, min)).toISOString();

/**
 * A Claude Code home with one session (`a`) holding one response, reported
 * once with `args` (the full path); `cache` is its cache dir.
 */
function oneSession(args = [...ALL, '--format', 'json'], extra: Record<string, string> = {}) {
  const home = tempDir('txu-delta-');
  const claude = new ClaudeHome(join(home, '.claude'));
  const a = claude.session({ cwd: '/w/a' });
  a.user(at(1, 0));
  a.response({ ts: at(1, 1), usage: { input: 5, output: 50, cacheRead: 100 } });
  const cache = join(home, '.cache');
  const run = runner(home, cache, extra);
  expect(run(args).stats.kind).toBe('ingest');
  return { home, claude, a, cache, run, args, journal: join(cache, 'tx-usage', 'usage.duckdb.journal') };
}

describe('delta path: the same answer as a full run on an empty store', () => {
  it('Claude Code transcripts growing in steps (split responses, a subagent), by day in JSON', () => {
    const home = tempDir('txu-delta-');
    const { claude } = claudeHome(home);
    const { kinds, last } = replayGrowth(home, [...ALL, '--by', 'day', '--format', 'json'], { seed: 1, steps: 8 });
    // Most steps only add new responses: the delta path answered those.
    expect(kinds.filter((k) => k === 'delta').length).toBeGreaterThanOrEqual(4);
    expect(tokenFields(JSON.parse(last.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('Claude Code, by session and model in JSON', () => {
    const home = tempDir('txu-delta-');
    claudeHome(home);
    const { kinds } = replayGrowth(home, [...ALL, '--by', 'session,model', '--format', 'json'], { seed: 5, steps: 6 });
    expect(kinds).toContain('delta');
  });

  it('Claude Code, by model and project in a table, in a zone half an hour off UTC', () => {
    const home = tempDir('txu-delta-');
    claudeHome(home);
    const { kinds } = replayGrowth(home, [...ALL, '--by', 'model,project', '--tz', 'Asia/Kolkata'], { seed: 2, steps: 6 });
    expect(kinds).toContain('delta');
  });

  it('Codex rollouts (cumulative totals, records, forks, sub-agents, pagination), by week and harness in CSV', () => {
    const home = tempDir('txu-delta-');
    buildCodexHome(join(home, '.codex'));
    const { kinds } = replayGrowth(home, [...ALL, '--by', 'week,harness', '--format', 'csv', '--tz', 'America/New_York'], { seed: 3, steps: 8 });
    // Appended Codex lines carry rate-limit snapshots, which only the full path stores: the delta path declines them.
    expect(kinds).not.toContain('delta');
  });

  it('Pi sessions (trees, recorded costs), by month with a project filter, under each cost mode', () => {
    for (const [i, cost] of (['auto', 'computed', 'recorded'] as const).entries()) {
      const home = tempDir('txu-delta-');
      buildDefaultHome(home);
      const { kinds } = replayGrowth(home, [...ALL, '--by', 'month,model', '--format', 'json', '--cost', cost], { seed: 10 + i, steps: 5 });
      expect(kinds, cost).toContain('delta');
    }
  });

  it('all three harnesses in one home, filtered to two of them', () => {
    const home = tempDir('txu-delta-');
    claudeHome(home);
    buildCodexHome(join(home, '.codex'));
    buildDefaultHome(home);
    const { kinds } = replayGrowth(home, [...ALL, '--by', 'harness,day', '--harness', 'claude-code,pi', '--format', 'json'], { seed: 4, steps: 6, start: 0.7 });
    expect(kinds).toContain('delta');
  });
});

describe('delta path: what it leaves to the full path', () => {
  const setup = () => {
    const o = oneSession(undefined, { TX_USAGE_TRACE: '1' });
    return { ...o, s: o.a };
  };
  const reason = (r: Run) => /delta path not taken: (.*)/.exec(r.stderr)?.[1] ?? '';

  /** Cuts `file` just after the first split line of response `id`; returns the rest. */
  const cutAfterFirstSplit = (file: string, id: string): string => {
    const text = readFileSync(file, 'utf8');
    const firstSplit = text.indexOf('\n', text.indexOf(id)) + 1;
    writeFileSync(file, text.slice(0, firstSplit));
    return text.slice(firstSplit);
  };

  it('a response whose earlier split lines the store holds (its rows there are not known here)', () => {
    const home = tempDir('txu-delta-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/a' });
    const id = s.response({ ts: at(3, 1), usage: { input: 6, output: 60 }, splits: 3 });
    const rest = cutAfterFirstSplit(s.file, id);
    const run = runner(home, join(home, '.cache'), { TX_USAGE_TRACE: '1' });
    const args = [...ALL, '--format', 'json'];
    expect(run(args).stats.kind).toBe('ingest');
    writeFileSync(s.file, rest, { flag: 'a' });
    const r = run(args);
    expect(r.stats.kind).toBe('ingest');
    expect(reason(r)).toMatch(/a response seen before/);
    expect(tokenFields(JSON.parse(r.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('a response whose earlier split lines a delta run read: counted once, with its largest usage', () => {
    const { home, claude, s, run, args } = setup();
    // Pre-2.1.307 subagent files: the early split lines carry placeholder usage, the last the real one.
    const id = s.response({ ts: at(3, 1), usage: { input: 6, output: 60, cacheRead: 500 }, splits: 3, placeholder: { input: 1, output: 1 } });
    const rest = cutAfterFirstSplit(s.file, id);
    const partial = run(args);
    expect(partial.stats.kind).toBe('delta');
    writeFileSync(s.file, rest, { flag: 'a' });
    const r = run(args);
    expect(r.stats).toMatchObject({ kind: 'delta', events: 1 });
    expect(tokenFields(JSON.parse(r.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(r.stdout).toBe(runner(home, join(home, '.cache-fresh'))(args).stdout);
  });

  it('a torn last line, a new transcript, a rewritten one, an unpriced model', () => {
    const { claude, s, run, args } = setup();
    s.response({ ts: at(3, 1), usage: { input: 6, output: 60 } });
    s.tornTail();
    const torn = run(args);
    expect(torn.stats.kind).toBe('ingest');
    expect(reason(torn)).toMatch(/incomplete final line/);

    const other = claude.session({ cwd: '/w/b' });
    other.response({ ts: at(4, 1), usage: { input: 7, output: 70 } });
    const added = run(args);
    expect(added.stats.kind).toBe('ingest');
    expect(reason(added)).toMatch(/added, removed or moved/);

    const t = claude.session({ cwd: '/w/c' });
    t.response({ ts: at(5, 1), usage: { input: 1, output: 10 } });
    run(args);
    t.response({ ts: at(5, 2), model: 'acme-model-without-a-price', usage: { input: 1, output: 10 } });
    const unpriced = run(args);
    expect(unpriced.stats.kind).toBe('ingest');
    expect(reason(unpriced)).toMatch(/no price for claude-code model acme-model-without-a-price|no cached price/);
    expect(JSON.parse(unpriced.stdout).warnings.join('\n')).toMatch(/acme-model-without-a-price/);

    const size = statSync(other.file).size;
    const text = readFileSync(other.file, 'utf8');
    writeFileSync(other.file, text.replace('"input_tokens":7', '"input_tokens":8').slice(0, size) + text.slice(size));
    const rewritten = run(args);
    expect(rewritten.stats.kind).toBe('ingest');
    expect(reason(rewritten)).toMatch(/changed before its resume point|did not only grow/);
  });

  it('--by session: rows keep their session estimates; a row of a session the report did not show takes the full path', () => {
    const home = tempDir('txu-delta-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a' });
    const b = claude.session({ cwd: '/w/b' });
    a.response({ ts: at(2, 0), usage: { input: 5, output: 50 } });
    a.costState(1.25);
    b.response({ ts: at(1, 0), usage: { input: 7, output: 70 } });
    const run = runner(home, join(home, '.cache'), { TX_USAGE_TRACE: '1' });
    // From June 2nd: a's response is in range, b's is not (b has no row).
    const args = ['--since', '2026-06-02', '--until', '2026-12-31', '--by', 'session,day', '--format', 'json'];
    expect(run(args).stats.kind).toBe('ingest');
    a.response({ ts: at(3, 0), usage: { input: 6, output: 60 } });
    const d = run(args);
    expect(d.stats.kind).toBe('delta');
    const rows = JSON.parse(d.stdout).rows as { session: string; session_estimate_usd: number | null }[];
    expect(rows).toHaveLength(2); // a new day of a known session: its estimate is known
    expect(rows.every((r) => r.session_estimate_usd === 1.25)).toBe(true);
    expect(d.stdout).toBe(runner(home, join(home, '.cache-fresh-1'))(args).stdout);
    b.response({ ts: at(4, 0), usage: { input: 8, output: 80 } });
    const other = run(args);
    expect(other.stats.kind).toBe('ingest');
    expect(reason(other)).toMatch(/a new session/);
    expect(other.stdout).toBe(runner(home, join(home, '.cache-fresh-2'))(args).stdout);
  });

  it('HTML takes the full path', () => {
    const { s, run } = setup();
    const args = [...ALL, '--format', 'html'];
    run(args);
    s.response({ ts: at(6, 1), usage: { input: 6, output: 60 } });
    expect(run(args).stats.kind).toBe('ingest');
  });
});

describe('delta path: the journal', () => {
  it('the next full run writes what delta runs read, without reading those bytes again; a stale journal adds nothing', () => {
    const { claude, a, cache, run, journal } = oneSession([...ALL, '--by', 'day', '--format', 'json']);
    const b = claude.session({ cwd: '/w/b' });
    b.response({ ts: at(1, 2), usage: { input: 2, output: 20 } });
    const args = [...ALL, '--by', 'day', '--format', 'json'];
    expect(run(args).stats.kind).toBe('ingest'); // a new transcript
    for (let i = 0; i < 3; i++) {
      a.response({ ts: at(2 + i, 0), usage: { input: 3 + i, output: 30 } });
      b.response({ ts: at(2 + i, 1), usage: { input: 4 + i, output: 40 } });
      expect(run(args).stats).toMatchObject({ kind: 'delta', appended: 2, events: 2 });
    }
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(3);
    // Nothing the store may not hold: no prompt text in the base or the journal.
    for (const f of ['usage.duckdb.journal', 'usage.duckdb.delta']) expect(readFileSync(join(cache, 'tx-usage', f), 'latin1')).not.toContain(CANARY);
    const kept = readFileSync(journal);

    // Another command line: the full path. It writes the journal's events and reads nothing.
    const byHarness = run([...ALL, '--by', 'harness', '--format', 'json']);
    expect(byHarness.stats).toMatchObject({ kind: 'ingest', fromJournal: 2, bytesRead: 0, rewritten: 0, appended: 0 });
    expect(tokenFields(JSON.parse(byHarness.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(existsSync(journal)).toBe(false);
    // The first command line is still current (memo hit), and agrees.
    const again = run(args);
    expect(again.stats.kind).toBe('memo-hit');
    expect(tokenFields(JSON.parse(again.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));

    // A journal put back after the store took it in: its writes start from
    // bookkeeping the store no longer has, so they are skipped (nothing counted twice).
    writeFileSync(journal, kept);
    a.response({ ts: at(9, 0), usage: { input: 9, output: 90 } });
    const after = run([...ALL, '--by', 'model', '--format', 'json']);
    expect(after.stats).toMatchObject({ kind: 'ingest', fromJournal: 0, appended: 1 });
    expect(tokenFields(JSON.parse(after.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('two command lines taking turns: each adds what the journal holds since it was rendered', () => {
    const lines = [
      [...ALL, '--by', 'day', '--format', 'json'],
      [...ALL, '--by', 'model,project'],
    ];
    const { home, claude, a, run } = oneSession(lines[0]);
    const b = claude.session({ cwd: '/w/b' });
    b.response({ ts: at(1, 2), model: 'claude-opus-4-1-20250805', usage: { input: 2, output: 20 } });
    for (const args of lines) expect(run(args).stats.kind).toBe('ingest');
    // Both remembered at the same state.
    expect(run(lines[0]!).stats.kind).toBe('memo-hit');
    for (let i = 0; i < 6; i++) {
      (i % 2 ? a : b).response({ ts: at(2 + i, 0), model: i % 3 ? undefined : 'claude-opus-4-1-20250805', usage: { input: 3 + i, output: 30 + i, cacheRead: 100 * i } });
      const args = lines[i % 2]!;
      const d = run(args);
      expect(d.stats).toMatchObject({ kind: 'delta', appended: 1, events: 1, fromJournal: i === 0 ? 0 : 1 });
      const fresh = runner(home, join(home, `.cache-fresh-${i}`))(args);
      expect(d.stdout).toBe(fresh.stdout);
    }
  });

  it('a torn journal line (a delta run killed while writing) is ignored by both paths', () => {
    const { claude, a, run, args, journal } = oneSession();
    a.response({ ts: at(2), usage: { input: 2, output: 20 } });
    expect(run(args).stats.kind).toBe('delta');
    writeFileSync(journal, '{"from":"x","to":"y","writes":[{"key":', { flag: 'a' });
    for (const day of [3, 4]) {
      a.response({ ts: at(day), usage: { input: day, output: 10 * day } });
      const d = run(args);
      expect(d.stats.kind).toBe('delta');
      expect(tokenFields(JSON.parse(d.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
    }
    // The records on either side of the torn line are written into the store, nothing is read again.
    const full = run([...ALL, '--by', 'harness', '--format', 'json']);
    expect(full.stats).toMatchObject({ kind: 'ingest', fromJournal: 1, appended: 0, bytesRead: 0 });
    expect(tokenFields(JSON.parse(full.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('without its base the delta path gives way, and the answer is the same', () => {
    const { claude, a, cache, run, args } = oneSession();
    a.response({ ts: at(2), usage: { input: 2, output: 20 } });
    rmSync(join(cache, 'tx-usage', 'usage.duckdb.delta'));
    const r = run(args);
    expect(r.stats.kind).toBe('ingest');
    expect(tokenFields(JSON.parse(r.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
    // The full run left a new base: the next append is a delta again.
    a.response({ ts: at(3), usage: { input: 3, output: 30 } });
    const d = run(args);
    expect(d.stats.kind).toBe('delta');
    expect(tokenFields(JSON.parse(d.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('keeps V8 code for its bundle in the cache dir; a damaged one is only refused and replaced', () => {
    const { claude, a, cache, run, args } = oneSession();
    const code = join(cache, 'tx-usage', 'delta.cjs.code');
    a.response({ ts: at(2), usage: { input: 2, output: 20 } });
    expect(run(args).stats.kind).toBe('delta');
    expect(existsSync(code)).toBe(true);
    writeFileSync(code, 'not V8 code');
    a.response({ ts: at(3), usage: { input: 3, output: 30 } });
    const d = run(args);
    expect(d.stats.kind).toBe('delta');
    expect(tokenFields(JSON.parse(d.stdout).totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(readFileSync(code, 'utf8')).not.toBe('not V8 code');
  });

  it('never writes the transcripts it reads', () => {
    const { home, a, run, args } = oneSession();
    a.response({ ts: at(2), usage: { input: 2, output: 20 } });
    const copy = join(home, 'copy.jsonl');
    copyFileSync(a.file, copy);
    const before = statSync(a.file);
    expect(run(args).stats.kind).toBe('delta');
    const after = statSync(a.file);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    expect(readFileSync(a.file)).toEqual(readFileSync(copy));
  });
});
