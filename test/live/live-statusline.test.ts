// `tx-usage statusline` through the real bin, on the hand-computed blocks
// fixture (fixtures/live/blocks.ts; figures worked out in
// test/live-blocks.test.ts). Exact lines for valid, empty, garbage and
// partial inputs; the invariant that its figures equal the store's after the
// next ingest while a transcript is being appended to; a busy store; the
// Claude Code limits it keeps; the configured segments and colours.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKS_MODEL, BLOCKS_NOW, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { LOCK_WAIT_MS } from '../../src/store/lock.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const SESSION = '0b10c4aa-0000-4000-8000-000000000001';
const LIMITS = {
  five_hour: { used_percentage: 42.5, resets_at: Date.parse('2026-03-29T14:00:00Z') / 1000 },
  seven_day: { used_percentage: 85, resets_at: Date.parse('2026-04-01T00:00:00Z') / 1000 },
};

function input(fx: BlocksHome, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: SESSION,
    transcript_path: fx.session.file,
    cwd: '/work/blocks-app',
    model: { id: 'claude-opus-4-6', display_name: 'Opus' },
    workspace: { current_dir: '/work/blocks-app', project_dir: '/work/blocks-app' },
    version: '2.1.310',
    cost: { total_cost_usd: 0.05, total_duration_ms: 1000 },
    context_window: { context_window_size: 200000, used_percentage: 12.4 },
    rate_limits: LIMITS,
    ...extra,
  });
}

/** Waits until no refresh holds the lock (a status line may have started one). */
async function refreshesDone(home: string): Promise<void> {
  const lock = join(home, '.cache', 'tx-usage', 'live', 'refresh.lock');
  for (let i = 0; i < 600 && existsSync(lock); i++) await new Promise((r) => setTimeout(r, 100));
}

