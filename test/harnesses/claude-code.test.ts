// Claude Code, end to end through the real CLI on generated fixture trees.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome, CANARY } from '../../fixtures/claude-code/build.js';
import { Ledger, tokenFields } from '../../fixtures/ledger.js';
import { cleanEnv, forgetSaidWarnings, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];
const P1 = '/home/u/proj-one';
const P2 = '/home/u/proj two';

interface Built {
  home: string;
  ledger: Ledger;
  main: string;
  forkId: string;
  estimate: number;
}

/** One tree exercising every Claude Code rule; the ledger holds what must be counted. */
function build(): Built {
  const home = tempDir('txu-claude-');
  const claude = new ClaudeHome(join(home, '.claude'));
  const s = claude.session({ cwd: P1, sessionId: 'aaaaaaaa-0000-4000-8000-000000000001' });
  s.user('2026-10-20T10:00:00.000Z');
  // Split into 3 lines repeating the usage: one response.
  const m1 = s.response({
    ts: '2026-10-20T10:00:05.000Z',
    splits: 3,
    usage: { input: 10, output: 500, cacheRead: 12000, cacheWrite5m: 300, cacheWrite1h: 700, thinking: 120 },
  });
  const branchPoint = s.leaf;
  const m2 = s.response({
    ts: '2026-10-20T10:01:00.000Z',
    model: 'claude-sonnet-5-5',
    usage: { input: 3, output: 40, cacheRead: 13000 },
  });
  // Rewind: a new branch from before m2; the abandoned m2 was billed and stays counted.
  s.rewindTo(branchPoint);
  s.response({
    ts: '2026-10-20T10:02:00.000Z',
    splits: 2,
    usage: { input: 7, output: 90, cacheRead: 13000, cacheWrite5m: 50 },
  });
  s.apiError('2026-10-20T10:03:00.000Z');
  s.nonBillingUsageRecords('2026-10-20T10:03:30.000Z');
  s.imageResult('2026-10-20T10:04:00.000Z', 3 * 1024 * 1024);
  // Envelope fields missing: no requestId, speed null, no cwd — still counted, project from nearest cwd line.
  s.response({
    ts: '2026-10-21T23:30:00.000Z',
    omit: ['requestId', 'cwd', 'speed'],
    usage: { input: 1, output: 2, cacheRead: 3 },
  });
  s.garbage();
  s.metadata();
  s.costState(0.5);
  s.costState(1.75); // last wins
  s.response({ ts: '2026-10-22T09:00:00.000Z', usage: { input: 4, output: 8 } });
  s.tornTail();

  // Subagent (nested folder), pre-2.1.307 placeholder usage on early split lines.
  const sub = s.subagent('0123456789abcdef0', { version: '2.1.306', nested: 'workflows/x' });
  sub.response({
    ts: '2026-10-20T11:00:00.000Z',
    model: 'claude-haiku-5-5',
    splits: 3,
    placeholder: { input: 1, output: 1 },
    usage: { input: 20, output: 333, cacheRead: 4000, cacheWrite5m: 100 },
  });

  // /branch fork: copies m1 and m2 into a new session file, then does its own work.
  const forkId = 'bbbbbbbb-0000-4000-8000-000000000002';
  const f = s.fork(forkId, [m1, m2]);
  f.response({ ts: '2026-10-23T08:00:00.000Z', usage: { input: 11, output: 22, cacheRead: 33, cacheWrite1h: 44 } });

  // A second project in another session, another day.
  const t = claude.session({ cwd: P2 });
  t.response({
    ts: '2026-10-25T12:00:00.000Z',
    model: 'claude-sonnet-5-5',
    usage: { input: 100, output: 200, cacheRead: 300, cacheWrite5m: 400 },
  });
  // Outside the range: never in the October report.
  t.response({ ts: '2026-11-02T12:00:00.000Z', usage: { input: 1000, output: 1000 } });
  return { home, ledger: claude.ledger, main: s.file, forkId, estimate: 1.75 };
}

