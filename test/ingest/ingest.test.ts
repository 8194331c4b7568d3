// Incremental ingest and the warm fast path, end to end through the real CLI,
// measured by what the CLI itself counts (TX_USAGE_STATS: bytes read, how each
// source was planned, whether the memo answered) — never by timing. Expected
// totals come from the fixture builders' ledgers.
import { appendFileSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome, type ClaudeSession } from '../../fixtures/claude-code/build.js';
import { Ledger, tokenFields } from '../../fixtures/ledger.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-06-01', '--until', '2026-06-30'];
const ts = (day: number, min: number) => new Date(Date.UTC(2026, 5, day, 10, min)).toISOString();

interface Run {
  out: any;
  stats: any;
}

function makeRunner(home: string, extra: Record<string, string> = {}) {
  const statsFile = join(home, 'stats.json');
  const env = cleanEnv(home, { TX_USAGE_STATS: statsFile, ...extra });
  return (args: string[]): Run => {
    rmSync(statsFile, { force: true });
    const r = runCli(['report', ...RANGE, '--format', 'json', ...args], env);
    if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
    return { out: JSON.parse(r.stdout), stats: JSON.parse(readFileSync(statsFile, 'utf8')) };
  };
}

function responses(s: ClaudeSession, day: number, n: number, from = 0): void {
  for (let i = 0; i < n; i++) {
    s.user(ts(day, from + 2 * i));
    s.response({
      ts: ts(day, from + 2 * i + 1),
      splits: 2,
      usage: { input: 5 + i, output: 100 + i, cacheRead: 1000 * (i + 1), cacheWrite5m: 10 * i },
    });
  }
}

function ledgerOf(l: Ledger, from: number, to?: number): Ledger {
  const out = new Ledger();
  for (const r of l.responses.slice(from, to)) out.add(r);
  return out;
}

