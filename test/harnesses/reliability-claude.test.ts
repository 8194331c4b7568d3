// Bad input for the Claude Code reader: every case yields a warning naming
// the file (and line), the report exits 0, and every other event counts.
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome, CANARY } from '../../fixtures/claude-code/build.js';
import { fuzzLines } from '../../fixtures/fuzz.js';
import { tokenFields } from '../../fixtures/ledger.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { runCliAsNobody } from '../helpers/unprivileged.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];
const CWD = '/home/u/app';

describe('claude-code bad input', () => {
  const home = tempDir('txu-bad-claude-');
  const claude = new ClaudeHome(join(home, '.claude'));
  const good = claude.session({ cwd: CWD });
  good.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 10, output: 20, cacheRead: 30 } });

  const bin = claude.session({ cwd: CWD });
  bin.response({ ts: '2026-10-03T11:00:00.000Z', usage: { input: 1, output: 2 } });
  bin.raw(Buffer.from([0, 1, 2, 0xff, 0xfe, 10]).toString('latin1'));
  bin.raw('\u0000\u0001"usage" \u00ff binary\n');
  bin.response({ ts: '2026-10-03T11:05:00.000Z', usage: { input: 3, output: 4 } });

  const utf = claude.session({ cwd: CWD });
  utf.response({ ts: '2026-10-04T10:00:00.000Z', usage: { input: 5, output: 6 } });

  const big = claude.session({ cwd: CWD });
  big.imageResult('2026-10-05T10:00:00.000Z', 50 * 1024 * 1024);
  big.response({ ts: '2026-10-05T10:01:00.000Z', usage: { input: 7, output: 8 } });

  // Wrong types in every usage field, one per line: counted as 0 with a warning.
  const wrong = claude.session({ cwd: CWD });
  const badValues: unknown[] = ['12', -5, 3.5, 1e300, null];
  let wrongLines = 0;
  for (const field of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']) {
    for (const v of badValues) {
      const usage: Record<string, unknown> = {
        input_tokens: 1,
        output_tokens: 1,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        [field]: v,
      };
      wrong.record({
        type: 'assistant',
        timestamp: '2026-10-06T10:00:00.000Z',
        cwd: CWD,
        uuid: `u${wrongLines}`,
        message: { id: `msg_wrong_${wrongLines}`, model: 'claude-opus-5-5', usage },
      });
      // The ledger counts what a careful reader keeps: the valid fields, null as 0.
      const keep = (f: string) => (f === field ? 0 : f === 'input_tokens' || f === 'output_tokens' ? 1 : 0);
      claude.ledger.add({
        harness: 'claude-code',
        session: wrong.sessionId,
        project: CWD,
        model: 'claude-opus-5-5',
        ts: Date.parse('2026-10-06T10:00:00.000Z'),
        requests: 1,
        input_tokens: keep('input_tokens'),
        output_tokens: keep('output_tokens'),
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      });
      wrongLines++;
    }
  }
  wrong.record({ type: 'record-type-from-the-future', usage: { input_tokens: 999 }, sessionId: wrong.sessionId });

  const projects = join(home, '.claude/projects', CWD.replace(/[^A-Za-z0-9]/g, '-'));
  writeFileSync(join(projects, 'empty-session.jsonl'), '');
  mkdirSync(join(projects, 'a-directory.jsonl'));
  symlinkSync(join(home, 'nowhere.jsonl'), join(projects, 'dangling.jsonl'));

  // Invalid UTF-8 inside a string of a usage line: still parsed, still counted.
  const utfFile = utf.file;
  utf.raw(
    Buffer.concat([
      Buffer.from(
        '{"type":"assistant","timestamp":"2026-10-04T11:00:00.000Z","cwd":"/home/u/app","uuid":"x","message":{"id":"msg_utf","model":"claude-opus-5-5","content":"',
      ),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
      Buffer.from('","usage":{"input_tokens":9,"output_tokens":9}}}\n'),
    ]).toString('latin1'),
  );
  claude.ledger.add({
    harness: 'claude-code',
    session: utf.sessionId,
    project: CWD,
    model: 'claude-opus-5-5',
    ts: Date.parse('2026-10-04T11:00:00.000Z'),
    requests: 1,
    input_tokens: 9,
    output_tokens: 9,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  });

  it('counts every valid event and warns about each bad file', () => {
    const env = cleanEnv(home);
    const r = runCli(['report', ...RANGE, '--format', 'json'], env);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(tokenFields(j.totals)).toEqual(tokenFields(claude.ledger.totals()));
    const w = j.warnings.join('\n');
    expect(w).toContain(`${bin.file}:`); // binary garbage: unparsable lines, named with file and line
    expect(w).toMatch(/unparsable line/);
    expect(w).toContain(`${wrong.file}:1: invalid usage field(s) counted as 0: input_tokens not a number`);
    expect(w).toMatch(/output_tokens negative/);
    expect(w).toMatch(/cache_read_input_tokens not an integer/);
    expect(w).toMatch(/cache_creation_input_tokens implausibly large/);
    expect(w).toContain(join(projects, 'a-directory.jsonl'));
    expect(w).toContain(join(projects, 'dangling.jsonl'));
    expect(w).not.toContain(CANARY);
    console.log(
      `claude-code bad-input cases: ${wrongLines} wrong-typed usage fields, binary garbage, invalid UTF-8, 50 MB line, unknown record type, empty file, directory, dangling symlink`,
    );
  });

  it('warns about a file without read permission (as an unprivileged user)', () => {
    if (process.getuid?.() !== 0) return; // the test drops privileges; only root can
    const h2 = tempDir('txu-perm-');
    chmodSync(h2, 0o755);
    const c2 = new ClaudeHome(join(h2, '.claude'));
    const ok = c2.session({ cwd: CWD });
    ok.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 10, output: 20 } });
    const locked = c2.session({ cwd: CWD });
    locked.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 1000, output: 1000 } });
    const walk = (d: string) => {
      chmodSync(d, 0o755);
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else chmodSync(p, 0o644);
      }
    };
    walk(h2);
    chmodSync(locked.file, 0o000);
    const dbDir = join(h2, 'db');
    mkdirSync(dbDir, { mode: 0o777 });
    chmodSync(dbDir, 0o777);
    const env = { ...cleanEnv(h2), XDG_CACHE_HOME: dbDir };
    const r = runCliAsNobody(['report', ...RANGE, '--format', 'json'], env, h2);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    // Warnings go to stderr in every format (issue 35): exactly the JSON's.
    expect(r.stderr).toBe(j.warnings.map((w: string) => `warning: ${w}\n`).join(''));
    expect(j.totals.input_tokens).toBe(10);
    expect(j.warnings.join('\n')).toContain(`${locked.file}: cannot read: permission denied`);
  });
});

