// Issue 35: the store's side of broken input. A transcript that could not be
// read once (permission denied) is read again on the next run, its responses
// counted and its warning gone; one the store has read before keeps its rows
// while it is unreadable. A store this user cannot write is said to be
// read-only, not "open in another program". Both need a user that is not
// root (root reads and writes everything): the CLI runs as uid 65534.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome, type ClaudeSession } from '../../fixtures/claude-code/build.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { openUp, runCliAsNobody } from '../helpers/unprivileged.js';

const RANGE = ['--since', '2026-09-01', '--until', '2026-09-30'];
const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('as an unprivileged user', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let locked: ClaudeSession;
  let cache: string;

  beforeAll(() => {
    home = tempDir('txu-hostile-store-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const ok = claude.session({ cwd: '/w/ok' });
    ok.response({ ts: '2026-09-03T10:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 10, output: 20 } });
    locked = claude.session({ cwd: '/w/locked' });
    locked.response({
      ts: '2026-09-03T11:00:00.000Z',
      model: 'claude-sonnet-4-5',
      usage: { input: 1000, output: 2000 },
    });
    openUp(home);
    cache = join(home, 'cache');
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    env = { ...cleanEnv(home), XDG_CACHE_HOME: cache };
  });
  afterAll(() => {
    chmodSync(locked.file, 0o644);
    rmSync(home, { recursive: true, force: true });
  });

  const report = () => {
    const r = runCliAsNobody(['report', ...RANGE, '--format', 'json'], env, home);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      totals: { requests: number; input_tokens: number; output_tokens: number };
      warnings: string[];
    };
  };
  const sourceWarnings = () => {
    const r = runCliAsNobody(['sources', '--format', 'json'], env, home);
    expect(r.status, r.stderr).toBe(0);
    return (JSON.parse(r.stdout).harnesses as { warnings: string[] }[]).flatMap((h) => h.warnings);
  };
  const denied = () => `${locked.file}: cannot read: permission denied`;

  it('a file that could not be read is read on the next run once it can be: counted, its warning gone', () => {
    chmodSync(locked.file, 0o000);
    const first = report();
    expect(first.totals).toMatchObject({ requests: 1, input_tokens: 10, output_tokens: 20 });
    expect(first.warnings).toContain(denied());
    // The same command again, still unreadable: tried again (no memo of the first run), the same answer.
    expect(report().warnings).toContain(denied());

    chmodSync(locked.file, 0o644); // size and modification time unchanged
    const second = report();
    expect(second.totals).toMatchObject({ requests: 2, input_tokens: 1010, output_tokens: 2020 });
    expect(second.warnings.join('\n')).not.toContain(locked.file);
    expect(sourceWarnings().join('\n')).not.toContain(locked.file);
  });

  it('a file the store has read, changed and then unreadable, keeps its rows meanwhile; its new responses count once it can be read', () => {
    // (An unchanged file that turns unreadable: test/readonly-store.test.ts.)
    locked.response({ ts: '2026-09-04T11:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 5, output: 6 } });
    chmodSync(locked.file, 0o000);
    const during = report();
    expect(during.totals).toMatchObject({ requests: 2, input_tokens: 1010, output_tokens: 2020 });
    expect(during.warnings).toContain(denied());
    expect(sourceWarnings()).toContain(denied());

    chmodSync(locked.file, 0o644);
    const after = report();
    expect(after.totals).toMatchObject({ requests: 3, input_tokens: 1015, output_tokens: 2026 });
    expect(after.warnings.join('\n')).not.toContain(locked.file);
  });

  it('a store this user cannot write: "read-only", naming the file and the permission, never "open in another program"', () => {
    const db = join(cache, 'tx-usage', 'usage.duckdb');
    chmodSync(db, 0o444);
    try {
      // `ingest` is there to write it: refused.
      const r = runCliAsNobody(['ingest'], env, home);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `tx-usage: the store ${db} is read-only (${db}: permission denied): tx-usage writes to it on every run; give it write permission, or use --db for a store elsewhere\n`,
      );
      expect(r.stderr).not.toContain('another program');
      // A report answers from it as it is, and says so (test/readonly-store.test.ts).
      const ro = report();
      expect(ro.totals.requests).toBe(3);
      expect(ro.warnings[0]).toMatch(
        new RegExp(`^the store ${db} is read-only \\(${db}: permission denied\\): answered from what it holds`),
      );
    } finally {
      chmodSync(db, 0o644);
    }
    expect(report().totals.requests).toBe(3);
  });
});
