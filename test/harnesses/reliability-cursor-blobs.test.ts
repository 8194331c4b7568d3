// Cursor blob damage end to end (the extractor-level cases are in
// cursor-bad.test.ts): a missing blob, reference cycles and undecodable
// protobuf blobs reach the report's warnings naming the store and the blob,
// the report exits 0, the other chats keep their exact context rows and the
// other harnesses' totals are untouched.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { buildBadCursorHome } from '../../fixtures/cursor-agent/bad.js';
import { PROJECT_A } from '../../fixtures/cursor-agent/home.js';
import { tokenFields } from '../../fixtures/ledger.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

describe('cursor blob damage through the CLI', () => {
  it('every bad reference is a warning naming store and blob; exit 0; the rest exact', () => {
    const home = tempDir('txu-cursor-blobs-');
    const chats = buildBadCursorHome(home);
    const claude = new ClaudeHome(join(home, '.claude'));
    claude
      .session({ cwd: PROJECT_A })
      .response({ ts: '2026-11-20T10:00:00.000Z', usage: { input: 5, output: 6, cacheRead: 7 } });
    const env = cleanEnv(home);

    const r = runCli(['report', '--since', '2026-11-01', '--until', '2026-11-30', '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const j = JSON.parse(r.stdout);
    expect(tokenFields(j.totals)).toEqual(tokenFields(claude.ledger.totals()));
    let expected = 0;
    for (const c of chats) {
      for (const w of c.warnings) {
        expected++;
        const hits = (j.warnings as string[]).filter(
          (g) => g.startsWith(`${c.dbPath} (${w.at}): `) && g.includes(w.says),
        );
        expect(hits, `${c.name}: ${w.says} at ${w.at}`).toHaveLength(1);
      }
    }
    // Warnings quote no prompt text from the damaged stores.
    expect(j.warnings.join('\n')).not.toContain('Example prompt');

    const q = runCli(
      [
        'sql',
        "SELECT session, turns, latest_used_tokens, peak_used_tokens FROM context_rows WHERE harness = 'cursor-agent' ORDER BY session",
        '--format',
        'json',
      ],
      env,
    );
    expect(q.status, q.stderr).toBe(0);
    const got = (JSON.parse(q.stdout) as any[]).map((x) => ({
      session: x.session,
      turns: Number(x.turns),
      latest: x.latest_used_tokens === null ? null : Number(x.latest_used_tokens),
      peak: x.peak_used_tokens === null ? null : Number(x.peak_used_tokens),
    }));
    const want = chats
      .flatMap((c) => c.rows)
      .map((x) => ({ session: x.session, turns: x.turns, latest: x.latest_used_tokens, peak: x.peak_used_tokens }))
      .sort((a, b) => (a.session < b.session ? -1 : 1));
    expect(got).toEqual(want);
    console.log(
      `cursor blob cases through the CLI: ${chats.length} stores, ${expected} expected warnings (missing blobs, reference cycles, undecodable protobuf, missing/undecodable root, bad meta) all named; ${got.length} context rows exact`,
    );
  });
});
