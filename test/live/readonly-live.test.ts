// The live views when tx-usage cannot write (a cache folder left root's by a
// first run under sudo, a store shared read-only): the status line still
// prints a line, from the input at least, and says why in a few words
// (`cache not writable`, `store read-only`) rather than nothing or a silent
// `(stale 3m)`; `watch --once` shows what a read-only store holds, with its
// warning, exit 0, and with no store that can be made, exits 1 saying it
// cannot be created. On the hand-computed blocks fixture
// (fixtures/live/blocks.ts; its lines are those of test/live-statusline.test.ts).
// File modes bind no root: as root (CI) the CLI runs as uid 65534
// (test/helpers/unprivileged.ts); as any other user, as itself.
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKS_NOW, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { openUp, runCliAsNobody } from '../helpers/unprivileged.js';

const asRoot = process.getuid?.() === 0;
const SESSION = '0b10c4aa-0000-4000-8000-000000000001';
const AT = Date.parse(BLOCKS_NOW);
const LIMITS = {
  five_hour: { used_percentage: 42.5, resets_at: Date.parse('2026-03-29T14:00:00Z') / 1000 },
  seven_day: { used_percentage: 85, resets_at: Date.parse('2026-04-01T00:00:00Z') / 1000 },
};
/** The line of the fixture's session with a fresh snapshot (test/live-statusline.test.ts), without its time left. */
const FIGURES = 'Opus | ≥$0.07 session (Claude $0.05) | ≥$0.06 today | ≥$0.03 block';
const TAIL = '≥$0.01800/h | 5h 43% 7d 85%';

/** Every folder under `dir` (itself included) 0555 and every file 0444: nobody but root may write there. */
function readOnly(dir: string, yes = true): void {
  chmodSync(dir, yes ? 0o555 : 0o755);
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) readOnly(p, yes);
    else chmodSync(p, yes ? 0o444 : 0o644);
  }
}

