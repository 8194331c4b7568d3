// Issue 35, first item: control characters from transcripts never reach the
// terminal. A project path that sets the window title and reverses the line,
// a model name that clears the screen (with an 8-bit CSI and a colour code of
// its own), a title with an OSC 8 hyperlink, a file name that clears the
// screen: report tables (cut to 80 columns), CSV, `sql` tables,
// warnings on stderr, `sources`, `watch --once` and the status line (its
// stdin's model.display_name too) show each as a visible escape (`\x1b`,
// `\x9b`, `\u202e`); JSON keeps the values, escaped. tx-usage's own colour
// codes still colour the table.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildHostileHome,
  CSI8,
  HOSTILE_DAY,
  HOSTILE_MODEL,
  HOSTILE_PROJECT,
  HOSTILE_TITLE,
  RLO,
  type HostileHome,
} from '../../fixtures/hostile-input.js';
import { refreshesDone } from '../helpers/live.js';
import { cleanEnv, forgetSaidWarnings, runCli, tempDir, type CliResult } from '../helpers/cli.js';

/** Every character a terminal would act on; `\n` is a line break of the output itself. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** tx-usage's own colour codes (SGR: ESC [ digits m). */
const OWN_SGR = /\x1b\[[0-9;]*m/g;

const RANGE = ['--since', HOSTILE_DAY, '--until', HOSTILE_DAY];

/** What the escapes of the fixture's strings read as once made visible. */
const SEEN = {
  title: '\\x1b]0;pwned\\x07',
  rlo: '\\u202e',
  clear: '\\x1b[2J',
  csi8: '\\x9b31m',
  osc8: '\\x1b]8;;https://evil.example/\\x1b\\click',
  sgr: '\\x1b[31m',
};

function expectNoRawControl(text: string, what: string, own: RegExp | null = null): void {
  const rest = own ? text.replace(own, '') : text;
  const m = RAW_CONTROL.exec(rest);
  expect(
    m,
    `${what}: raw U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m?.index}: ${JSON.stringify(rest.slice(Math.max(0, (m?.index ?? 0) - 30), (m?.index ?? 0) + 30))}`,
  ).toBeNull();
}

function ok(r: CliResult, what: string): CliResult {
  expect(r.status, `${what}: ${r.stderr}`).toBe(0);
  return r;
}

describe('terminal control characters from transcripts', () => {
  let dir: string;
  let fx: HostileHome;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = tempDir('txu-hostile-term-');
    fx = buildHostileHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: `${HOSTILE_DAY}T09:05:00.000Z` });
  });
  afterAll(async () => {
    await refreshesDone(fx.home); // a status line may have started a background refresh
    rmSync(dir, { recursive: true, force: true });
  });

  it('report tables (80 columns, cut; by session, and its CSV with the title) and their warnings show every sequence as visible text', () => {
    const narrow = ok(runCli(['report', ...RANGE, '--by', 'project,model'], env), 'narrow table');
    expectNoRawControl(narrow.stdout, 'narrow table');
    expect(narrow.stdout).toContain('\\x1b'); // cut to fit, still visible
    // Warnings on stderr: the unpriced model by name, the unparsable line by file name.
    expectNoRawControl(narrow.stderr, 'table warnings');
    expect(narrow.stderr).toContain(`${SEEN.clear}${SEEN.rlo}0badc0de`);
    expect(narrow.stderr).toContain(`claude-${SEEN.clear}sonnet-${SEEN.csi8}`);

    const bySession = ok(runCli(['report', ...RANGE, '--by', 'session'], env), 'session table');
    expectNoRawControl(bySession.stdout, 'session table');
    const sessions = ok(runCli(['report', ...RANGE, '--by', 'session', '--format', 'csv'], env), 'sessions csv');
    expectNoRawControl(sessions.stdout.replace(/\r\n/g, '\n'), 'sessions csv');
    expect(sessions.stdout).toContain(`Fix ${SEEN.osc8}`);
    expect(sessions.stdout).toContain(`now ${SEEN.sgr}red`);
  });

  it("tx-usage's own colour codes survive: the header is bold, the data's codes are shown, not obeyed", () => {
    const r = ok(runCli(['report', ...RANGE, '--by', 'project', '--color'], env), 'colour table');
    expect(r.stdout).toContain('\x1b[1m');
    expect(r.stdout.match(OWN_SGR)!.length).toBeGreaterThan(2);
    expectNoRawControl(r.stdout, 'colour table', OWN_SGR);
    // The path is cut to fit (its end kept): after it was made printable, so the cut is in plain text.
    expect(r.stdout).toContain(`…\\x07${SEEN.rlo}gnp.exe`);
  });

  it('CSV prints its warnings on stderr too, and shows the sequences as visible text', () => {
    // A file's warnings are said once (the table above said them): forgotten, so that this run says them again.
    forgetSaidWarnings(env);
    const r = ok(runCli(['report', ...RANGE, '--by', 'project,model', '--format', 'csv'], env), 'csv');
    expectNoRawControl(r.stdout.replace(/\r\n/g, '\n'), 'csv');
    expect(r.stdout).toContain(`/home/dev/app${SEEN.title}${SEEN.rlo}gnp.exe`);
    expectNoRawControl(r.stderr, 'csv warnings');
    expect(r.stderr).toMatch(/^warning: .*unparsable/m);
    expect(r.stderr).toContain(`warning: `);
    expect(r.stderr).toContain(`claude-${SEEN.clear}sonnet`);
  });

  it('JSON keeps every value exactly, each control character escaped', () => {
    const r = ok(runCli(['report', ...RANGE, '--by', 'project,model', '--format', 'json'], env), 'json');
    expectNoRawControl(r.stdout, 'json');
    const j = JSON.parse(r.stdout);
    expect(j.rows.map((x: { project: string }) => x.project)).toContain(HOSTILE_PROJECT);
    expect(j.rows.map((x: { model: string }) => x.model)).toContain(HOSTILE_MODEL);
    expect(r.stdout).toContain('\\u009b31m');
    expect(r.stdout).toContain('\\u202e');
    const s = ok(runCli(['report', ...RANGE, '--by', 'session', '--format', 'json'], env), 'json sessions');
    expect(JSON.parse(s.stdout).rows.map((x: { title: string | null }) => x.title)).toContain(HOSTILE_TITLE);
    expectNoRawControl(s.stdout, 'json sessions');
  });

  it('sql tables, their column names included, and sql JSON', () => {
    const t = ok(
      runCli(
        ['sql', `SELECT project, model, 'x' || chr(27) || '[2J' AS "col${'\x1b'}]0;t${'\x07'}" FROM usage ORDER BY ts`],
        env,
      ),
      'sql table',
    );
    expectNoRawControl(t.stdout, 'sql table');
    expect(t.stdout).toContain(SEEN.clear);
    expect(t.stdout).toContain('col\\x1b]0;t\\x07');
    const c = ok(runCli(['sql', '--format', 'csv', 'SELECT project FROM usage'], env), 'sql csv');
    expectNoRawControl(c.stdout.replace(/\r\n/g, '\n'), 'sql csv');
    const j = ok(runCli(['sql', '--format', 'json', 'SELECT project, model FROM usage ORDER BY ts'], env), 'sql json');
    expectNoRawControl(j.stdout, 'sql json');
    expect(JSON.parse(j.stdout)[0]).toEqual({ project: HOSTILE_PROJECT, model: HOSTILE_MODEL });
  });

  it('sources lists the file names and their warnings as visible text', () => {
    const r = ok(runCli(['sources'], env), 'sources');
    expectNoRawControl(r.stdout, 'sources');
    expectNoRawControl(r.stderr, 'sources stderr');
    expect(r.stdout).toContain(`${SEEN.clear}${SEEN.rlo}0badc0de-0000-4000-8000-00000000e5c3.jsonl`);
  });

  it('watch --once: the active sessions table with the project', () => {
    const r = ok(runCli(['watch', '--once'], env), 'watch');
    expectNoRawControl(r.stdout, 'watch');
    expect(r.stdout).toContain('\\x1b');
  });

  it("the status line: stdin's model.display_name and the figures behind it (text and JSON)", () => {
    ok(runCli(['statusline', '--refresh'], env), 'refresh');
    const input = JSON.stringify({
      session_id: '0badc0de-0000-4000-8000-00000000e5c1',
      model: { id: HOSTILE_MODEL, display_name: `Son${'\x1b'}]0;owned${'\x07'}net${CSI8}${RLO}` },
      cost: { total_cost_usd: 0.01 },
    });
    const line = ok(runCli(['statusline'], env, input), 'statusline');
    expect(line.stderr).toBe('');
    expectNoRawControl(line.stdout, 'statusline');
    expect(line.stdout).toContain(`Son\\x1b]0;owned\\x07net\\x9b31m\\u202e`);
    const coloured = ok(runCli(['statusline', '--color'], { ...env, NO_COLOR: '' }, input), 'statusline colour');
    expect(coloured.stdout).toContain('\x1b[36m'); // the model's own colour (cyan)
    expectNoRawControl(coloured.stdout, 'statusline colour', OWN_SGR);
    const j = ok(runCli(['statusline', '--format', 'json'], env, input), 'statusline json');
    expectNoRawControl(j.stdout, 'statusline json');
    expect(JSON.parse(j.stdout).model.display_name).toBe(`Son${'\x1b'}]0;owned${'\x07'}net${CSI8}${RLO}`);
  });
});
