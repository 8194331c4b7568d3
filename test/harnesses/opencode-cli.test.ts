// OpenCode end to end: the real compiled CLI (`tx-usage report --harness
// opencode --format json`) over a generated home with a main database (2.x +
// stale 1.x), a channel database and a 1.x-only database, writers left open
// so committed rows sit in the -wal. Totals must equal the builder's ledger.
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Expected } from '../../fixtures/opencode/builder.js';
import {
  buildChannelDb,
  buildMainDb,
  buildOpencodeHome,
  expectations,
  GEMINI,
  type OpencodeHome,
} from '../../fixtures/opencode/scenarios.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2025-12-01', '--until', '2026-02-28'];
const COUNTS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
] as const;

function expectMetrics(row: any, e: Expected, what: string) {
  expect(Object.fromEntries(COUNTS.map((k) => [k, row[k]])), what).toEqual(
    Object.fromEntries(COUNTS.map((k) => [k, e[k]])),
  );
  // Every billed OpenCode event but usage-less compactions carries a recorded cost;
  // the store keeps 1e-10 USD, so sums agree to far below a cent.
  expect(row.recorded_cost_usd, what).toBeCloseTo(e.cost_usd, 8);
  expect(row.cost_usd, what).toBeCloseTo(e.cost_usd, 8);
}

function expectRows(j: any, key: string, expected: Map<string, Expected>) {
  expect(new Set(j.rows.map((r: any) => String(r[key])))).toEqual(new Set(expected.keys()));
  for (const r of j.rows) expectMetrics(r, expected.get(String(r[key]))!, `${key}=${r[key]}`);
}

function report(env: NodeJS.ProcessEnv, by: string, extra: string[] = []) {
  return reportJson([...RANGE, '--harness', 'opencode', '--by', by, ...extra], env);
}

/** Bytes and mtime of every file in a directory except -shm wal-indexes. */
function dirState(dir: string) {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      if (name.endsWith('-shm')) return [name];
      const p = join(dir, name);
      return [name, createHash('sha256').update(readFileSync(p)).digest('hex'), statSync(p).mtimeMs];
    });
}

describe('opencode end to end (~/.local/share/opencode)', () => {
  let fx: OpencodeHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildOpencodeHome(tempDir('txu-opencode-e2e-'));
    env = cleanEnv(fx.home);
  });
  afterAll(() => fx.close());

  it('matches the ledger exactly by model, without touching the databases', () => {
    const before = dirState(fx.dataDir);
    const j = report(env, 'model');
    expect(dirState(fx.dataDir)).toEqual(before);
    expectRows(j, 'model', fx.byModel);
    expectMetrics(j.totals, fx.expected, 'totals');
    expect(j.warnings).toEqual([]);
    expect(j.group_by).toEqual(['model']);
    // fixture sanity: every database contributed, the residuals too
    expect(fx.expected.requests).toBe(fx.dbs.reduce((a, d) => a + d.expected().requests, 0));
    expect(fx.byModel.get(GEMINI.id)!.requests).toBeGreaterThan(0);
  });

  it('matches by session, project, day and harness', () => {
    expectRows(report(env, 'session'), 'session', fx.bySession);
    expectRows(report(env, 'project'), 'project', fx.byProject);
    expectRows(report(env, 'day'), 'day', fx.byDay);
    const h = report(env, 'harness');
    expect(h.rows.map((r: any) => r.harness)).toEqual(['opencode']);
    expectMetrics(h.rows[0], fx.expected, 'harness');
  });

  it('stores the provider of every response (data.model.providerID; the session model for residuals)', () => {
    const r = runCli(
      [
        'sql',
        "SELECT provider, count(*) FILTER (WHERE requests = 1) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens FROM billed_events WHERE harness = 'opencode' GROUP BY provider ORDER BY provider",
        '--format',
        'json',
      ],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout);
    const rows = (Array.isArray(got) ? got : got.rows).map((x: any) => [
      x.provider,
      Number(x.requests),
      Number(x.input_tokens),
      Number(x.output_tokens),
    ]);
    const want = [...fx.byProvider]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, e]) => [p, e.requests, e.input_tokens, e.output_tokens]);
    expect(rows).toEqual(want);
  });

  it('a range keeps only the databases whose activity falls inside it', () => {
    const day = [...fx.byDay.keys()].sort()[1]!;
    const j = reportJson(['--since', day, '--until', day, '--harness', 'opencode', '--by', 'harness'], env);
    expectMetrics(j.totals, fx.byDay.get(day)!, day);
  });
});

describe('opencode end to end: changes between runs', () => {
  it('re-reads a database when only its -wal changed: new steps, a revert and a title are reflected exactly', () => {
    const fx = buildOpencodeHome(tempDir('txu-opencode-inc-'));
    try {
      const env = cleanEnv(fx.home);
      expectMetrics(report(env, 'harness').totals, fx.expected, 'first run');
      const main = fx.dbs[0]!;
      const mainSize = statSync(main.path).size;
      const zeta = main.sessions.find((s) => s.directory === '/home/user/zeta')!;
      zeta.user();
      zeta.step({ input: 4321, output: 123, reasoning: 7, cacheRead: 99, cost: 0.0432 });
      const beta = main.sessions.find((s) => s.directory === '/home/user/beta')!;
      const last = [...beta.rows.keys()].pop()!;
      beta.revert(last);
      main.sessions[0]!.title({ input: 11, output: 1, cost: 0.00011 });
      expect(statSync(main.path).size).toBe(mainSize); // only the -wal grew
      const after = expectations(fx.dbs);
      const j = report(env, 'session');
      expectRows(j, 'session', after.bySession);
      expectMetrics(j.totals, after.expected, 'second run');
      expect(after.expected.requests).toBe(fx.expected.requests); // +1 step, -1 reverted
    } finally {
      fx.close();
    }
  });
});

