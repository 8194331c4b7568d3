// A Claude Code fixture home for the report tests (CLI and browser): two
// months of usage, a project named like an HTML injection and a model named
// like a spreadsheet formula. Written by the Claude Code fixture builder; the
// expected figures are its ledger's.
import { join } from 'node:path';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';

export const XSS = '<script>alert(1)</script>';
export const XSS_PROJECT = `/home/dev/${XSS}`;
export const FORMULA_MODEL = '=2+5';

/**
 * A Claude Code home over two months: October and November 2026, a project
 * named like an HTML injection, a model named like a spreadsheet formula (no
 * price), claude-sonnet-5-5 (priced through the claude-sonnet-5 entry, a near
 * match) and a transcript with an unparsable line.
 */
export function buildTwoMonthHome(home: string): ClaudeHome {
  const claude = new ClaudeHome(join(home, '.claude'));
  const projects = ['/home/dev/webshop', XSS_PROJECT, '/home/dev/infra'];
  const plan: [string, number, string, string][] = [
    // day, responses, project, model
    ['2026-10-03', 4, projects[0]!, 'claude-opus-5-5'],
    ['2026-10-03', 2, projects[1]!, 'claude-sonnet-5-5'],
    ['2026-10-17', 6, projects[0]!, 'claude-sonnet-5-5'],
    ['2026-10-28', 3, projects[2]!, 'claude-opus-5-5'],
    ['2026-11-02', 5, projects[1]!, 'claude-opus-5-5'],
    ['2026-11-09', 2, projects[0]!, FORMULA_MODEL],
    ['2026-11-20', 7, projects[2]!, 'claude-sonnet-5-5'],
  ];
  let k = 0;
  for (const [day, responses, cwd, model] of plan) {
    const s = claude.session({ cwd });
    s.user(`${day}T09:00:00.000Z`);
    for (let i = 0; i < responses; i++) {
      k++;
      s.response({
        model,
        ts: `${day}T09:${String(1 + i).padStart(2, '0')}:00.000Z`,
        // Not proportional to one another, so per-token rates can be told apart.
        usage: {
          input: 10 + ((k * 7) % 13),
          cacheRead: 1000 * k + ((k * k) % 97) * 10,
          cacheWrite5m: 200 + ((k * k * 3) % 50),
          output: 50 * k + (k % 5) * 17,
          thinking: 5 * k,
        },
      });
    }
  }
  // A line no JSON parser reads: its warning names the transcript, inside the home folder.
  claude.session({ cwd: projects[0]! }).user('2026-10-05T09:00:00.000Z').garbage();
  return claude;
}
