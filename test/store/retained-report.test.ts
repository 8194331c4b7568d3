// A report whose harness folder is no longer found (moved, renamed, a Roo
// customStoragePath that stopped being readable) still answers from the rows
// the store kept: history outlives the transcripts (README "retained
// history"). The table once printed "No harness data found" instead while
// JSON and CSV showed the rows (user audit, 2026-12-05); now every format
// shows the same totals, and the table run says where the rows come from.
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const OCT = ['--since', '2026-10-01', '--until', '2026-10-31'];
// What the fixture writes, counted here by hand: 2 responses in October.
const REQUESTS = 2;
const TOKENS = 100 + 50 + 1000 + 7 + 70 + 40;
let home: string;

beforeAll(() => {
  home = tempDir('txu-retained-report-');
  const s = new ClaudeHome(join(home, '.claude')).session({ cwd: '/home/u/p' });
  s.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 100, output: 50, cacheRead: 1000 } });
  s.response({ ts: '2026-10-04T12:00:00.000Z', usage: { input: 7, output: 70, cacheWrite5m: 40 } });
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function run(args: string[]) {
  const r = runCli(args, cleanEnv(home));
  expect(r.status, r.stderr).toBe(0);
  return r;
}

/** requests and total tokens summed over a CSV's rows (one per harness or block); monthly's, over its `total` breakdown rows. */
function csvTotals(text: string): { requests: number; tokens: number } {
  const [head, ...rows] = text.trim().split('\n');
  const cols = head!.split(',');
  const req = cols.indexOf('requests');
  const tok = cols.indexOf('total_tokens');
  const breakdown = cols.indexOf('breakdown');
  expect(req).toBeGreaterThanOrEqual(0);
  expect(tok).toBeGreaterThanOrEqual(0);
  let requests = 0;
  let tokens = 0;
  for (const r of rows) {
    const f = r.split(',');
    if (breakdown >= 0 && f[breakdown] !== 'total') continue;
    requests += Number(f[req]);
    tokens += Number(f[tok]);
  }
  return { requests, tokens };
}

describe('a report after the harness folder is moved away', () => {
  const reports: [string, string[]][] = [
    ['summary', ['report', ...OCT, '--by', 'harness']],
    ['monthly', ['report', 'monthly', ...OCT]],
    ['blocks', ['report', 'blocks', ...OCT]],
  ];

  it('shows the retained rows in table, JSON and CSV alike, the table with a note; only an empty store says "No harness data found"', () => {
    // Read once with the folder in place; the tables as they were then.
    const tables = new Map<string, string>();
    for (const [name, args] of reports) {
      tables.set(name, run(args).stdout);
      // Each table shows the token total as the terminal abbreviates it (1267 -> 1.27k).
      expect(tables.get(name), name).toContain(`${(TOKENS / 1000).toFixed(2)}k`);
      const j = JSON.parse(run([...args, '--format', 'json']).stdout);
      expect(j.totals.requests, name).toBe(REQUESTS);
      expect(j.totals.total_tokens, name).toBe(TOKENS);
      expect(j.warnings.join('\n'), name).not.toMatch(/retained history/);
    }

    renameSync(join(home, '.claude'), join(home, 'claude-moved'));
    for (const [name, args] of reports) {
      const j = JSON.parse(run([...args, '--format', 'json']).stdout);
      expect(j.totals.requests, name).toBe(REQUESTS);
      expect(j.totals.total_tokens, name).toBe(TOKENS);
      expect(j.warnings.join('\n'), name).not.toContain('No harness data found');
      expect(j.warnings.join('\n'), name).toMatch(
        /no harness data found in the searched locations: the rows shown are the store's retained history.*tx-usage sources/,
      );

      expect(csvTotals(run([...args, '--format', 'csv']).stdout), name).toEqual({ requests: REQUESTS, tokens: TOKENS });

      // The same table as with the folder in place (a repeated report may come from the memo:
      // the store's sources changed, so this one cannot).
      const t = run(args);
      expect(t.stdout, name).toBe(tables.get(name));
      // The note, on stderr with the other warnings, names the command that shows where tx-usage looked.
      expect(t.stderr, name).toMatch(
        /^warning: no harness data found in the searched locations: the rows shown are the store's retained history .*`tx-usage sources`/m,
      );
      expect(t.stderr, name).not.toContain('No harness data found');
    }

    // `sources` cannot know the moved file is deleted (it is not: it is under claude-moved): it says only
    // that the searched folders no longer hold it.
    const src = run(['sources']).stdout;
    expect(src).toMatch(
      /: 2 events \(retained: no longer found in the searched folders since \d{4}-\d{2}-\d{2}, rows kept\)/,
    );
    expect(src).not.toMatch(/gone/);

    // A store that holds nothing for the question's harnesses: said so, on stderr.
    const none = run(['report', ...OCT, '--harness', 'codex']);
    expect(none.stderr).toContain('No harness data found for codex');
    expect(none.stderr).not.toMatch(/retained history/);
  });
});