describe('claude-code end to end', () => {
  let b: Built;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    b = build();
    env = cleanEnv(b.home);
  });

  it('counts every billed response exactly once, by model and day', () => {
    const j = reportJson([...RANGE, '--by', 'model,day', '--tz', 'UTC', '--sort', 'name'], env);
    const expected = b.ledger.rows(['model', 'day'], { since: '2026-10-01', until: '2026-10-31' });
    expect(j.rows.map((r: any) => tokenFields(r, ['model', 'day']))).toEqual(expected);
    expect(tokenFields(j.totals)).toEqual(tokenFields(b.ledger.totals({ since: '2026-10-01', until: '2026-10-31' })));
    // Sanity of the fixture itself: 7 responses in October (split, sonnet, branch, no-envelope, after-garbage, subagent, fork's own, p2).
    expect(j.totals.requests).toBe(8);
    expect(j).toMatchObject({ since: '2026-10-01', until: '2026-10-31', timezone: 'UTC', group_by: ['model', 'day'] });
  });

  it('keeps the largest usage of a placeholder-split subagent response and credits the parent session', () => {
    const j = reportJson([...RANGE, '--by', 'session,model'], env);
    const haiku = j.rows.filter((r: any) => r.model === 'claude-haiku-5-5');
    expect(haiku).toHaveLength(1);
    expect(haiku[0]).toMatchObject({
      session: 'aaaaaaaa-0000-4000-8000-000000000001',
      requests: 1,
      input_tokens: 20,
      output_tokens: 333,
      cache_read_tokens: 4000,
      cache_write_tokens: 100,
    });
  });

  it('credits fork copies to the original session; the fork only has its own response', () => {
    const j = reportJson([...RANGE, '--by', 'session', '--sort', 'name'], env);
    const fork = j.rows.find((r: any) => r.session === b.forkId);
    expect(fork).toMatchObject({
      requests: 1,
      input_tokens: 11,
      output_tokens: 22,
      cache_read_tokens: 33,
      cache_write_tokens: 44,
    });
    const expected = b.ledger.rows(['session'], { since: '2026-10-01', until: '2026-10-31' });
    // --by session rows are sorted by cost (issue 25); compared here in session order.
    const bySession = j.rows
      .map((r: any) => tokenFields(r, ['session']))
      .sort((x: any, y: any) => (x.session < y.session ? -1 : 1));
    expect(bySession).toEqual(expected);
  });

  it('shows the cost-state estimate beside sessions without adding it to costs', () => {
    const j = reportJson([...RANGE, '--by', 'session'], env);
    const main = j.rows.find((r: any) => r.session === 'aaaaaaaa-0000-4000-8000-000000000001');
    expect(main.session_estimate_usd).toBe(b.estimate);
    // No prices wired for this check: computed cost unknown, recorded none per response.
    expect(main.recorded_cost_usd).toBeNull();
    expect(j.totals.recorded_cost_usd).toBeNull();
  });

  it('attributes by project, including a line without cwd', () => {
    const j = reportJson([...RANGE, '--by', 'project', '--sort', 'name'], env);
    expect(j.rows.map((r: any) => r.project)).toEqual([P2, P1]); // binary order: ' ' < '-'
    expect(j.rows.map((r: any) => tokenFields(r, ['project']))).toEqual(
      b.ledger.rows(['project'], { since: '2026-10-01', until: '2026-10-31' }),
    );
  });

  it('warns once per file for unparsable lines and for the torn tail, naming file and line', () => {
    const j = reportJson(RANGE, env);
    const mine = j.warnings.filter((w: string) => w.startsWith(b.main + ':'));
    expect(mine.some((w: string) => /1 unparsable line/.test(w))).toBe(true);
    expect(mine.some((w: string) => /incomplete final line/.test(w))).toBe(true);
    for (const w of j.warnings) expect(w).not.toContain(CANARY);
  });

  it('sources lists files, events and skip reasons with a first location', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout);
    const cc = s.harnesses.find((h: any) => h.harness === 'claude-code');
    expect(cc.files).toBe(4);
    const synth = cc.skipped.find((k: any) => /synthetic/.test(k.reason));
    expect(synth.count).toBe(1);
    expect(synth.first).toMatch(new RegExp(`${b.main.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+$`));
    const text = runCli(['sources'], env).stdout;
    expect(text).toContain('Claude Code (claude-code): 4 sources');
  });

  it('writes CSV with the JSON row columns and RFC 4180 quoting', () => {
    const r = runCli(['report', ...RANGE, '--by', 'project', '--format', 'csv'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines[0]).toBe(
      'project,requests,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens,total_tokens,cost_usd,cost_source,computed_cost_usd,recorded_cost_usd,unpriced_requests,unpriced_tokens,session_grain_requests,session_grain_tokens,session_grain_cost_usd',
    );
    const p2 = b.ledger.rows(['project'], { since: '2026-10-01', until: '2026-10-31' }).find((r) => r.project === P2)!;
    const j = reportJson([...RANGE, '--by', 'project'], env).rows.find((r: any) => r.project === P2);
    const cost = (v: number | null) => (v === null ? '' : String(v));
    expect(lines).toContain(
      `${P2},${p2.requests},${p2.input_tokens},${p2.cache_read_tokens},${p2.cache_write_tokens},${p2.output_tokens},${p2.reasoning_tokens},${p2.total_tokens},` +
        `${cost(j.cost_usd)},${j.cost_source},${cost(j.computed_cost_usd)},${cost(j.recorded_cost_usd)},${j.unpriced_requests},${j.unpriced_tokens},` +
        `${j.session_grain_requests},${j.session_grain_tokens},${cost(j.session_grain_cost_usd)}`,
    );
    // A field with a comma or quote is quoted, quotes doubled.
    const q = runCli(['sql', `SELECT 'a,b' AS x, 'say "hi"' AS y`, '--format', 'csv'], env).stdout;
    expect(q).toBe('x,y\r\n"a,b","say ""hi"""\r\n');
    expect(lines[lines.length - 1]).toBe('');
  });

  it('renders a table readable at 80 columns with a totals row and no colour under NO_COLOR', () => {
    forgetSaidWarnings(env); // a file's warnings are said once: the reports above said them
    const r = runCli(['report', ...RANGE, '--by', 'day'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toMatch(/\x1b\[/);
    expect(lines.some((l) => /^Total\s/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('2026-10-20'))).toBe(true);
    // Warnings go to stderr, never into the report.
    expect(r.stdout).not.toContain('unparsable');
    expect(r.stderr).toContain('unparsable');
  });

  it('cuts days in --tz', () => {
    // 2026-10-21T23:30Z is 2026-10-22 in Berlin.
    const utc = reportJson([...RANGE, '--by', 'day', '--tz', 'UTC'], env);
    const ber = reportJson([...RANGE, '--by', 'day', '--tz', 'Europe/Berlin'], env);
    expect(ber.timezone).toBe('Europe/Berlin');
    expect(ber.rows.map((r: any) => tokenFields(r, ['day']))).toEqual(
      b.ledger.rows(['day'], { tz: 'Europe/Berlin', since: '2026-10-01', until: '2026-10-31' }),
    );
    expect(ber.rows.map((r: any) => r.day)).not.toEqual(utc.rows.map((r: any) => r.day));
  });

  it('groups by ISO week and month', () => {
    const j = reportJson(['--since', '2026-10-01', '--until', '2026-11-30', '--by', 'month,week'], env);
    expect(j.rows.map((r: any) => tokenFields(r, ['month', 'week']))).toEqual(
      b.ledger.rows(['month', 'week'], { since: '2026-10-01', until: '2026-11-30' }),
    );
    expect(j.rows.map((r: any) => r.week)).toContain('2026-W43');
  });

  it('never stores prompt text, tool output or file contents', () => {
    const db = join(b.home, 'canary.duckdb');
    runCli(['ingest', '--db', db], env);
    const r = runCli(['sql', '--db', db, '--format', 'csv', 'SELECT * FROM usage_events'], env);
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(100);
    expect(r.stdout).not.toContain(CANARY);
    expect(readFileSync(db).includes(CANARY)).toBe(false);
  });
});

describe('claude-code incremental ingest', () => {
  it('reads appended lines once, completes a torn line, and re-reads a rewritten file', () => {
    const home = tempDir('txu-claude-inc-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: P1 });
    s.response({ ts: '2026-10-05T10:00:00.000Z', splits: 2, usage: { input: 1, output: 10 } });
    s.raw(
      '{"type":"assistant","timestamp":"2026-10-05T10:05:00.000Z","cwd":"/home/u/proj-one","message":{"id":"msg_tail","model":"claude-opus-5-5","usage":{"input_tokens":5,',
    );
    const env = cleanEnv(home);
    const first = reportJson(RANGE, env);
    expect(first.totals.requests).toBe(1);
    // The writer finishes the torn line and appends a new response.
    s.raw('"output_tokens":50}}}\n');
    claude.ledger.add({
      harness: 'claude-code',
      session: s.sessionId,
      project: P1,
      model: 'claude-opus-5-5',
      ts: Date.parse('2026-10-05T10:05:00.000Z'),
      requests: 1,
      input_tokens: 5,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 50,
      reasoning_tokens: 0,
    });
    s.response({ ts: '2026-10-06T10:00:00.000Z', usage: { input: 2, output: 20 } });
    const ing = runCli(['ingest'], env);
    expect(ing.stdout).toMatch(/1 appended/);
    const second = reportJson(RANGE, env);
    expect(tokenFields(second.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(second.warnings.filter((w: string) => /incomplete final line/.test(w))).toEqual([]);
    // A later split line of an already-stored response (appended after the
    // first read) must not count it twice.
    const [firstLine] = s.written.values().next().value as string[];
    appendFileSync(s.file, firstLine + '\n');
    const third = reportJson(RANGE, env);
    expect(tokenFields(third.totals)).toEqual(tokenFields(claude.ledger.totals()));
  });
});

describe('claude-code roots', () => {
  it('searches ~/.claude and ~/.config/claude, and CLAUDE_CONFIG_DIR as a comma-separated list', () => {
    const home = tempDir('txu-claude-roots-');
    const ledger = new Ledger();
    const a = new ClaudeHome(join(home, '.claude'), ledger);
    const c = new ClaudeHome(join(home, '.config/claude'), ledger);
    a.session({ cwd: P1 }).response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 1, output: 1 } });
    c.session({ cwd: P1 }).response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 2, output: 2 } });
    const both = reportJson(RANGE, cleanEnv(home));
    expect(both.totals.requests).toBe(2);

    const x = new ClaudeHome(join(home, 'x'));
    const y = new ClaudeHome(join(home, 'y'));
    x.session({ cwd: P1 }).response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 10, output: 0 } });
    y.session({ cwd: P1 }).response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 20, output: 0 } });
    const env = cleanEnv(home, { CLAUDE_CONFIG_DIR: `${join(home, 'x')},${join(home, 'y')}` });
    const j = reportJson([...RANGE, '--db', join(home, 'other.duckdb')], env);
    expect(j.totals.input_tokens).toBe(30);
    // --root beats the environment.
    const k = reportJson(
      [...RANGE, '--db', join(home, 'third.duckdb'), '--root', `claude-code=${join(home, 'y')}`],
      env,
    );
    expect(k.totals.input_tokens).toBe(20);
  });
});