describe.skipIf(process.platform === 'win32')('live views when tx-usage cannot write', () => {
  let dir: string;
  let fx: BlocksHome;
  let input: string;

  beforeAll(() => {
    dir = tempDir('txu-readonly-live-');
    fx = buildBlocksHome(join(dir, 'home'));
    input = JSON.stringify({
      session_id: SESSION,
      transcript_path: fx.session.file,
      model: { id: 'claude-opus-4-6', display_name: 'Opus' },
      cost: { total_cost_usd: 0.05 },
      rate_limits: LIMITS,
    });
    openUp(dir);
  });
  afterAll(() => {
    for (const e of readdirSync(dir)) if (e.startsWith('cache-')) readOnly(join(dir, e), false);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The environment with `cache` as XDG_CACHE_HOME, `minutes` after the fixture's now. */
  const envOf = (cache: string, minutes = 0) =>
    cleanEnv(fx.home, { XDG_CACHE_HOME: cache, TX_USAGE_NOW: new Date(AT + minutes * 60_000).toISOString() });
  /** As the user the modes bind (uid 65534 under root). */
  const run = (args: string[], env: NodeJS.ProcessEnv, stdin?: string) => {
    const r = asRoot ? runCliAsNobody(args, env, fx.home, stdin) : runCli(args, env, stdin);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const line = (env: NodeJS.ProcessEnv, args: string[] = []) => {
    const r = run(['statusline', ...args], env, input);
    expect([r.status, r.stderr]).toEqual([0, '']);
    return r.stdout;
  };
  /** A cache folder made (and filled) by this process, as the first run under sudo would. */
  const cacheDir = (name: string) => {
    const c = join(dir, `cache-${name}`);
    mkdirSync(c);
    chmodSync(c, 0o755);
    return c;
  };
  const refreshAsOwner = (cache: string) => {
    const r = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], envOf(cache));
    expect(r.status, r.stderr).toBe(0);
  };

  it('a cache folder it cannot write and no snapshot: the model and limits from the input, "(cache not writable)"; never an empty line', () => {
    const cache = cacheDir('ro');
    chmodSync(cache, 0o555);
    const env = envOf(cache);
    expect(line(env)).toBe('Opus | 5h 43% 7d 85% (cache not writable)\n');
    const j = JSON.parse(line(env, ['--format', 'json']));
    expect(j).toMatchObject({
      line: 'Opus | 5h 43% 7d 85% (cache not writable)',
      model: { display_name: 'Opus' },
      stale: true,
      stale_note: 'cache not writable',
      snapshot_age_seconds: null,
    });
    expect(j.stale_reason).toBe(
      `the cache folder cannot be written (${cache}: permission denied), so the live snapshot cannot be refreshed: give it write permission, or set XDG_CACHE_HOME to one tx-usage can write`,
    );
    expect(readdirSync(cache)).toEqual([]); // no refresh was started
    // The refresh itself, run by hand, says so: exit 1.
    const r = run(['statusline', '--refresh'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `tx-usage: the live snapshot cannot be written (${cache}: permission denied): give tx-usage's cache folder write permission, or set XDG_CACHE_HOME to one it can write\n`,
    );
    // watch has no store to show and none can be made there: exit 1, and it says it cannot be created (not "read-only").
    const w = run(['watch', '--once', '--tz', 'UTC'], env);
    expect([w.status, w.stdout]).toEqual([1, '']);
    const db = join(cache, 'tx-usage', 'usage.duckdb');
    expect(w.stderr).toBe(
      `tx-usage: the store ${db} cannot be created (${cache}: permission denied): there is no store yet, and this user cannot make one there; give that folder write permission, or use --db for a store elsewhere\n`,
    );
  });

  it('a snapshot made before the cache folder turned read-only: its figures, and once it is behind, "(stale 3m, cache not writable)"', () => {
    const cache = cacheDir('old');
    refreshAsOwner(cache);
    readOnly(cache);
    // Fresh: the snapshot's line, nothing to say.
    expect(line(envOf(cache))).toBe(`${FIGURES}, 3h 10m left | ${TAIL}\n`);
    // Three minutes on, no refresh can be started: said at once, not after stale_seconds, and not silently.
    expect(line(envOf(cache, 3))).toBe(`${FIGURES}, 3h 07m left | ${TAIL} (stale 3m, cache not writable)\n`);
    const j = JSON.parse(line(envOf(cache, 3), ['--format', 'json']));
    expect([j.stale, j.stale_note, j.snapshot_age_seconds]).toEqual([true, 'cache not writable', 180]);
    expect(j.stale_reason).toMatch(/^the cache folder cannot be written \(.*\/live: permission denied\)/);
  });

  it('a store it cannot write, in a cache folder it can: the failed refresh is said, "(store read-only)"; watch shows what the store holds', () => {
    const cache = cacheDir('store');
    const store = join(cache, 'tx-usage');
    const db = join(store, 'usage.duckdb');
    const r0 = runCli(['ingest', '--prices', fx.pricesFile], envOf(cache));
    expect(r0.status, r0.stderr).toBe(0);
    const lockStore = () => {
      for (const f of readdirSync(store)) if (f.startsWith('usage.duckdb')) chmodSync(join(store, f), 0o444);
      chmodSync(store, 0o777);
    };

    // watch --once: the screen of what the store holds (as a run that could write it showed it), its warning in the footer and on stderr, exit 0.
    const writableWatch = runCli(['watch', '--once', '--tz', 'UTC', '--prices', fx.pricesFile], envOf(cache));
    expect(writableWatch.status, writableWatch.stderr).toBe(0);
    rmSync(join(store, 'live'), { recursive: true, force: true }); // the snapshot it wrote: none, as after an `ingest`
    lockStore();
    const w = run(['watch', '--once', '--tz', 'UTC', '--prices', fx.pricesFile], envOf(cache));
    expect(w.status, w.stderr).toBe(0);
    const body = (s: string) => s.trimEnd().split('\n').slice(0, -1);
    expect(body(w.stdout)).toEqual(body(writableWatch.stdout));
    expect(body(w.stdout).join('\n')).toContain('Active claude-code block');
    expect(
      w.stdout
        .trimEnd()
        .split('\n')
        .at(-1)!
        .startsWith(`the store ${db.slice(0, 40)}`),
    ).toBe(true); // the footer, cut to 80 columns
    expect(w.stderr).toBe(
      `warning: the store ${db} is read-only (${db}: permission denied): answered from what it holds, which no source has changed since it was last written (give it write permission, or use --db for a store elsewhere)\n`,
    );
    // No snapshot written of a store it could not bring up to date (status lines would take it for current).
    expect(existsSync(join(store, 'live'))).toBe(false);

    // No snapshot yet: the refresh fails (the store is read-only), and the line says so instead of "(updating)" for ever.
    expect(run(['statusline', '--refresh', '--prices', fx.pricesFile], envOf(cache)).status).toBe(0); // a failure it writes down for status lines
    expect(line(envOf(cache))).toBe('Opus | 5h 43% 7d 85% (store read-only)\n');
    const j = JSON.parse(line(envOf(cache), ['--format', 'json']));
    expect(j.stale_note).toBe('store read-only');
    expect(j.stale_reason).toMatch(
      new RegExp(`^no live snapshot yet: refresh failed: the store ${db} is read-only \\(`),
    );

    // A snapshot from before: its figures, marked stale with the reason once it is older than stale_seconds.
    for (const f of readdirSync(store)) if (f.startsWith('usage.duckdb')) chmodSync(join(store, f), 0o644);
    refreshAsOwner(cache);
    lockStore();
    openUp(join(store, 'live'));
    chmodSync(join(store, 'live'), 0o777);
    expect(run(['statusline', '--refresh', '--prices', fx.pricesFile], envOf(cache, 3)).status).toBe(0);
    expect(line(envOf(cache, 3))).toBe(`${FIGURES}, 3h 07m left | ${TAIL} (stale 3m, store read-only)\n`);
  });
});