describe('claude-code fuzz', () => {
  it('survives 10,000 mutated lines: no crash, no hang, no negative or NaN totals', () => {
    const home = tempDir('txu-fuzz-claude-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: CWD });
    s.user('2026-10-10T09:00:00.000Z');
    for (let i = 0; i < 20; i++)
      s.response({
        ts: `2026-10-10T10:${String(i).padStart(2, '0')}:00.000Z`,
        splits: 2,
        usage: { input: i, output: 10 * i, cacheRead: 100, cacheWrite5m: 5, cacheWrite1h: 7, thinking: i },
      });
    s.costState(2);
    s.apiError('2026-10-10T11:00:00.000Z');
    const valid = [...s.written.values()].flat();
    const seed = 424242;
    const lines = fuzzLines(valid, 10_000, seed);
    const files = 10;
    for (let f = 0; f < files; f++) {
      const t = claude.session({ cwd: CWD });
      t.raw(Buffer.from(lines.slice(f * 1000, (f + 1) * 1000).join('\n') + '\n', 'latin1').toString('latin1'));
    }
    const r = runCli(
      ['report', '--since', '2026-01-01', '--until', '2026-12-31', '--by', 'model,day', '--format', 'json'],
      cleanEnv(home),
    );
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const row of [...j.rows, j.totals]) {
      for (const k of [
        'requests',
        'input_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'output_tokens',
        'reasoning_tokens',
        'total_tokens',
      ]) {
        expect(Number.isInteger(row[k]), k).toBe(true);
        expect(row[k]).toBeGreaterThanOrEqual(0);
      }
      expect(row.total_tokens).toBe(
        row.input_tokens + row.cache_read_tokens + row.cache_write_tokens + row.output_tokens,
      );
    }
    // The valid originals are all still there (mutations can only add responses under new ids or repeat old ones).
    expect(j.totals.requests).toBeGreaterThanOrEqual(20);
    console.log(
      `claude-code fuzz: ${lines.length} mutated lines (seed ${seed}) in ${files} files, ${j.totals.requests} responses counted, ${j.warnings.length} warnings`,
    );
  });
});
