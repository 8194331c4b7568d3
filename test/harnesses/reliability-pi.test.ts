// Bad input for the Pi reader, end to end through the CLI: each case is a
// warning naming the file (and line), the report exits 0, and every other
// billed usage still counts exactly. Plus a 10,000-line fuzz.
import { appendFileSync, chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fuzzLines } from '../../fixtures/fuzz.js';
import { Ledger } from '../../fixtures/ledger.js';
import { buildTree, sessionsDir, SONNET, totalsOf } from '../../fixtures/pi/scenarios.js';
import { Ledger as PiLedger, PiSession, randomUsage, rng } from '../../fixtures/pi/session.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { openUp, runCliAsNobody } from '../helpers/unprivileged.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-01-31'];
const METRICS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
] as const;
type M = Record<(typeof METRICS)[number], number>;
const metrics = (r: any): M => Object.fromEntries(METRICS.map((m) => [m, r[m]])) as M;
const add = (a: M, b: M): M => Object.fromEntries(METRICS.map((m) => [m, a[m] + b[m]])) as M;

class Home {
  readonly home = tempDir('txu-bad-pi-');
  readonly agentDir = join(this.home, '.pi', 'agent');
  readonly billed = new PiLedger();
  /** Raw lines written by hand, normalized by hand (the contract's rules applied to what was written). */
  readonly extra = new Ledger();
  private n = 0;

  session(cwd = `/home/dev/p${++this.n}`, day = 3): PiSession {
    const s = new PiSession({
      dir: sessionsDir(this.agentDir, cwd),
      cwd,
      start: Date.UTC(2026, 0, day, 9, 0, 0),
      ledger: this.billed,
      seed: 500 + this.n,
    });
    s.modelChange(SONNET[1], SONNET[0]);
    s.user('hello');
    return s;
  }

  expected(): M {
    return add(metrics(totalsOf(this.billed.rows)), metrics(this.extra.totals()));
  }
}

/** An assistant entry written by hand (v3 envelope), with the given usage object. */
function assistantLine(id: string, ts: string, usage: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId: null,
    timestamp: ts,
    message: {
      role: 'assistant',
      provider: SONNET[1],
      model: SONNET[0],
      content: [{ type: 'text', text: 'ok' }],
      usage,
      stopReason: 'stop',
      timestamp: Date.parse(ts),
      ...extra,
    },
  });
}

function reportOk(h: Home): any {
  const r = runCli(['report', ...RANGE, '--harness', 'pi', '--format', 'json'], cleanEnv(h.home));
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(r.stdout);
}