describe('opencode end to end: the same sessions in two databases', () => {
  it('an imported/frozen copy (opencode-next.db) adds nothing: rows dedupe by id, residuals by session', () => {
    const home = tempDir('txu-opencode-dup-');
    const data = join(home, '.local/share/opencode');
    mkdirSync(data, { recursive: true });
    const live = buildChannelDb(join(data, 'opencode.db'));
    try {
      live.checkpoint(); // everything in the main file: a plain copy is a consistent database
      copyFileSync(live.path, join(data, 'opencode-next.db'));
      // The live database goes on after the copy was taken.
      const s = live.sessions[0]!;
      s.step({ input: 600, output: 60, cost: 0.006 });
      s.title({ input: 40, output: 4, cost: 0.00004 });
      const j = reportJson([...RANGE, '--harness', 'opencode', '--by', 'session'], cleanEnv(home));
      expectRows(j, 'session', live.expectedBySession());
      expectMetrics(j.totals, live.expected(), 'totals');
    } finally {
      live.close();
    }
  });
});

describe('opencode end to end: damaged and locked databases', () => {
  it('reports every readable database and warns naming the corrupt, the not-a-database and the locked one', () => {
    const home = tempDir('txu-opencode-bad-');
    const data = join(home, '.local/share/opencode');
    mkdirSync(data, { recursive: true });
    const good = buildMainDb(join(data, 'opencode.db'));
    writeFileSync(join(data, 'opencode-broken.db'), Buffer.alloc(8192, 0x5a));
    const corruptPath = join(data, 'opencode-corrupt.db');
    buildChannelDb(corruptPath).close();
    const fd = openSync(corruptPath, 'r+');
    writeSync(fd, Buffer.alloc(4096 - 100, 0xff), 0, 4096 - 100, 100);
    closeSync(fd);
    const lockedPath = join(data, 'opencode-locked.db');
    const locked = buildChannelDb(lockedPath);
    locked.writer.pragma('locking_mode = EXCLUSIVE');
    locked.sessions[0]!.step({ input: 77, output: 7, cost: 0.0077 });
    try {
      const r = runCli(
        ['report', ...RANGE, '--harness', 'opencode', '--by', 'harness', '--format', 'json'],
        cleanEnv(home),
      );
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      const w: string[] = j.warnings;
      expect(w.some((m) => m.includes(join(data, 'opencode-broken.db')) && m.includes('not a database'))).toBe(true);
      expect(w.some((m) => m.includes(corruptPath) && m.includes('malformed'))).toBe(true);
      expect(w.some((m) => m.includes(lockedPath) && m.includes('locked'))).toBe(true);
      expect(w.join('\n')).not.toContain('SECRET');
      // The locked database is read from a private snapshot copy: its spend is still reported.
      expectMetrics(j.totals, expectations([good, locked]).expected, 'totals');
    } finally {
      locked.close();
      good.close();
    }
  });
});

describe('opencode end to end: where databases are found', () => {
  it('XDG_DATA_HOME, OPENCODE_DB and --root opencode=PATH', () => {
    const home = tempDir('txu-opencode-env-');
    const xdg = join(home, 'xdg');
    mkdirSync(join(xdg, 'opencode'), { recursive: true });
    const a = buildChannelDb(join(xdg, 'opencode', 'opencode.db'));
    mkdirSync(join(home, 'elsewhere'));
    const b = buildMainDb(join(home, 'elsewhere', 'work.db'));
    try {
      const onlyXdg = reportJson([...RANGE, '--harness', 'opencode'], cleanEnv(home, { XDG_DATA_HOME: xdg }));
      expectMetrics(onlyXdg.totals, a.expected(), 'XDG_DATA_HOME');
      const both = reportJson(
        [...RANGE, '--harness', 'opencode'],
        cleanEnv(home, { XDG_DATA_HOME: xdg, OPENCODE_DB: join(home, 'elsewhere', 'work.db') }),
      );
      expectMetrics(both.totals, expectations([a, b]).expected, 'XDG_DATA_HOME + OPENCODE_DB');
      // A store of its own: the store keeps the sources it read before as history (retained), whatever the roots now.
      const root = reportJson(
        [...RANGE, '--harness', 'opencode', '--root', `opencode=${join(home, 'elsewhere', 'work.db')}`],
        cleanEnv(home, { XDG_DATA_HOME: xdg, XDG_CACHE_HOME: join(home, 'cache-root') }),
      );
      expectMetrics(root.totals, b.expected(), '--root');
    } finally {
      a.close();
      b.close();
    }
  });
});