describe('incremental ingest', () => {
  it('after an append, re-reads only the appended bytes (plus 512 bytes of head and tail check)', () => {
    const home = tempDir('txu-ingest-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a' });
    const b = claude.session({ cwd: '/w/b' });
    responses(a, 3, 5);
    responses(b, 4, 5);
    const run = makeRunner(home);
    const first = run([]);
    expect(first.stats.kind).toBe('ingest');
    expect(first.stats.rewritten).toBe(2);
    expect(first.stats.bytesRead).toBe(statSync(a.file).size + statSync(b.file).size);
    expect(tokenFields(first.out.totals)).toEqual(tokenFields(claude.ledger.totals()));

    const before = statSync(a.file).size;
    responses(a, 5, 3, 30);
    const appended = statSync(a.file).size - before;
    const second = run([]);
    expect(second.stats).toMatchObject({
      kind: 'ingest',
      appended: 1,
      rewritten: 0,
      unchanged: 1,
      bytesRead: appended,
      tailCheckBytes: 512,
    });
    expect(tokenFields(second.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it('re-reads a file that shrank, and one rewritten in place, from the start; responses counted before stay counted (issue 47), named once', () => {
    const home = tempDir('txu-ingest-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a', sessionId: 'aaaaaaaa-0000-4000-8000-0000000000aa' });
    responses(a, 3, 3);
    const keep = claude.ledger.responses.length;
    const cut = statSync(a.file).size;
    responses(a, 4, 4, 20);
    const run = makeRunner(home);
    expect(tokenFields(run([]).out.totals)).toEqual(tokenFields(claude.ledger.totals()));

    // Shrink at a line boundary: the last four responses are gone.
    truncateSync(a.file, cut);
    const shrunk = run([]);
    expect(shrunk.stats).toMatchObject({ kind: 'ingest', rewritten: 1, appended: 0, bytesRead: cut });
    // The four responses cut away were counted: they stay (last month's spend does not shrink).
    expect(tokenFields(shrunk.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(keep).toBeLessThan(claude.ledger.responses.length);
    const named = (out: any) =>
      out.warnings.filter((w: string) => w.startsWith(`${a.file}: `) && /stay counted/.test(w));
    expect(named(shrunk.out)).toHaveLength(1);
    expect(named(shrunk.out)[0]).toMatch(
      new RegExp(
        `^.*: truncated \\(${cut} bytes; \\d+ had been read\\): 4 responses counted before and no longer in it stay counted`,
      ),
    );

    // Rewritten in place (same inode, longer): the bytes before the old resume
    // point changed, so this is not an append.
    const from = claude.ledger.responses.length;
    const again = claude.session({ cwd: '/w/a', sessionId: 'aaaaaaaa-0000-4000-8000-0000000000aa' });
    expect(again.file).toBe(a.file);
    responses(again, 6, 6);
    expect(statSync(a.file).size).toBeGreaterThan(cut);
    const rewritten = run([]);
    expect(rewritten.stats).toMatchObject({
      kind: 'ingest',
      rewritten: 1,
      appended: 0,
      bytesRead: statSync(a.file).size,
    });
    // What it held before is kept; its new responses are counted by their ids, beside them.
    expect(from).toBeGreaterThan(0);
    expect(tokenFields(rewritten.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(named(rewritten.out)).toHaveLength(1);
    expect(named(rewritten.out)[0]).toMatch(
      /rewritten in place \(its bytes before the end of the last read changed\): 7 responses counted before/,
    );
    // Nothing changed since: the same answer, the change still named once.
    const same = run([]);
    expect(tokenFields(same.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(named(same.out)).toHaveLength(1);
  });

  it('completes a torn final line on the next run, reading only from the resume point', () => {
    const home = tempDir('txu-ingest-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a' });
    responses(a, 3, 2);
    const run = makeRunner(home);
    run([]);
    const complete = statSync(a.file).size;
    // A one-line response written in two halves: the first run sees half a line.
    const n = claude.ledger.responses.length;
    const scratch = claude.session({ cwd: '/w/a' }); // same shapes, written elsewhere
    scratch.response({ ts: ts(3, 40), usage: { input: 9, output: 99, cacheRead: 999 } });
    const line = readFileSync(scratch.file, 'utf8');
    unlinkSync(scratch.file);
    const half = Math.floor(line.length / 2);
    appendFileSync(a.file, line.slice(0, half));
    const torn = run([]);
    expect(torn.stats).toMatchObject({ appended: 1, bytesRead: Buffer.byteLength(line.slice(0, half)) });
    expect(tokenFields(torn.out.totals)).toEqual(tokenFields(ledgerOf(claude.ledger, 0, n).totals()));
    appendFileSync(a.file, line.slice(half));
    const done = run([]);
    // Re-read from the end of the last complete line: the torn half again, then the rest.
    expect(done.stats).toMatchObject({ appended: 1, bytesRead: statSync(a.file).size - complete });
    expect(tokenFields(done.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
  });

  it("keeps a deleted source's rows as history (retained), reading nothing", () => {
    const home = tempDir('txu-ingest-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a' });
    const b = claude.session({ cwd: '/w/b' });
    responses(a, 3, 2);
    const n = claude.ledger.responses.length;
    responses(b, 4, 2);
    const run = makeRunner(home);
    run([]);
    unlinkSync(b.file);
    const after = run([]);
    expect(after.stats).toMatchObject({ kind: 'ingest', removed: 1, retained: 1, unchanged: 1, bytesRead: 0 });
    expect(n).toBeLessThan(claude.ledger.responses.length);
    expect(tokenFields(after.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
  });
});

describe('parallel extraction', () => {
  /** Enough data (base64 screenshot lines) for worker threads and the early start to be used. */
  function bigHome(): { home: string; ledger: Ledger } {
    const home = tempDir('txu-par-');
    const claude = new ClaudeHome(join(home, '.claude'));
    for (let k = 0; k < 6; k++) {
      const s = claude.session({ cwd: `/w/p${k % 3}` });
      responses(s, 2 + k, 4);
      s.imageResult(ts(2 + k, 50), 2_500_000);
      responses(s, 2 + k, 3, 52);
      if (k % 2) s.subagent(`a${k}`).response({ ts: ts(2 + k, 59), usage: { input: 1, output: 2, cacheRead: 3 } });
    }
    return { home, ledger: claude.ledger };
  }

  it('gives the same report with worker threads (started before the store opens) as in one thread', () => {
    const { home, ledger } = bigHome();
    const par = makeRunner(home, { TX_USAGE_WORKERS: '2' })(['--by', 'day,project,model']);
    expect(par.stats.workers).toBe(1); // two threads extract: one worker and the main thread (pool.ts)
    expect(par.stats.earlyUsed).toBe(9); // 6 sessions + 3 subagents, all new to the store
    const one = makeRunner(home, { TX_USAGE_WORKERS: '1', XDG_CACHE_HOME: join(home, 'other-cache') })([
      '--by',
      'day,project,model',
    ]);
    expect(one.stats).toMatchObject({ workers: 0, earlyUsed: 0 });
    expect(par.out).toEqual(one.out);
    expect(par.stats.bytesRead).toBe(one.stats.bytesRead);
    expect(tokenFields(par.out.totals)).toEqual(tokenFields(ledger.totals()));
    expect(par.out.rows.map((r: any) => tokenFields(r, ['day', 'project', 'model']))).toEqual(
      ledger
        .rows(['day', 'project', 'model'], { since: '2026-06-01', until: '2026-06-30' })
        .map((r) => tokenFields(r, ['day', 'project', 'model'])),
    );
  });
});

describe('warm fast path (memo)', () => {
  it('answers an unchanged report from the memo, and not once a source changed', () => {
    const home = tempDir('txu-memo-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const a = claude.session({ cwd: '/w/a' });
    responses(a, 3, 3);
    const run = makeRunner(home);
    const full = run(['--by', 'model']);
    expect(full.stats.kind).toBe('ingest');
    const warm = run(['--by', 'model']);
    expect(warm.stats.kind).toBe('memo-hit');
    expect(warm.out).toEqual(full.out);
    // Another command line is its own entry.
    expect(run(['--by', 'project']).stats.kind).toBe('ingest');
    expect(run(['--by', 'project']).stats.kind).toBe('memo-hit');
    expect(run(['--by', 'model']).stats.kind).toBe('memo-hit');

    // Same size, new mtime: re-read (not trusted as unchanged), same numbers.
    const t = new Date('2026-06-20T00:00:00Z');
    utimesSync(a.file, t, t);
    const touched = run(['--by', 'model']);
    expect(touched.stats).toMatchObject({ kind: 'ingest', rewritten: 1 });
    expect(touched.out).toEqual(full.out);

    // An append: the memo must not answer with the old totals (the ingest reads just the appended response).
    responses(a, 4, 1, 30);
    const grown = run(['--by', 'model']);
    expect(grown.stats).toMatchObject({ kind: 'ingest', appended: 1, rewritten: 0 });
    expect(tokenFields(grown.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(run(['--by', 'model']).out).toEqual(grown.out);

    // A new source.
    const b = claude.session({ cwd: '/w/b' });
    responses(b, 5, 1);
    const added = run(['--by', 'model']);
    expect(added.stats.kind).toBe('ingest');
    expect(tokenFields(added.out.totals)).toEqual(tokenFields(claude.ledger.totals()));

    // --rebuild never answers from the memo.
    expect(run(['--by', 'model', '--rebuild']).stats.kind).toBe('ingest');
  });

  it('keys the memo on the report zone and on inputs other than the sources', () => {
    const home = tempDir('txu-memo-');
    const claude = new ClaudeHome(join(home, '.claude'));
    responses(claude.session({ cwd: '/w/a' }), 3, 2);
    const run = makeRunner(home);
    run([]);
    expect(run([]).stats.kind).toBe('memo-hit');
    expect(run(['--tz', 'Asia/Tokyo']).stats.kind).toBe('ingest');
    // A price override file changes computed costs: the memo must see it.
    const prices = join(home, 'prices.json');
    appendFileSync(
      prices,
      JSON.stringify({ 'claude-opus-5-5': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } }),
    );
    const priced = run(['--prices', prices]);
    expect(priced.stats.kind).toBe('ingest');
    expect(run(['--prices', prices]).stats.kind).toBe('memo-hit');
    appendFileSync(prices, ' ');
    expect(run(['--prices', prices]).stats.kind).toBe('ingest');
  });
});
