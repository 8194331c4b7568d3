// Which broken Claude Code lines are warned about (README "Bad input", the
// harness README's "Bad input"): the line scan parses only lines holding a
// marker (`"usage"`, `"cost-state"`), so a broken line with one is a warning
// naming file and line, and a broken line without one (`{this is broken`,
// user audit 2026-12-05) is passed over without a word, and changes no count.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { tokenFields } from '../../fixtures/ledger.js';
import { cleanEnv, reportJson, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];

describe('claude-code broken lines with and without a usage marker', () => {
  const home = tempDir('txu-unmarked-');
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const claude = new ClaudeHome(join(home, '.claude'));
  const quiet = claude.session({ cwd: '/home/u/p' });
  quiet.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 10, output: 20 } });
  quiet.raw('{this is broken\n');
  quiet.response({ ts: '2026-10-03T10:05:00.000Z', usage: { input: 3, output: 4 } });
  const loud = claude.session({ cwd: '/home/u/p' });
  loud.response({ ts: '2026-10-04T10:00:00.000Z', usage: { input: 5, output: 6 } });
  loud.raw('{"type":"assistant","message":{"usage": broken\n');

  it('warns about the marked one (file and line), not the other; both files count every response', () => {
    const j = reportJson(RANGE, cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(claude.ledger.totals()));
    expect(j.totals.requests).toBe(3);
    const w = j.warnings.join('\n');
    expect(w).toContain(`${loud.file}:2: 1 unparsable line skipped (first at line 2)`);
    expect(w).not.toContain(quiet.file);
  });
});
