// Privacy: canary strings planted in prompts, tool outputs and file
// contents of every harness's fixture (including the prompts and tool calls
// that are read as units of work, issue 27) (and in bad input that gets warned
// about) never reach the DuckDB store, any report output (table, JSON, CSV,
// HTML, --out files), Parquet exports, temporary files, or stdout/stderr.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, SECRETS, TITLE_MARK, type AllHome } from '../../fixtures/all-harnesses.js';
import { addCanaryBadInput, type CanaryBadFiles } from '../../fixtures/canary-bad-input.js';
import { dumpParquet, dumpStore } from '../../fixtures/duckdb-dump.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { HARNESS_IDS } from '../../src/core/types.js';

let fx: AllHome;
let bad: CanaryBadFiles;
let outside: string;
let tmp: string;
let env: NodeJS.ProcessEnv;
const logs: { cmd: string; stdout: string; stderr: string }[] = [];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isFile());
}

/** Secrets found in `text`, as a list (empty = clean), for readable failures. */
const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

beforeAll(() => {
  fx = buildAllHome(tempDir('txu-privacy-'));
  bad = addCanaryBadInput(fx.home);
  outside = tempDir('txu-privacy-out-');
  tmp = join(outside, 'tmp');
  mkdirSync(tmp);
  // Private TMPDIR: SQLite copies and tx-usage's work dirs land here, so they can be checked too.
  env = cleanEnv(fx.home, { XDG_CACHE_HOME: join(outside, 'cache'), TMPDIR: tmp });
  const cmds: string[][] = [
    ['ingest'],
    ['report', ...ALL_RANGE],
    ['report', ...ALL_RANGE, '--by', 'harness,project,session,model'],
    ['report', ...ALL_RANGE, '--format', 'json', '--by', 'harness,project,session,model'],
    ['report', ...ALL_RANGE, '--format', 'csv', '--by', 'harness,project,session,model'],
    ['report', ...ALL_RANGE, '--format', 'html', '--out', join(outside, 'report.html')],
    ['report', ...ALL_RANGE, '--format', 'json', '--out', join(outside, 'report.json')],
    ['report', ...ALL_RANGE, '--format', 'csv', '--out', join(outside, 'report.csv')],
    ['sources'],
    ['sources', '--format', 'json'],
    // explain reads every file again in its own thread: counts, ids and places only.
    ['explain', fx.home],
    ['explain', fx.home, '--format', 'json'],
    ['explain', fx.home, '--format', 'csv'],
    ['sql', 'SELECT * FROM usage_events', '--format', 'json'],
    ['sql', 'SELECT * FROM source_issues', '--format', 'csv'],
    ['export', '--out', join(outside, 'export')],
  ];
  for (const c of cmds) {
    const r = runCli(c, env);
    logs.push({ cmd: c.join(' '), stdout: r.stdout, stderr: r.stderr });
    // html may be missing from a build; everything else must succeed.
    if (!(c.includes('html') && /HTML renderer is not available/.test(r.stderr)))
      expect(r.status, `${c.join(' ')}\n${r.stderr}`).toBe(0);
  }
});

afterAll(() => fx?.close());

