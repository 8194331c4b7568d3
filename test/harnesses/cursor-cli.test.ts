// Cursor Agent end to end through the real compiled CLI: the JSON `context`
// array matches what the fixture builder computed, Cursor adds nothing to
// billed totals, projects resolve through other harnesses' cwds, and the
// user's files are left alone.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { buildCursorHome, md5, PROJECT_A, PROJECT_B, type CursorFixture } from '../../fixtures/cursor-agent/home.js';
import type { ContextRow } from '../../src/core/types.js';
import { CLI, cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-11-01', '--until', '2026-11-30'];

let home: string;
let env: NodeJS.ProcessEnv;
let fx: CursorFixture;
let claude: ClaudeHome;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** A ContextRow as the JSON report prints it (timestamps as ISO strings). */
const asJson = (r: ContextRow) => ({ ...r, first_ts: iso(r.first_ts), last_ts: iso(r.last_ts) });
const bySession = <T extends { session: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.session < b.session ? -1 : 1));

function snapshot(): Map<string, string> {
  const m = new Map<string, string>();
  for (const c of fx.chats) {
    const dir = dirname(c.dbPath);
    m.set(dir, readdirSync(dir).sort().join(','));
    for (const f of [c.dbPath, c.dbPath + '-wal', join(dir, 'meta.json')]) {
      if (!existsSync(f)) continue;
      m.set(f, `${createHash('sha256').update(readFileSync(f)).digest('hex')}:${statSync(f).mtimeMs}`);
    }
  }
  return m;
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build first: ${CLI} missing`);
  home = tempDir('txu-cursor-cli-');
  fx = buildCursorHome(home);
  // Other harnesses' cwds: Claude Code sessions in project A and B, so the
  // chats whose meta.json has no cwd resolve through md5(cwd).
  claude = new ClaudeHome(join(home, '.claude'));
  for (const [cwd, ts] of [
    [PROJECT_A, '2026-11-20T08:00:00.000Z'],
    [PROJECT_B, '2026-11-20T08:30:00.000Z'],
  ] as const) {
    const s = claude.session({ cwd });
    s.user(ts);
    s.response({ ts: ts.replace(':00.000Z', ':05.000Z'), usage: { input: 100, output: 50, cacheRead: 1_000 } });
  }
  env = cleanEnv(home);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('cursor-agent through tx-usage report --format json', () => {
  it('lists every chat and subagent in `context` exactly as the builder computed', () => {
    const j = reportJson([...RANGE, '--by', 'harness'], env);
    const expected = fx.chats.flatMap((c) => c.rows).map(asJson);
    expect(bySession(j.context)).toEqual(bySession(expected));
    expect(j.warnings).toEqual([]);
  });

  it('resolves a chat without meta.json cwd through another harness cwd, else unknown (<md5>)', () => {
    const j = reportJson([...RANGE], env);
    const noShm = fx.chats.find((c) => c.name === 'no-shm')!;
    expect(j.context.find((c: any) => c.session === noShm.rows[0]!.session).project).toBe(PROJECT_B);
    const unknown = fx.chats.find((c) => c.name === 'unknown-project')!;
    expect(j.context.find((c: any) => c.session === unknown.rows[0]!.session).project).toMatch(
      /^unknown \([0-9a-f]{32}\)$/,
    );
    expect(md5(PROJECT_B)).toBe(noShm.dbPath.split('/').at(-3));
  });

  it('adds nothing to billed rows or totals: no usage row of zeros, its chats in `context`', () => {
    const j = reportJson([...RANGE, '--by', 'harness'], env);
    expect(j.rows.map((r: any) => r.harness)).toEqual(['claude-code']);
    expect(j.context.length).toBeGreaterThan(0);
    // Totals are exactly the Claude Code responses the other builder wrote.
    const [ledger] = claude.ledger.rows(['harness'], { since: '2026-11-01', until: '2026-11-30' });
    expect(j.totals.requests).toBe(2);
    expect(j.totals.total_tokens).toBe(ledger!.total_tokens);
    expect(j.totals.input_tokens).toBe(ledger!.input_tokens);
    const only = reportJson([...RANGE, '--by', 'harness', '--harness', 'cursor-agent'], env);
    expect(only.totals).toMatchObject({ requests: 0, total_tokens: 0, cost_usd: null, cost_source: 'none' });
    expect(only.rows).toEqual([]);
    expect(bySession(only.context)).toEqual(bySession(fx.chats.flatMap((c) => c.rows).map(asJson)));
  });

  it('has no `context` array when no Cursor chat falls in the range', () => {
    const j = reportJson(['--since', '2026-10-01', '--until', '2026-10-31'], env);
    expect(j.context).toBeUndefined();
  });

  it('shows the "Cursor context" table (not billing data) only when Cursor is asked for or under --by harness; JSON always carries it', () => {
    for (const args of [
      ['--harness', 'cursor-agent'],
      ['--harness', 'claude-code,cursor-agent'],
      ['--by', 'harness'],
      ['--by', 'day,harness'],
    ]) {
      const r = runCli(['report', ...RANGE, ...args], env);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toContain('Cursor context');
      expect(r.stdout).toMatch(/Cursor does not record billed usage locally/);
    }
    for (const args of [[], ['--by', 'model'], ['--harness', 'claude-code'], ['--format', 'html']]) {
      const r = runCli(['report', ...RANGE, ...args], env);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).not.toContain('Cursor context');
      expect(r.stdout.length).toBeGreaterThan(200);
    }
    expect(reportJson([...RANGE], env).context.length).toBeGreaterThan(0);
  });

  it('tx-usage sources counts chats, live roots, stale roots ignored and subagents', () => {
    const r = runCli(['sources'], env);
    expect(r.status).toBe(0);
    const sum = (k: keyof CursorFixture['chats'][number]['counts']) => fx.chats.reduce((n, c) => n + c.counts[k], 0);
    for (const k of ['chats', 'live roots', 'stale roots ignored', 'subagents'] as const) {
      expect(r.stdout, k).toContain(`${k}: ${sum(k)}`);
    }
  });

  it('leaves the stores untouched and re-reads nothing on an unchanged second run', () => {
    const before = snapshot();
    const first = reportJson([...RANGE], env);
    const ingest = runCli(['ingest'], env);
    expect(ingest.status).toBe(0);
    expect(ingest.stdout + ingest.stderr).toMatch(/0 read/);
    expect(reportJson([...RANGE], env)).toEqual(first);
    expect(snapshot()).toEqual(before);
  });
});

describe('cursor-agent chats whose project comes from another harness', () => {
  it('are read again when a matching cwd appears later, and take that project (the known projects are part of their fingerprint)', () => {
    const h = tempDir('txu-cursor-later-');
    try {
      const f = buildCursorHome(h);
      const e = cleanEnv(h);
      const noShm = f.chats.find((c) => c.name === 'no-shm')!;
      const projectOf = (j: any) => j.context.find((c: any) => c.session === noShm.rows[0]!.session).project;
      // No other harness yet: the chat's workspace folder is only an MD5.
      expect(projectOf(reportJson([...RANGE], e))).toBe(`unknown (${md5(PROJECT_B)})`);
      // A Claude Code session in that project, written afterwards: the same store now resolves the chat.
      const c = new ClaudeHome(join(h, '.claude'));
      const s = c.session({ cwd: PROJECT_B });
      s.user('2026-11-21T08:00:00.000Z');
      s.response({ ts: '2026-11-21T08:00:05.000Z', usage: { input: 1, output: 1 } });
      expect(projectOf(reportJson([...RANGE], e))).toBe(PROJECT_B);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});