describe('CLI behaviour', () => {
  it('says on stderr that there is no data, where to look and --demo, and exits 0', () => {
    const home = tempDir('txu-empty-');
    const r = runCli(['report'], cleanEnv(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No harness data found');
    expect(r.stderr).toContain('tx-usage sources');
    expect(r.stderr).toContain('--demo');
    const j = reportJson([], cleanEnv(home));
    expect(j.rows).toEqual([]);
    expect(j.totals.requests).toBe(0);
    expect(j.warnings.join('\n')).toContain('No harness data found');
  });

  it('rejects bad --since/--until/--by/--harness/--tz with exit 2', () => {
    const env = cleanEnv(tempDir('txu-bad-'));
    for (const args of [
      ['--since', 'yesterday'],
      ['--until', '2026-02-30'],
      ['--by', 'colour'],
      ['--harness', 'copilot'],
      ['--tz', 'Mars/Base'],
      ['--since', '2026-10-10', '--until', '2026-10-01'],
    ]) {
      const r = runCli(['report', ...args], env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/tx-usage: /);
      expect(r.stdout).toBe('');
    }
  });

  it('accepts Nd, Nw and Nm: N calendar days (weeks) ending today, today included', () => {
    const env = cleanEnv(tempDir('txu-rel-'));
    const today = new Date().toISOString().slice(0, 10);
    const j = reportJson(['--since', '7d', '--tz', 'UTC'], env);
    expect(j.until).toBe(today);
    expect((Date.parse(j.until) - Date.parse(j.since)) / 86400000).toBe(6);
    const w = reportJson(['--since', '2w', '--tz', 'UTC'], env);
    expect((Date.parse(w.until) - Date.parse(w.since)) / 86400000).toBe(13);
    const m = reportJson(['--since', '1m', '--tz', 'UTC'], env);
    expect(m.since.slice(5, 7)).not.toBe(m.until.slice(5, 7));
  });

  it('reports on generated data with --demo on an empty machine', () => {
    const env = cleanEnv(tempDir('txu-demo-'));
    const j = reportJson(['--demo', '--by', 'harness'], env);
    expect(j.rows.length).toBeGreaterThan(0);
    expect(j.totals.requests).toBeGreaterThan(10);
    const t = runCli(['report', '--demo'], env);
    expect(t.status).toBe(0);
    expect(t.stdout).toContain('Total');
  });

  it('leaves a --db that is not a store alone (exit 2), never rebuilds it', async () => {
    const home = tempDir('txu-corrupt-');
    new ClaudeHome(join(home, '.claude'))
      .session({ cwd: P1 })
      .response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 1, output: 1 } });
    const db = join(home, 'bad.duckdb');
    const { readFileSync, writeFileSync } = await import('node:fs');
    writeFileSync(db, 'this is not a duckdb file'.repeat(1000));
    const r = runCli(['report', ...RANGE, '--db', db, '--format', 'json'], cleanEnv(home));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`tx-usage: not a tx-usage store: ${db} (not a DuckDB database)\n`);
    expect(readFileSync(db, 'utf8')).toBe('this is not a duckdb file'.repeat(1000));
    const ok = runCli(['report', ...RANGE, '--db', join(home, 'good.duckdb'), '--format', 'json'], cleanEnv(home));
    expect(JSON.parse(ok.stdout).totals.requests).toBe(1);
  });
});