describe('statusline', () => {
  let dir: string;
  let fx: BlocksHome;
  let env: NodeJS.ProcessEnv;
  const line = (stdin: string, args: string[] = [], e = env) => {
    const r = runCli(['statusline', ...args], e, stdin);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    return r.stdout;
  };
  const refresh = (e = env) => {
    const r = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], e);
    expect(r.status, r.stderr).toBe(0);
  };

  beforeAll(() => {
    dir = tempDir('txu-statusline-');
    fx = buildBlocksHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW });
  });
  afterAll(async () => {
    await refreshesDone(fx.home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('before any snapshot: what stdin says, marked as updating, and a refresh starts in the background', async () => {
    expect(line(input(fx))).toBe('Opus | 5h 43% 7d 85% (updating)\n');
    await refreshesDone(fx.home);
    expect(existsSync(join(fx.home, '.cache', 'tx-usage', 'live', 'snapshot.json'))).toBe(true);
  });

  it("a valid input: model, session cost beside Claude's estimate, today, the active block and time left, burn rate, limits", () => {
    refresh();
    // session: every response ($0.0672 priced, r8 unpriced); today (UTC 03-29): r3-r9 $0.0559; block 3: $0.027, 3h 10m left;
    // burn over the last 30 min $0.018/h; limits 42.5% -> 43%, 85%.
    expect(line(input(fx))).toBe(
      'Opus | ≥$0.07 session (Claude $0.05) | ≥$0.06 today | ≥$0.03 block, 3h 10m left | ≥$0.01800/h | 5h 43% 7d 85%\n',
    );
  });

  it('--format json: the figures behind the line', () => {
    const j = JSON.parse(line(input(fx), ['--format', 'json']));
    expect(Object.keys(j)).toEqual([
      'line',
      'model',
      'session',
      'today',
      'block',
      'rate_limits',
      'context_used_percent',
      'budgets',
      'stale',
      'stale_reason',
      'snapshot_age_seconds',
      'stale_note',
    ]);
    expect(j.session).toMatchObject({
      id: SESSION,
      requests: 10,
      total_tokens: 30990,
      cost_usd: 0.0672,
      unpriced_requests: 1,
      claude_estimate_usd: 0.05,
    });
    expect(j.today).toMatchObject({
      day: '2026-03-29',
      harnesses: ['claude-code'],
      requests: 7,
      total_tokens: 17580,
      cost_usd: 0.0559,
    });
    expect(j.block).toMatchObject({
      start: '2026-03-29T09:00:00+00:00',
      end: '2026-03-29T14:00:00+00:00',
      cost_usd: 0.027,
      remaining_minutes: 190,
      cost_usd_per_hour_30m: 0.018,
      projected_cost_usd: 0.084,
    });
    expect(j.rate_limits).toEqual({
      five_hour: { used_percent: 42.5, resets_at: Date.parse('2026-03-29T14:00:00Z') },
      seven_day: { used_percent: 85, resets_at: Date.parse('2026-04-01T00:00:00Z') },
    });
    expect([j.context_used_percent, j.stale, j.stale_reason, j.snapshot_age_seconds, j.stale_note]).toEqual([
      12.4,
      false,
      null,
      0,
      null,
    ]);
  });

  it('empty, garbage and non-object input: a short line, exit 0, nothing on stderr', () => {
    expect(line('')).toBe('tx-usage: no status input\n');
    expect(line('   \n')).toBe('tx-usage: no status input\n');
    expect(line('{"session_id": "x", BROKEN')).toBe('tx-usage: unreadable status input\n');
    expect(line('[1,2,3]')).toBe('tx-usage: unreadable status input\n');
    expect(JSON.parse(line('', ['--format', 'json']))).toEqual({ line: 'tx-usage: no status input', problem: 'empty' });
  });

  it('missing fields: the segments it can show', () => {
    // No session, no model, no cost, no limits: today and the block only.
    expect(line('{}')).toBe('≥$0.06 today | ≥$0.03 block, 3h 10m left | ≥$0.01800/h\n');
    // Fields of the wrong type are as missing.
    expect(
      line(JSON.stringify({ session_id: 42, model: 'Opus', rate_limits: { five_hour: { used_percentage: 'lots' } } })),
    ).toBe('≥$0.06 today | ≥$0.03 block, 3h 10m left | ≥$0.01800/h\n');
    // A session the store has never seen (a new one): $0.00 so far.
    expect(line(JSON.stringify({ session_id: 'new-session', model: { display_name: 'Sonnet' } }))).toBe(
      'Sonnet | $0.00 session | ≥$0.06 today | ≥$0.03 block, 3h 10m left | ≥$0.01800/h\n',
    );
  });

  it("keeps Claude Code's limit readings in its own cache dir, and `limits` shows them", () => {
    line(input(fx));
    const cached = JSON.parse(
      readFileSync(join(fx.home, '.cache', 'tx-usage', 'live', 'claude-rate-limits.json'), 'utf8'),
    );
    expect(cached.readings.at(-1)).toMatchObject({
      five_hour: { used_percent: 42.5, window_minutes: 300 },
      seven_day: { used_percent: 85, window_minutes: 10080 },
    });
    const r = runCli(
      ['limits', '--harness', 'claude-code', '--tz', 'UTC', '--format', 'json', '--prices', fx.pricesFile],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.limits.map((l: any) => [l.harness, l.window, l.used_percent, l.resets_at, l.reset])).toEqual([
      ['claude-code', '5h', 42.5, '2026-03-29T14:00:00+00:00', false],
      ['claude-code', 'weekly', 85, '2026-04-01T00:00:00+00:00', false],
    ]);
    // The 5-hour window 09:00-14:00Z holds r7-r9.
    expect(j.limits[0]).toMatchObject({ requests: 3, total_tokens: 9300, cost_usd: 0.027 });
    // Nothing written into Claude Code's folders.
    expect(existsSync(join(fx.home, '.claude', 'tx-usage'))).toBe(false);
  });

  it('configured segments and colours', () => {
    const cfgDir = join(fx.home, '.config', 'tx-usage');
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(
      join(cfgDir, 'config.json'),
      JSON.stringify({
        statusline: {
          segments: ['block', 'model', 'limits', 'context'],
          colors: { model: 'bold', block: 'none', over: 'red', warn: 'yellow' },
        },
      }),
    );
    try {
      const e = { ...env };
      delete e.NO_COLOR;
      expect(line(input(fx), [], e)).toBe(
        '≥$0.03 block, 3h 10m left\x1b[90m | \x1b[0m\x1b[1mOpus\x1b[0m\x1b[90m | \x1b[0m5h 43% \x1b[33m7d 85%\x1b[0m\x1b[90m | \x1b[0mctx 12%\n',
      );
      expect(line(input(fx))).toBe('≥$0.03 block, 3h 10m left | Opus | 5h 43% 7d 85% | ctx 12%\n'); // NO_COLOR
      expect(line(input(fx), ['--no-color'], e)).toBe('≥$0.03 block, 3h 10m left | Opus | 5h 43% 7d 85% | ctx 12%\n');
      // A bad config still prints a line, with the default segments.
      writeFileSync(join(cfgDir, 'config.json'), '{ nope');
      expect(line(input(fx))).toBe(
        'Opus | ≥$0.07 session (Claude $0.05) | ≥$0.06 today | ≥$0.03 block, 3h 10m left | ≥$0.01800/h | 5h 43% 7d 85%\n',
      );
    } finally {
      rmSync(join(cfgDir, 'config.json'), { force: true });
    }
  });
});

describe("statusline numbers equal the store's (the snapshot + own appends invariant)", () => {
  let dir: string;
  let fx: BlocksHome;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = tempDir('txu-statusline-inv-');
    fx = buildBlocksHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: '2026-03-29T10:58:00Z' });
  });
  afterAll(async () => {
    await refreshesDone(fx.home);
    rmSync(dir, { recursive: true, force: true });
  });

  const statusJson = () => {
    const r = runCli(['statusline', '--format', 'json'], env, input(fx));
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };
  /** The same figures from the store, after an ingest of everything appended. */
  const fromStore = () => {
    const run = (args: string[]) => {
      const r = runCli(['report', ...args, '--prices', fx.pricesFile, '--tz', 'UTC', '--format', 'json'], env);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const session = run(['--since', '2026-03-01', '--until', '2026-03-29', '--by', 'session']).rows.find(
      (r: any) => r.session === SESSION,
    );
    const today = run(['--since', '2026-03-29', '--until', '2026-03-29', '--harness', 'claude-code']).totals;
    const blocks = run(['blocks', '--since', '2026-03-29', '--until', '2026-03-29']).blocks;
    return { session, today, block: blocks.find((b: any) => b.is_active) };
  };
  // The summary's fields (its unpriced_* come with issue 25's branch); blocks carry unpriced_* already.
  const METRICS = [
    'requests',
    'input_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'output_tokens',
    'total_tokens',
    'cost_usd',
    'computed_cost_usd',
  ];
  const pick = (o: Record<string, unknown>, more: string[] = []) =>
    Object.fromEntries([...METRICS, ...more].map((k) => [k, o[k]]));

  it("appends read from the resume point (new responses, split lines, a stored response grown) give the store's figures, without opening the store", async () => {
    const r0 = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], env);
    expect(r0.status, r0.stderr).toBe(0);
    // New responses (one written as three split lines), and r9's message again with more usage: a line of a
    // response the snapshot holds, which the store resolves by its rule (the larger usage wins).
    const s = fx.session;
    const r9 = [...s.written.keys()].at(-1)!;
    s.user('2026-03-29T10:52:00.000Z');
    s.response({
      ts: '2026-03-29T10:52:00.000Z',
      usage: { input: 700, output: 300, cacheRead: 5000 },
      splits: 3,
      model: BLOCKS_MODEL,
    });
    s.response({ ts: '2026-03-29T10:55:00.000Z', usage: { input: 50, output: 5 }, model: BLOCKS_MODEL });
    s.response({ ts: '2026-03-29T10:45:00.000Z', usage: { input: 2000, output: 800 }, msgId: r9, model: BLOCKS_MODEL });
    // Hold the store's lock meanwhile: the status line must not need it.
    const holder = holdStore(join(fx.home, '.cache', 'tx-usage', 'usage.duckdb'));
    let live;
    try {
      await holder.ready;
      const t0 = Date.now();
      live = statusJson();
      // Never waits for the store: a run that did would take the whole lock
      // wait (a minute); half of it separates the two on any machine's load.
      expect(Date.now() - t0).toBeLessThan(LOCK_WAIT_MS / 2);
      expect([live.stale, live.stale_reason]).toEqual([false, null]);
    } finally {
      holder.child.kill();
      await holder.exited;
    }
    const store = fromStore();
    expect(pick(live.session)).toEqual(pick(store.session));
    expect(pick(live.today)).toEqual(pick(store.today));
    expect(pick(live.block, ['unpriced_requests', 'unpriced_tokens', 'start', 'end', 'projected_cost_usd'])).toEqual(
      pick(store.block, ['unpriced_requests', 'unpriced_tokens', 'start', 'end', 'projected_cost_usd']),
    );
    // And by hand: 2 new requests (700+300+5000 tokens, $0.0054; 55 tokens, $0.00015) and r9 grown by 300 output
    // tokens ($0.009 -> $0.012).
    expect(live.session.requests).toBe(12);
    expect(live.session.total_tokens).toBe(30990 + 6000 + 55 + 300);
    expect(live.session.cost_usd).toBe(0.07575);
  });

  it('a transcript rewritten since the snapshot cannot be proven: the last good line, marked stale', async () => {
    const good = runCli(['statusline'], env, input(fx)).stdout;
    const r0 = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], env);
    expect(r0.status, r0.stderr).toBe(0);
    const lastGood = runCli(['statusline'], env, input(fx)).stdout.trimEnd();
    const text = readFileSync(fx.session.file, 'utf8');
    truncateSync(fx.session.file, 0);
    appendFileSync(fx.session.file, text.slice(0, text.length / 2) + '\n' + text);
    const r = runCli(['statusline'], env, input(fx));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${lastGood} (stale 0s)\n`);
    expect(good.length).toBeGreaterThan(0);
    await refreshesDone(fx.home);
  });
});

describe('statusline when something unforeseen fails', () => {
  it('still prints a line: the model from the input and "(tx-usage error)", the error in the JSON; exit 0, nothing on stderr', () => {
    const dir = tempDir('txu-statusline-error-');
    try {
      const home = join(dir, 'home');
      const live = join(home, '.cache', 'tx-usage', 'live');
      mkdirSync(live, { recursive: true });
      // A snapshot of this store's that parses, but whose session totals are not an object (as no refresh writes): making the figures throws.
      writeFileSync(
        join(live, 'snapshot.json'),
        JSON.stringify({
          v: 1,
          db: join(home, '.cache', 'tx-usage', 'usage.duckdb'),
          made_at: Date.parse(BLOCKS_NOW),
          from: 0,
          block_from: {},
          strings: [],
          rows: [],
          prices: '{}',
          sessions: null,
          sources: {},
          limits: [],
          month: { start: 0, before: [] },
        }),
      );
      const env = cleanEnv(home, { TX_USAGE_NOW: BLOCKS_NOW });
      const stdin = JSON.stringify({ session_id: 's', model: { display_name: 'Opus' } });
      const r = runCli(['statusline'], env, stdin);
      expect([r.status, r.stdout, r.stderr]).toEqual([0, 'Opus (tx-usage error)\n', '']);
      const j = JSON.parse(runCli(['statusline', '--format', 'json'], env, stdin).stdout);
      expect(j).toMatchObject({ line: 'Opus (tx-usage error)', stale: true, stale_note: 'tx-usage error' });
      expect(j.stale_reason).toMatch(/^tx-usage failed: ./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('statusline on a busy store', () => {
  it('prints from the snapshot, marked stale once a refresh has waited for the store longer than stale_seconds; never blocks', async () => {
    const dir = tempDir('txu-statusline-busy-');
    const fx = buildBlocksHome(join(dir, 'home'));
    const at = Date.parse(BLOCKS_NOW);
    const env = cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW });
    const r0 = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], env);
    expect(r0.status, r0.stderr).toBe(0);
    const holder = holdStore(join(fx.home, '.cache', 'tx-usage', 'usage.duckdb'));
    try {
      await holder.ready;
      // Two minutes later a refresh (this holder, alive) has been pending for a minute.
      const liveDir = join(fx.home, '.cache', 'tx-usage', 'live');
      writeFileSync(join(liveDir, 'refresh.lock'), JSON.stringify({ pid: holder.child.pid, at: at + 60_000 }));
      const later = { ...env, TX_USAGE_NOW: new Date(at + 120_000).toISOString() };
      const t0 = Date.now();
      const r = runCli(['statusline'], later, input(fx));
      expect(Date.now() - t0).toBeLessThan(LOCK_WAIT_MS / 2); // did not wait for the store's lock
      expect([r.status, r.stderr]).toEqual([0, '']);
      // 2 min later the block has 3h 08m left; the figures are the snapshot's.
      expect(r.stdout).toBe(
        'Opus | ≥$0.07 session (Claude $0.05) | ≥$0.06 today | ≥$0.03 block, 3h 08m left | ≥$0.01800/h | 5h 43% 7d 85% (stale 2m)\n',
      );
      const j = JSON.parse(runCli(['statusline', '--format', 'json'], later, input(fx)).stdout);
      expect([j.stale, j.stale_reason, j.snapshot_age_seconds, j.stale_note]).toEqual([
        true,
        'the store is busy: a refresh has been waiting for it',
        120,
        null,
      ]);
    } finally {
      holder.child.kill();
      await holder.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Another process holding the store open (DuckDB's file lock), as a long ingest would. */
function holdStore(path: string): { child: ChildProcess; ready: Promise<void>; exited: Promise<void> } {
  const root = resolve(__dirname, '../..');
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('@duckdb/node-api').DuckDBInstance.create(${JSON.stringify(path)}).then(() => { console.log('locked'); setInterval(() => {}, 1000); })`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((res, rej) => {
    child.stdout!.on('data', (d) => String(d).includes('locked') && res());
    child.on('exit', (c) => rej(new Error(`store holder exited ${c}`)));
  });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  return { child, ready, exited };
}