describe('privacy: planted text never leaves the user files', () => {
  it('the canaries really are in every harness fixture (the test can fail)', () => {
    for (const f of [...fx.canaryFiles, ...Object.values(bad)]) {
      const bytes = Buffer.concat([f, f + '-wal'].filter(existsSync).map((p) => readFileSync(p))).toString('latin1');
      expect(leaks(bytes).length, f).toBeGreaterThan(0);
    }
    console.log(
      `privacy: canaries present in ${fx.canaryFiles.length + Object.keys(bad).length} fixture files of all seven harnesses`,
    );
  });

  it('the DuckDB store (file bytes and every value of every table) holds no canary', async () => {
    const storeDir = join(outside, 'cache', 'tx-usage');
    const files = filesUnder(storeDir);
    expect(files.some((f) => f.endsWith('.duckdb'))).toBe(true);
    for (const f of files) expect(leaks(readFileSync(f).toString('latin1')), f).toEqual([]);
    const tables = await dumpStore(join(storeDir, 'usage.duckdb'));
    // The store does hold data from every harness (so the search means something).
    const all = Object.values(tables).join('\n');
    for (const h of HARNESS_IDS) expect(all).toContain(`"${h}"`);
    for (const [t, text] of Object.entries(tables)) expect(leaks(text), t).toEqual([]);
    // Units of work were read from every harness (its prompts and tool calls hold canaries), and titles,
    // which the store keeps by design (never prompt text), did arrive.
    for (const h of HARNESS_IDS) expect(tables['main.unit_attrs'], h).toContain(`"${h}"`);
    expect(tables['main.unit_rows']).toContain('"kind":0'); // prompts (WORK_UNIT_KINDS[0])
    expect(tables['main.session_fact_rows']).toContain(TITLE_MARK);
    console.log(
      `privacy: store ${files.length} file(s), ${Object.keys(tables).length} tables, ${all.length} chars of values searched for ${SECRETS.length} canaries`,
    );
  });

  it('stdout and stderr of every command, --out files and the Parquet export hold no canary', async () => {
    for (const l of logs) {
      expect(leaks(l.stdout), `stdout of ${l.cmd}`).toEqual([]);
      expect(leaks(l.stderr), `stderr of ${l.cmd}`).toEqual([]);
    }
    const outs = [join(outside, 'report.json'), join(outside, 'report.csv'), join(outside, 'report.html')].filter(
      existsSync,
    );
    expect(outs.length).toBeGreaterThanOrEqual(2);
    for (const f of outs) expect(leaks(readFileSync(f, 'utf8')), f).toEqual([]);
    const parquet = filesUnder(join(outside, 'export')).filter((f) => f.endsWith('.parquet'));
    expect(parquet.length).toBeGreaterThan(0);
    for (const f of parquet) expect(leaks(readFileSync(f).toString('latin1')), f).toEqual([]);
    const values = await dumpParquet(join(outside, 'export', '**', '*.parquet'));
    expect(values.length).toBeGreaterThan(100);
    expect(leaks(values)).toEqual([]);
    console.log(
      `privacy: ${logs.length} commands' stdout+stderr, ${outs.length} --out files, ${parquet.length} Parquet files searched`,
    );
  });

  it('warnings about bad input name the file but never quote its text', () => {
    const j = JSON.parse(readFileSync(join(outside, 'report.json'), 'utf8'));
    const warnings: string[] = j.warnings;
    // What each canary-bearing bad file must be warned about (by file name and line/row).
    const kinds: Record<keyof CanaryBadFiles, RegExp[]> = {
      claude: [
        /:2: invalid usage field\(s\) counted as 0: input_tokens not a number/,
        /:3: 1 unparsable line/,
        /:4: incomplete final line/,
      ],
      codex: [
        /:\d+: invalid usage field\(s\) counted as 0: input_tokens not a number/,
        /:\d+: 1 unparsable line/,
        /:\d+: incomplete final line/,
      ],
      pi: [/:3: invalid usage field\(s\) counted as 0: input not a number/, /:4: 1 unparsable line/],
      opencode: [
        /\(session_message msg_\w+\): 1 session_message row\(s\) with unparsable data/,
        /\(session_message msg_\w+\): invalid usage field\(s\) counted as 0: data.tokens.input/,
      ],
      cursor: [/\(meta '0'\): meta value is neither hex-encoded JSON nor JSON/],
      gemini: [/:3: invalid token field\(s\) counted as 0: input not a number/, /:4: 1 unparsable line/],
      geminiLegacy: [/:4: not a JSON document \(cut off\); nothing read from it/],
      qwen: [/:2: invalid usage field\(s\) counted as 0: promptTokenCount not a number/, /:3: 1 unparsable line/],
      cline: [
        / \(message 2\): 1 usage message\(s\) whose text is not JSON skipped/,
        / \(message 3\): invalid usage field\(s\) counted as 0: tokensIn not a number/,
      ],
    };
    let named = 0;
    for (const [harness, file] of Object.entries(bad) as [keyof CanaryBadFiles, string][]) {
      const mine = warnings.filter((w) => w.startsWith(file)).map((w) => w.slice(file.length));
      for (const k of kinds[harness]) {
        expect(
          mine.some((w) => k.test(w)),
          `${harness}: ${k} about ${file}\n${mine.join('\n')}`,
        ).toBe(true);
        named++;
      }
    }
    for (const w of warnings) expect(leaks(w), w).toEqual([]);
    // The table report prints them on stderr: also clean (checked above), and present.
    const table = logs.find((l) => l.cmd === ['report', ...ALL_RANGE].join(' '))!;
    expect(table.stderr).toContain(bad.claude);
    console.log(
      `privacy: ${warnings.length} warnings checked, ${named} expected warnings about ${Object.keys(bad).length} canary-bearing bad files found, none quoting them`,
    );
  });

  it('no temporary file (private SQLite copies, work dirs) is left behind', () => {
    expect(filesUnder(tmp)).toEqual([]);
    // Only the user's folder of work dirs stays (cli/workdir.ts), empty.
    const runs = `tx-usage-runs-${process.getuid!()}`;
    expect(readdirSync(tmp)).toEqual([runs]);
    expect(readdirSync(join(tmp, runs))).toEqual([]);
    console.log(`privacy: private TMPDIR empty after ${logs.length} commands (but for the empty ${runs})`);
  });
});
