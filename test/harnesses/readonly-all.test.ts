// Read-only proof over a home holding all seven harnesses: every file under it
// keeps its bytes, size and mtime, no file appears or disappears (no -wal,
// -shm or -journal created, no temp file left), directories keep their mtimes,
// across `ingest`, every report format, `sources` and `sql`. The only entries
// allowed to change are EXISTING SQLite -shm wal-index files, which SQLite's
// own read-only readers update.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, pickMetrics, type AllHome } from '../../fixtures/all-harnesses.js';
import { diffSnapshots, isShm, snapshotTree, type TreeSnapshot } from '../../fixtures/snapshot.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { buildCoworkHome, buildLinkedHome, buildPiDirsHome, buildSilentHome } from '../../fixtures/missing-sessions.js';

let fx: AllHome;
let outside: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  fx = buildAllHome(tempDir('txu-ro-all-'));
  // A symlinked transcript: read through, never touched.
  const claudeFile = fx.canaryFiles[0]!;
  symlinkSync(claudeFile, join(fx.home, '.claude', 'projects', 'linked-session.jsonl'));
  outside = tempDir('txu-ro-out-');
  // tx-usage's own cache (store, prices) lives OUTSIDE the home: everything under the home is user data.
  env = cleanEnv(fx.home, { XDG_CACHE_HOME: join(outside, 'cache') });
});

afterAll(() => fx?.close());

/** Every command a user would run, each checked for a zero exit. Returns how many ran. */
function runEverything(label: string): { commands: number; htmlAvailable: boolean } {
  const cmds: string[][] = [
    ['ingest'],
    ['report', ...ALL_RANGE],
    ['report', ...ALL_RANGE, '--format', 'json', '--by', 'harness,model'],
    ['report', ...ALL_RANGE, '--format', 'csv', '--by', 'project,session'],
    ['report', ...ALL_RANGE, '--format', 'json', '--out', join(outside, `${label}.json`)],
    ['report', ...ALL_RANGE, '--format', 'csv', '--out', join(outside, `${label}.csv`)],
    ['sources'],
    ['sources', '--format', 'json'],
    ['explain', fx.home, '--format', 'json'],
    ['sql', 'SELECT harness, count(*) AS n FROM usage_events GROUP BY harness ORDER BY harness'],
    ['sql', 'SELECT * FROM context_rows', '--format', 'json'],
    ['sql', 'SELECT * FROM sources', '--format', 'csv'],
    ['ingest', '--rebuild'],
  ];
  for (const c of cmds) {
    const r = runCli(c, env);
    expect(r.status, `${c.join(' ')}\n${r.stderr}`).toBe(0);
  }
  // HTML: part of the proof when this build has the renderer.
  const html = runCli(['report', ...ALL_RANGE, '--format', 'html', '--out', join(outside, `${label}.html`)], env);
  const htmlAvailable = html.status === 0;
  if (!htmlAvailable) expect(html.stderr).toMatch(/HTML renderer is not available/);
  return { commands: cmds.length + 1, htmlAvailable };
}

function proveUntouched(before: TreeSnapshot, label: string): number {
  const after = snapshotTree(fx.home, { volatile: isShm });
  expect(diffSnapshots(before, after), label).toEqual([]);
  return Object.keys(after).length;
}

describe('read-only on every harness', () => {
  it('the fixture home really holds all seven harnesses, WAL files and canaries', () => {
    const snap = snapshotTree(fx.home);
    const names = Object.keys(snap);
    for (const dir of [
      '.claude/projects',
      '.codex/sessions',
      '.codex/archived_sessions',
      '.pi/agent/sessions',
      '.cursor/chats',
      '.local/share/opencode',
      '.gemini/tmp',
      '.qwen/projects',
      '.qwen/tmp',
      '.openclaw/agents/main/sessions',
      '.clawdbot/agents/main/sessions',
      '.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks',
      '.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      '.config/Code/User/globalStorage/kilocode.kilo-code/tasks',
      '.cline/data/sessions',
      '.local/share/kilo',
    ])
      expect(names, dir).toContain(dir);
    expect(names.some((n) => n.endsWith('.jsonl.zst'))).toBe(true);
    expect(names.filter((n) => n.endsWith('-wal')).length).toBeGreaterThan(2);
    expect(names.filter(isShm).length).toBeGreaterThan(2);
    for (const f of fx.canaryFiles) expect(existsSync(f), f).toBe(true);
    console.log(
      `read-only fixture: ${names.length} entries, ${names.filter((n) => n.endsWith('-wal')).length} -wal and ${names.filter(isShm).length} -shm files`,
    );
  });

  it('ingest + every report format + sources + sql leave every file identical (OpenCode still running)', async () => {
    const before = snapshotTree(fx.home, { volatile: isShm });
    await new Promise((r) => setTimeout(r, 30)); // any write would now show as a new mtime
    const ran = runEverything('running');
    const checked = proveUntouched(before, 'running');
    // And the numbers were right while reading them.
    const j = JSON.parse(readFileSync(join(outside, 'running.json'), 'utf8'));
    expect(pickMetrics(j.totals)).toEqual(fx.total);
    console.log(
      `read-only (OpenCode writers open): ${ran.commands} commands (html ${ran.htmlAvailable ? 'included' : 'not in this build'}), ${checked} entries compared, ${Object.keys(before).filter(isShm).length} -shm files allowed to change`,
    );
  });

  it('the same after OpenCode closed its databases (no -wal/-shm left beside them)', async () => {
    fx.close();
    mkdirSync(join(outside, 'closed'), { recursive: true });
    const before = snapshotTree(fx.home, { volatile: isShm });
    expect(
      Object.keys(before).filter((n) => n.includes('opencode') && (n.endsWith('-wal') || n.endsWith('-shm'))),
    ).toEqual([]);
    await new Promise((r) => setTimeout(r, 30));
    const ran = runEverything('closed');
    const checked = proveUntouched(before, 'closed');
    const j = JSON.parse(readFileSync(join(outside, 'closed.json'), 'utf8'));
    expect(pickMetrics(j.totals)).toEqual(fx.total);
    console.log(`read-only (OpenCode closed): ${ran.commands} commands, ${checked} entries compared`);
  });
});

describe('read-only on the places issue 34 reads', () => {
  it('linked folders and their targets, pi settings and trust files, extension sessions, Cowork folders: all untouched', async () => {
    const homes = [
      ['linked', buildLinkedHome],
      ['pi-dirs', buildPiDirsHome],
      ['cowork', buildCoworkHome],
      ['silent', buildSilentHome],
    ] as const;
    for (const [label, build] of homes) {
      const base = tempDir(`txu-ro-${label}-`);
      const { home } = build(base);
      const e = cleanEnv(home, { XDG_CACHE_HOME: join(outside, `cache-${label}`) });
      // The whole base: targets of links, project folders and their .pi/ live beside the home.
      const before = snapshotTree(base);
      await new Promise((r) => setTimeout(r, 30));
      for (const c of [
        ['ingest'],
        ['report', ...ALL_RANGE, '--format', 'json'],
        ['sources', '--format', 'json'],
        ['ingest', '--rebuild'],
      ]) {
        const r = runCli(c, e);
        expect(r.status, `${label}: ${c.join(' ')}\n${r.stderr}`).toBe(0);
      }
      expect(diffSnapshots(before, snapshotTree(base)), label).toEqual([]);
    }
  });
});