describe('pi bad input', () => {
  const h = new Home();
  const r = rng(7);
  const good = h.session();
  good.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
  good.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r, { reasoning: true, cache1h: true }) });
  const goodFile = good.write();

  // Torn final line.
  const torn = h.session();
  torn.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
  const tornFile = torn.write();
  appendFileSync(
    tornFile,
    '{"type":"message","id":"70770001","parentId":null,"timestamp":"2026-01-03T10:00:00.000Z","message":{"role":"assistant","usage":{"input":5',
  );

  // Binary garbage mid-file, with and without a usage marker, an entry on either side.
  const bin = h.session();
  bin.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
  const binFile = bin.write();
  appendFileSync(
    binFile,
    Buffer.concat([
      Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10]),
      Buffer.from('\u0000"usage" \u00ff binary\n', 'latin1'),
    ]),
  );
  appendFileSync(
    binFile,
    assistantLine('b1000001', '2026-01-03T11:00:00.000Z', {
      input: 11,
      output: 12,
      cacheRead: 13,
      cacheWrite: 14,
      totalTokens: 50,
    }) + '\n',
  );
  h.extra.add({
    harness: 'pi',
    session: bin.sessionId,
    project: bin.cwd,
    model: SONNET[0],
    ts: Date.parse('2026-01-03T11:00:00.000Z'),
    requests: 1,
    input_tokens: 11,
    cache_read_tokens: 13,
    cache_write_tokens: 14,
    output_tokens: 12,
    reasoning_tokens: 0,
  });

  // 50 MB lines: an inline image (no usage marker: never parsed) and a tool result WITH usage (parsed, counted).
  const big = h.session();
  big.user('look', 50 * 1024 * 1024);
  big.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r), toolCalls: 1 });
  big.toolResult({ usage: randomUsage(r), output: 'y'.repeat(50 * 1024 * 1024) });
  const bigFile = big.write();

  // Invalid UTF-8 inside a string of a usage line: still parsed, still counted.
  const utf = h.session('/home/dev/utf');
  const utfFile = utf.write();
  const [pre, post] = assistantLine('u7f80001', '2026-01-03T12:00:00.000Z', {
    input: 21,
    output: 22,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 43,
  }).split('"text":"ok"');
  appendFileSync(
    utfFile,
    Buffer.concat([
      Buffer.from(pre + '"text":"'),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff]),
      Buffer.from('"' + post + '\n'),
    ]),
  );
  h.extra.add({
    harness: 'pi',
    session: utf.sessionId,
    project: '/home/dev/utf',
    model: SONNET[0],
    ts: Date.parse('2026-01-03T12:00:00.000Z'),
    requests: 1,
    input_tokens: 21,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 22,
    reasoning_tokens: 0,
  });

  // Wrong types in every usage field (null = absent = 0).
  const wrong = h.session('/home/dev/wrong');
  const wrongFile = wrong.write();
  const FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning'] as const;
  const BAD: unknown[] = ['12', -5, 3.5, 1e300, null];
  const base: Record<string, number> = {
    input: 100,
    output: 50,
    cacheRead: 1000,
    cacheWrite: 40,
    cacheWrite1h: 10,
    reasoning: 20,
  };
  let wrongCases = 0;
  const lines: string[] = [];
  for (const f of FIELDS) {
    for (const v of BAD) {
      const usage = {
        ...base,
        [f]: v,
        totalTokens: 1190,
        cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
      };
      const ts = new Date(Date.UTC(2026, 0, 4, 10, 0, wrongCases)).toISOString();
      lines.push(assistantLine(`3a${wrongCases.toString(16).padStart(6, '0')}`, ts, usage));
      const k = (name: string) => (name === f ? 0 : base[name]!);
      h.extra.add({
        harness: 'pi',
        session: wrong.sessionId,
        project: '/home/dev/wrong',
        model: SONNET[0],
        ts: Date.parse(ts),
        requests: 1,
        input_tokens: k('input'),
        cache_read_tokens: k('cacheRead'),
        cache_write_tokens: k('cacheWrite'),
        output_tokens: k('output'),
        reasoning_tokens: Math.min(k('reasoning'), k('output')),
      });
      wrongCases++;
    }
  }
  // A cost of the wrong type: tokens still counted, cost not recorded.
  lines.push(
    assistantLine('3c000001', '2026-01-04T11:00:00.000Z', {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      cost: { total: 'free' },
    }),
  );
  h.extra.add({
    harness: 'pi',
    session: wrong.sessionId,
    project: '/home/dev/wrong',
    model: SONNET[0],
    ts: Date.parse('2026-01-04T11:00:00.000Z'),
    requests: 1,
    input_tokens: 1,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 1,
    reasoning_tokens: 0,
  });
  // usage that is not an object: warned, not counted.
  lines.push(assistantLine('3c000002', '2026-01-04T11:01:00.000Z', 'lots'));
  // Entry types the contract does not know (one even carries a usage object): not counted.
  lines.push(
    JSON.stringify({
      type: 'future_entry_type',
      id: 'f0000001',
      parentId: null,
      timestamp: '2026-01-04T11:02:00.000Z',
      usage: { input: 999999, output: 1 },
    }),
  );
  lines.push(
    JSON.stringify({
      type: 'message',
      id: 'f0000002',
      parentId: null,
      timestamp: '2026-01-04T11:03:00.000Z',
      message: { role: 'future-role', usage: { input: 888888 } },
    }),
  );
  appendFileSync(wrongFile, lines.join('\n') + '\n');

  // Empty file, a directory named like a session, a dangling symlink.
  const dir = sessionsDir(h.agentDir, '/home/dev/odd');
  mkdirSync(dir, { recursive: true });
  const emptyFile = join(dir, '2026-01-05T09-00-00-000Z_0000aaaa-0000-7000-8000-000000000001.jsonl');
  writeFileSync(emptyFile, '');
  const dirFile = join(dir, '2026-01-05T09-00-00-000Z_0000aaaa-0000-7000-8000-000000000002.jsonl');
  mkdirSync(dirFile);
  const dangling = join(dir, '2026-01-05T09-00-00-000Z_0000aaaa-0000-7000-8000-000000000003.jsonl');
  symlinkSync(join(h.home, 'nowhere.jsonl'), dangling);

  it('counts every valid usage and warns about each bad file by name and line', () => {
    const j = reportOk(h);
    expect(metrics(j.totals)).toEqual(h.expected());
    const w: string = j.warnings.join('\n');
    expect(w).toMatch(new RegExp(`${esc(tornFile)}:\\d+: incomplete final line`));
    expect(w).toMatch(new RegExp(`${esc(binFile)}:\\d+: \\d+ unparsable lines? skipped`));
    for (const f of FIELDS) {
      expect(w).toMatch(
        new RegExp(`${esc(wrongFile)}:\\d+: invalid usage field\\(s\\) counted as 0: ${f} not a number`),
      );
      for (const why of ['negative', 'not an integer', 'implausibly large'])
        expect(w).toMatch(new RegExp(`${f} ${why}`));
    }
    expect(w).toMatch(new RegExp(`${esc(wrongFile)}:\\d+: usage.cost.total is not a valid USD amount`));
    expect(w).toMatch(new RegExp(`${esc(wrongFile)}:\\d+: response: usage is not an object; not counted`));
    expect(w).toContain(`${dirFile}: cannot read directory: is a directory`);
    expect(w).toContain(`${dangling}: cannot read: not found`);
    for (const f of [goodFile, bigFile, utfFile, emptyFile]) expect(w, f).not.toContain(`${f}:`);
    console.log(
      `pi bad-input cases: ${wrongCases} wrong-typed usage fields, wrong-typed cost, non-object usage, 2 unknown entry types, torn tail, binary garbage, 50 MB image line, 50 MB usage line, invalid UTF-8, empty file, directory, dangling symlink; ${j.totals.requests} usages counted`,
    );
  });

  it('the torn line is counted once it is complete (next run)', () => {
    expect(metrics(reportOk(h).totals)).toEqual(h.expected());
    appendFileSync(
      tornFile,
      ',"output":6,"cacheRead":0,"cacheWrite":0,"totalTokens":11},"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1767434400000}}\n',
    );
    h.extra.add({
      harness: 'pi',
      session: torn.sessionId,
      project: torn.cwd,
      model: SONNET[0],
      ts: Date.parse('2026-01-03T10:00:00.000Z'),
      requests: 1,
      input_tokens: 5,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 6,
      reasoning_tokens: 0,
    });
    const j = reportOk(h);
    expect(metrics(j.totals)).toEqual(h.expected());
    expect(j.warnings.join('\n')).not.toContain(`${tornFile}:`);
    console.log(`pi torn tail: left for the next run, counted once complete (${j.totals.requests} usages)`);
  });

  it('warns about a file without read permission (as an unprivileged user)', () => {
    if (process.getuid?.() !== 0) return;
    const h2 = new Home();
    const ok = h2.session();
    ok.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(rng(8)) });
    ok.write();
    const expected = metrics(totalsOf(h2.billed.rows));
    const locked = h2.session();
    locked.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(rng(9)) });
    const lockedFile = locked.write();
    openUp(h2.home);
    chmodSync(lockedFile, 0o000);
    const cache = join(h2.home, 'cache');
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    const res = runCliAsNobody(
      ['report', ...RANGE, '--harness', 'pi', '--format', 'json'],
      { ...cleanEnv(h2.home), XDG_CACHE_HOME: cache },
      h2.home,
    );
    expect(res.status, res.stderr).toBe(0);
    const j = JSON.parse(res.stdout);
    expect(metrics(j.totals)).toEqual(expected);
    expect(j.warnings.join('\n')).toContain(`${lockedFile}: cannot read: permission denied`);
    console.log('pi unreadable file (uid 65534): 1 warning, the other session exact');
  });
});

