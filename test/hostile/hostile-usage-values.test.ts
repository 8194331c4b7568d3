// Issue 35: a token count written as null and a usage value that is not an
// object get the warning every other invalid value gets, by file and line (or
// row), in every harness that records usage (fixtures/bad-usage-values.ts).
// Before, a null count passed as 0 without a word, and a usage of null, a
// string or a list was passed over (Claude Code counted a list as a response
// of 0 tokens; a Codex total with a null count moved the cumulative total).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBadUsageValues, BAD_USAGE_DAY, type BadUsageFiles } from '../../fixtures/bad-usage-values.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

describe('null token counts and usage values that are not objects', () => {
  let dir: string;
  let files: BadUsageFiles;
  let report: { rows: Record<string, number | string>[]; warnings: string[] };
  let stderr: string;

  beforeAll(() => {
    dir = tempDir('txu-bad-usage-');
    const home = join(dir, 'home');
    files = addBadUsageValues(home);
    const r = runCli(
      ['report', '--since', BAD_USAGE_DAY, '--until', BAD_USAGE_DAY, '--by', 'harness', '--format', 'json'],
      cleanEnv(home),
    );
    expect(r.status, r.stderr).toBe(0);
    report = JSON.parse(r.stdout);
    stderr = r.stderr;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const warned = (text: string) => {
    expect(report.warnings, text).toContain(text);
    expect(stderr).toContain(`warning: ${text}\n`);
  };

  it('Claude Code: a null count is named and counts 0; usage null, a string or a list is named and not counted', () => {
    warned(`${files.claude}:2: invalid usage field(s) counted as 0: input_tokens null`);
    warned(`${files.claude}:3: message.usage is null, not an object; response not counted`);
    warned(`${files.claude}:4: message.usage is a string, not an object; response not counted`);
    warned(`${files.claude}:5: message.usage is a list, not an object; response not counted`);
    // Lines 1 (10 in, 20 out) and 2 (null in, 7 out).
    expect(report.rows.find((r) => r.harness === 'claude-code')).toMatchObject({
      requests: 2,
      input_tokens: 10,
      output_tokens: 27,
      cache_read_tokens: 0,
    });
  });

  it('Codex: a record whose usage is null or a string, a token_count whose info or total is not an object, a total with a null count', () => {
    warned(`${files.codex}:10: token_usage_record usage is null, not an object; not counted`);
    warned(`${files.codex}:11: token_usage_record usage is a string, not an object; not counted`);
    warned(`${files.codex}:12: token_count info is a string, not an object; not counted`);
    warned(`${files.codexLegacy}:6: cumulative total with invalid field(s) ignored: input_tokens null`);
    warned(`${files.codexLegacy}:7: token_count info.total_token_usage is a list, not an object; not counted`);
    // The one good response (100 in, 10 out); the legacy file's totals are not counted.
    expect(report.rows.find((r) => r.harness === 'codex')).toMatchObject({
      requests: 1,
      input_tokens: 100,
      output_tokens: 10,
    });
  });

  it('Pi: a null count is named and counts 0 (a usage that is not an object was named already)', () => {
    warned(`${files.pi}:2: invalid usage field(s) counted as 0: input null`);
    warned(`${files.pi}:3: response: usage is not an object; not counted`);
    expect(report.rows.find((r) => r.harness === 'pi')).toMatchObject({
      requests: 1,
      input_tokens: 0,
      output_tokens: 3,
    });
  });

  it('OpenCode: tokens null and a null count in them are named; each completed step is a request', () => {
    const oc = report.warnings.filter((w) => w.startsWith(`${files.opencode} (session_message `));
    expect(oc.map((w) => w.replace(/\(session_message [^)]*\)/, '(row)'))).toEqual([
      `${files.opencode} (row): data.tokens is null, not an object; its tokens count as 0`,
      `${files.opencode} (row): invalid usage field(s) counted as 0: data.tokens.input null`,
    ]);
    expect(report.rows.find((r) => r.harness === 'opencode')).toMatchObject({
      requests: 2,
      input_tokens: 0,
      output_tokens: 2,
    });
  });
});
