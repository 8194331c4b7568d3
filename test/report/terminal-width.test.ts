// Tables are laid out to the terminal's width (core/inputs.ts outputColumns),
// in every command that prints one: `sql`, `check`, `limits` and
// `import --list` as `report` does. A terminal that reports 0 columns (a
// serial console, some CI ptys) gets 80, as a pipe does. Each command runs on
// a pseudo-terminal of the width asked for (script(1), as
// stdio-without-streams.test.ts does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { usageCsv } from '../../fixtures/cursor-usage/build.js';
import { CLI, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let env: NodeJS.ProcessEnv;
beforeAll(() => {
  const home = tempDir('txu-width-');
  mkdirSync(join(home, '.config/tx-usage'), { recursive: true });
  writeFileSync(join(home, '.config/tx-usage/config.json'), JSON.stringify({ budgets: { day: 20, month: 400 } }));
  const csv = join(tempDir('txu-width-csv-'), 'usage-events-2026-11-21.csv');
  writeFileSync(csv, usageCsv('v3'));
  const r = runCli(['import', 'cursor-usage', csv], cleanEnv(home));
  if (r.status !== 0) throw new Error(r.stderr);
  env = cleanEnv(home);
});

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** stdout of `tx-usage ARGS` on a terminal of `cols` columns (stderr, where progress goes, dropped). */
function onTerminal(cols: number, args: string[]): string {
  const cmd = `stty cols ${cols}; exec ${sh(process.execPath)} ${sh(CLI)} ${args.map(sh).join(' ')} 2>/dev/null`;
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env, encoding: 'utf8' });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r.stdout.replace(/\r/g, '');
}

function piped(args: string[]): string {
  const r = runCli(args, env);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

const COMMANDS: [string, string[]][] = [
  ['check', ['check']],
  ['limits', ['limits']],
  ['import --list', ['import', '--list']],
];

describe('tables at the terminal width', () => {
  for (const [name, args] of COMMANDS) {
    it(`${name}: laid out for a 40-column terminal; on one reporting 0 columns, as through a pipe (80)`, () => {
      const pipe = piped(args);
      expect(widest(pipe)).toBeGreaterThan(40); // else the narrow terminal would prove nothing
      const narrow = onTerminal(40, args);
      expect(narrow).not.toBe(pipe);
      // Rules fit (columns that cannot be cut keep their width; notes are wrapped to it).
      for (const l of narrow.split('\n')) if (l.startsWith('─')) expect([...l].length, l).toBeLessThanOrEqual(40);
      expect(onTerminal(0, args)).toBe(pipe);
    });
  }

  // User audit: at 120 and 130 columns the report took the full layout, 131 columns wide, with
  // model names cut (`…pus-4-6`); the layout is now the widest that fits (render/table.ts).
  it('report --by model: never wider than the terminal, every model name whole, more columns as it widens', () => {
    const args = ['report', '--by', 'model', '--since', '2026-11-01', '--until', '2026-11-30', '--tz', 'UTC'];
    const models = (JSON.parse(piped([...args, '--format', 'json'])).rows as { model: string }[]).map((r) => r.model);
    expect(models).toContain('claude-4.6-opus-high-thinking');
    const shown: number[] = [];
    for (const cols of [80, 100, 120, 130, 140, 200]) {
      const out = onTerminal(cols, args);
      expect(widest(out), out).toBeLessThanOrEqual(cols);
      for (const m of models)
        expect(
          out.split('\n').some((l) => l.startsWith(`${m} `)),
          `${cols}: ${m}`,
        ).toBe(true);
      shown.push(
        out
          .split('\n')[1]!
          .trim()
          .split(/\s{2,}/).length,
      );
    }
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(shown.at(-1)).toBeGreaterThan(shown[0]!);
  });

  it('sql: the rule under the header is as wide as the terminal, 80 when it reports 0 columns', () => {
    const args = ['sql', "SELECT repeat('x', 150) AS long, 1 AS n"];
    const rule = (text: string) => [...text.split('\n').find((l) => l.startsWith('─'))!].length;
    expect(rule(onTerminal(50, args))).toBe(50);
    expect(rule(onTerminal(120, args))).toBe(120);
    expect(rule(onTerminal(0, args))).toBe(80);
    expect(onTerminal(0, args)).toBe(piped(args));
  });
});