describe('pi fuzz', () => {
  it('survives 10,000 mutated lines: no crash, no hang, no negative or NaN totals', () => {
    const h = new Home();
    // Valid lines: the branched tree fixture with every usage carrier and its copies.
    const src = tempDir('txu-pi-fuzz-src-');
    const tree = buildTree(join(src, 'agent'));
    const valid = [tree.main, tree.fork, tree.clone, tree.moved].flatMap((s) =>
      readFileSync(s.path, 'utf8').split('\n').filter(Boolean),
    );
    const seed = 626262;
    const lines = fuzzLines(valid, 10_000, seed);
    const files = 10;
    for (let f = 0; f < files; f++) {
      const dir = sessionsDir(h.agentDir, `/home/dev/fuzz${f % 3}`);
      mkdirSync(dir, { recursive: true });
      // Half the files start with a valid header, half straight with mutated lines.
      const head = f % 2 ? '' : readFileSync(tree.main.path, 'utf8').split('\n')[0] + '\n';
      writeFileSync(
        join(dir, `2026-01-1${f % 10}T09-00-00-000Z_0000f0zz-0000-7000-8000-${String(f).padStart(12, '0')}.jsonl`),
        Buffer.concat([
          Buffer.from(head),
          Buffer.from(lines.slice(f * 1000, (f + 1) * 1000).join('\n') + '\n', 'latin1'),
        ]),
      );
    }
    const started = Date.now();
    const r = runCli(
      [
        'report',
        '--since',
        '2000-01-01',
        '--until',
        '2099-12-31',
        '--harness',
        'pi',
        '--by',
        'model,day',
        '--format',
        'json',
      ],
      cleanEnv(h.home),
    );
    const ms = Date.now() - started;
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const row of [...j.rows, j.totals]) {
      for (const k of METRICS) {
        expect(Number.isInteger(row[k]), `${k}=${row[k]}`).toBe(true);
        expect(row[k]).toBeGreaterThanOrEqual(0);
      }
      expect(row.total_tokens).toBe(
        row.input_tokens + row.cache_read_tokens + row.cache_write_tokens + row.output_tokens,
      );
      if (row.cost_usd !== null) expect(Number.isFinite(row.cost_usd) && row.cost_usd >= 0).toBe(true);
    }
    expect(j.totals.requests).toBeGreaterThan(0);
    console.log(
      `pi fuzz: ${lines.length} mutated lines (seed ${seed}) from ${valid.length} valid ones in ${files} files, ${j.totals.requests} usages counted, ${j.warnings.length} warnings, ${ms} ms`,
    );
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
