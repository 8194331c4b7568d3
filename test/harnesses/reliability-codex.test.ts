// Bad input for the Codex reader, end to end through the CLI: each case is a
// warning naming the file (and line), the report exits 0, and every other
// response still counts exactly. Plus .jsonl.zst damage (truncated frame,
// wrong magic, a frame of garbage, a zip bomb) and a 10,000-line fuzz.
import { appendFileSync, chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { id, rolloutName, sessionsPath, zstdCompress } from '../../fixtures/codex/home.js';
import { Ledger as CodexLedger, METRICS, type Totals } from '../../fixtures/codex/ledger.js';
import { randomUsage, rng, RolloutWriter } from '../../fixtures/codex/rollout.js';
import { fuzzLines } from '../../fixtures/fuzz.js';
import { Ledger } from '../../fixtures/ledger.js';
import { rleBombFrame } from '../../fixtures/zstd-bomb.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { openUp, runCliAsNobody } from '../helpers/unprivileged.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-01-31'];
const T = (day: number, h = 9) => Date.UTC(2026, 0, day, h, 0, 0);
const zstd = createRequire(import.meta.url)('zstd-napi') as { compress(b: Buffer): Buffer };

const metrics = (r: any): Totals => Object.fromEntries(METRICS.map((m) => [m, r[m]])) as unknown as Totals;
const add = (a: Totals, b: Totals): Totals =>
  Object.fromEntries(METRICS.map((m) => [m, a[m] + b[m]])) as unknown as Totals;

/** A Codex home under construction: rollouts billed in `billed` (builder's view) plus hand-normalized ones in `extra`. */
class Home {
  readonly home = tempDir('txu-bad-codex-');
  readonly codexHome = join(this.home, '.codex');
  readonly billed = new CodexLedger();
  readonly extra = new Ledger();
  private n = 0;

  writer(day: number, project = `/proj/p${this.n}`): RolloutWriter {
    const w = new RolloutWriter({
      threadId: id(0x5000 + ++this.n),
      start: T(day),
      paginated: true,
      label: `bad${this.n}`,
      project,
      ledger: this.billed,
    });
    return w.sessionMeta().turn('gpt-5-codex', project);
  }

  path(w: RolloutWriter, zst = false): string {
    const p = sessionsPath(this.codexHome, w.o.start, rolloutName(w.o.start, w.o.threadId) + (zst ? '.zst' : ''));
    mkdirSync(dirname(p), { recursive: true });
    return p;
  }

  write(w: RolloutWriter, tail = ''): string {
    const p = this.path(w);
    writeFileSync(p, w.text() + tail);
    return p;
  }

  expected(filter?: (project: string) => boolean): Totals {
    const a = this.billed.total(filter ? (r) => filter(r.project) : undefined);
    const b = this.extra.totals();
    return filter ? a : add(a, metrics(b));
  }
}

function reportOk(h: Home, extra: string[] = []): any {
  const r = runCli(['report', ...RANGE, '--harness', 'codex', '--format', 'json', ...extra], cleanEnv(h.home));
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/\n\s+at /); // never a stack trace
  return JSON.parse(r.stdout);
}

describe('codex bad input', () => {
  const h = new Home();
  const good = h.writer(3);
  good
    .response(randomUsage(rng(1)))
    .response(randomUsage(rng(2)), { record: 'before' })
    .endTurn();
  const goodFile = h.write(good);

  // Torn final line: the complete lines count, the fragment waits for the next run.
  const torn = h.writer(4);
  torn.response(randomUsage(rng(3)));
  const tornFile = h.write(
    torn,
    '{"timestamp":"2026-01-04T09:10:00.000Z","type":"token_usage_record","payload":{"usage":{"input_tokens":5',
  );

  // Binary garbage mid-file (with and without a usage marker), responses on both sides.
  const bin = h.writer(5);
  bin.response(randomUsage(rng(4)));
  bin.rawLine(Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]).toString('latin1'));
  bin.rawLine('\u0000\u0001"token_count" \u00ff\u00fe binary');
  bin.response(randomUsage(rng(5)), { record: 'before' });
  const binFile = h.write(bin);

  // A 50 MB line with a usage marker (it is parsed) and a 50 MB image line (it is not).
  const big = h.writer(6);
  big.line('response_item', {
    type: 'function_call_output',
    call_id: 'c',
    output: '"token_count" ' + 'x'.repeat(50 * 1024 * 1024),
  });
  big.response(randomUsage(rng(6)));
  big.imageLine(50 * 1024 * 1024);
  big.response(randomUsage(rng(7)), { record: 'before' });
  const bigFile = h.write(big);

  // Invalid UTF-8 inside a string of a usage record: still parsed, still counted.
  const utf = h.writer(7, '/proj/utf');
  const utfFile = h.path(utf);
  writeFileSync(
    utfFile,
    Buffer.concat([
      Buffer.from(utf.text()),
      Buffer.from(`{"timestamp":"2026-01-07T09:30:00.000Z","type":"token_usage_record","payload":{"turn_id":"`),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff]),
      Buffer.from(
        `","response_id":"resp_utf","usage":{"input_tokens":900,"cached_input_tokens":100,"cache_write_input_tokens":0,"output_tokens":40,"reasoning_output_tokens":4,"total_tokens":940}}}\n`,
      ),
    ]),
  );
  h.extra.add({
    harness: 'codex',
    session: utf.o.threadId,
    project: '/proj/utf',
    model: 'gpt-5-codex',
    ts: Date.parse('2026-01-07T09:30:00.000Z'),
    requests: 1,
    input_tokens: 800,
    cache_read_tokens: 100,
    cache_write_tokens: 0,
    output_tokens: 40,
    reasoning_tokens: 4,
  });

  // Wrong types in every usage field of a token_usage_record: that field counts as 0 (null = absent = 0).
  const wrong = h.writer(8, '/proj/wrong');
  const FIELDS = [
    'input_tokens',
    'cached_input_tokens',
    'cache_write_input_tokens',
    'output_tokens',
    'reasoning_output_tokens',
    'total_tokens',
  ] as const;
  const BAD: unknown[] = ['12', -5, 3.5, 1e300, null];
  const base = {
    input_tokens: 1000,
    cached_input_tokens: 300,
    cache_write_input_tokens: 100,
    output_tokens: 50,
    reasoning_output_tokens: 20,
    total_tokens: 1050,
  };
  let wrongCases = 0;
  for (const f of FIELDS) {
    for (const v of BAD) {
      const usage: Record<string, unknown> = { ...base, [f]: v };
      const ts = T(8, 10) + wrongCases * 1000;
      wrong.line(
        'token_usage_record',
        { thread_id: wrong.o.threadId, turn_id: wrong.turnId, response_id: `resp_wrong_${wrongCases}`, usage },
        ts,
      );
      // The contract's normalization of what a careful reader keeps.
      const k = (name: string) => (name === f ? 0 : (base as Record<string, number>)[name]!);
      const output = k('output_tokens');
      h.extra.add({
        harness: 'codex',
        session: wrong.o.threadId,
        project: '/proj/wrong',
        model: 'gpt-5-codex',
        ts,
        requests: 1,
        input_tokens: Math.max(0, k('input_tokens') - k('cached_input_tokens') - k('cache_write_input_tokens')),
        cache_read_tokens: k('cached_input_tokens'),
        cache_write_tokens: k('cache_write_input_tokens'),
        output_tokens: output,
        reasoning_tokens: Math.min(k('reasoning_output_tokens'), output),
      });
      wrongCases++;
    }
  }
  // A cumulative token_count with wrong-typed totals: ignored with a warning, later totals unaffected.
  wrong.line('event_msg', {
    type: 'token_count',
    info: {
      total_token_usage: { input_tokens: '999', cached_input_tokens: -1, output_tokens: 1.5, total_tokens: 'x' },
    },
  });
  // Record types and event types the contract does not know.
  wrong.line('future_record_type', {
    type: 'token_count',
    info: { total_token_usage: { input_tokens: 777777, output_tokens: 1, total_tokens: 777778 } },
  });
  wrong.line('event_msg', { type: 'token_count_v9', usage: { input_tokens: 5 } });
  const wrongFile = h.write(wrong);

  // Empty file, a directory named like a rollout, a dangling symlink.
  const dayDir = dirname(sessionsPath(h.codexHome, T(9), 'x'));
  mkdirSync(dayDir, { recursive: true });
  const emptyFile = join(dayDir, rolloutName(T(9), id(0x6001)));
  writeFileSync(emptyFile, '');
  const dirFile = join(dayDir, rolloutName(T(9), id(0x6002)));
  mkdirSync(dirFile);
  const dangling = join(dayDir, rolloutName(T(9), id(0x6003)));
  symlinkSync(join(h.home, 'nowhere.jsonl'), dangling);

  it('counts every valid response and warns about each bad file by name and line', () => {
    const j = reportOk(h);
    expect(metrics(j.totals)).toEqual(h.expected());
    const w: string = j.warnings.join('\n');
    expect(w).toMatch(new RegExp(`${esc(tornFile)}:\\d+: incomplete final line`));
    expect(w).toMatch(new RegExp(`${esc(binFile)}:\\d+: \\d+ unparsable lines? skipped`));
    expect(w).toContain(`${wrongFile}:`);
    for (const f of FIELDS) {
      expect(w).toMatch(
        new RegExp(`${esc(wrongFile)}:\\d+: invalid usage field\\(s\\) counted as 0: ${f} not a number`),
      );
      expect(w).toMatch(new RegExp(`${f} negative`));
      expect(w).toMatch(new RegExp(`${f} not an integer`));
      expect(w).toMatch(new RegExp(`${f} implausibly large`));
    }
    expect(w).toMatch(new RegExp(`${esc(wrongFile)}:\\d+: cumulative total with invalid field\\(s\\) ignored`));
    expect(w).toContain(`${dirFile}: cannot read directory: is a directory`);
    expect(w).toContain(`${dangling}: cannot read: not found`);
    for (const f of [goodFile, bigFile, utfFile, emptyFile]) expect(w, f).not.toContain(`${f}:`);
    console.log(
      `codex bad-input cases: ${wrongCases} wrong-typed usage fields, torn tail, binary garbage, 50 MB marker line, 50 MB image line, invalid UTF-8, wrong-typed cumulative total, 2 unknown record types, empty file, directory, dangling symlink; ${j.totals.requests} responses counted`,
    );
  });

  it('the torn line is counted once it is complete (next run)', () => {
    const again = reportOk(h);
    expect(metrics(again.totals)).toEqual(h.expected());
    // Complete the torn record: it becomes one more response.
    appendFileSync(
      tornFile,
      ',"cached_input_tokens":0,"output_tokens":6,"reasoning_output_tokens":0,"total_tokens":11},"response_id":"resp_torn"}}\n',
    );
    h.extra.add({
      harness: 'codex',
      session: torn.o.threadId,
      project: torn.o.project,
      model: 'gpt-5-codex',
      ts: Date.parse('2026-01-04T09:10:00.000Z'),
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
    console.log(`codex torn tail: left for the next run, counted once complete (${j.totals.requests} responses)`);
  });

  it('warns about a file without read permission (as an unprivileged user)', () => {
    if (process.getuid?.() !== 0) return; // dropping privileges needs root
    const h2 = new Home();
    const ok = h2.writer(3);
    ok.response(randomUsage(rng(11)));
    h2.write(ok);
    const locked = h2.writer(4);
    locked.response(randomUsage(rng(12)));
    const lockedFile = h2.write(locked);
    openUp(h2.home);
    chmodSync(lockedFile, 0o000);
    const cache = join(h2.home, 'cache');
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    const r = runCliAsNobody(
      ['report', ...RANGE, '--harness', 'codex', '--format', 'json'],
      { ...cleanEnv(h2.home), XDG_CACHE_HOME: cache },
      h2.home,
    );
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(metrics(j.totals)).toEqual(h2.billed.total((b) => b.file === ok.o.label));
    expect(j.warnings.join('\n')).toContain(`${lockedFile}: cannot read: permission denied`);
    console.log('codex unreadable file (uid 65534): 1 warning, the other rollout exact');
  });
});

describe('codex .jsonl.zst damage', () => {
  const h = new Home();
  const good = h.writer(3, '/proj/good');
  good.response(randomUsage(rng(21))).response(randomUsage(rng(22)), { record: 'before' });
  const goodZst = h.path(good, true);
  writeFileSync(goodZst, zstdCompress(good.text()));

  // Truncated: a multi-block frame cut in half. What decoded before the cut may count; nothing else.
  const truncSrc = new RolloutWriter({
    threadId: id(0x7001),
    start: T(4),
    paginated: true,
    label: 'trunc',
    project: '/proj/trunc',
    ledger: new CodexLedger(),
  });
  truncSrc.sessionMeta().turn('gpt-5-codex', '/proj/trunc');
  for (let i = 0; i < 400; i++) truncSrc.response(randomUsage(rng(100 + i)));
  const truncFrame = zstdCompress(truncSrc.text());
  const truncFile = h.path(truncSrc, true);
  writeFileSync(truncFile, truncFrame.subarray(0, Math.floor(truncFrame.length / 2)));

  // Wrong magic: a real frame whose first byte is changed.
  const magic = new RolloutWriter({
    threadId: id(0x7002),
    start: T(5),
    paginated: true,
    label: 'magic',
    project: '/proj/magic',
    ledger: new CodexLedger(),
  });
  magic
    .sessionMeta()
    .turn('gpt-5-codex', '/proj/magic')
    .response(randomUsage(rng(31)));
  const magicFrame = zstdCompress(magic.text());
  magicFrame[0] = 0x29;
  const magicFile = h.path(magic, true);
  writeFileSync(magicFile, magicFrame);

  // A valid frame whose content is garbage (random bytes, newlines and usage markers).
  const garbageFile = h.path(
    new RolloutWriter({
      threadId: id(0x7003),
      start: T(6),
      paginated: true,
      label: 'g',
      project: '/g',
      ledger: new CodexLedger(),
    }),
    true,
  );
  const r = rng(41);
  const noise = Array.from(
    { length: 2000 },
    () =>
      (r() < 0.3 ? '"token_count" {"payload":' : '') +
      Buffer.from(Array.from({ length: 40 }, () => Math.floor(r() * 256))).toString('latin1'),
  ).join('\n');
  writeFileSync(garbageFile, zstd.compress(Buffer.from(noise, 'latin1')));

  // Zip bomb: real records in raw blocks, then 5 GiB of RLE output (file ~170 KB), past the default 4 GiB cap.
  const bombSrc = new RolloutWriter({
    threadId: id(0x7004),
    start: T(7),
    paginated: true,
    label: 'bomb',
    project: '/proj/bomb',
    ledger: h.billed,
  });
  bombSrc
    .sessionMeta()
    .turn('gpt-5-codex', '/proj/bomb')
    .response(randomUsage(rng(51)))
    .response(randomUsage(rng(52)), { record: 'before' });
  const bomb = rleBombFrame(bombSrc.text(), 5 * 1024 ** 3);
  const bombFile = h.path(bombSrc, true);
  writeFileSync(bombFile, bomb.frame);

  it('each damaged file is a warning naming it; all other responses count exactly', () => {
    const started = Date.now();
    const j = reportOk(h, ['--by', 'project']);
    const ms = Date.now() - started;
    const byProject = new Map<string, any>(j.rows.map((x: any) => [x.project, x]));
    // Exact for every project but the truncated one (the bomb's records before the bomb count).
    for (const p of ['/proj/good', '/proj/bomb'])
      expect(metrics(byProject.get(p)), p).toEqual(h.billed.total((b) => b.project === p));
    expect(byProject.has('/proj/magic')).toBe(false);
    // The truncated file: a prefix of its 400 responses at most.
    const t = byProject.get('/proj/trunc');
    if (t) {
      expect(t.requests).toBeLessThan(400);
      expect(metrics(t)).toEqual(
        truncSrc.o.ledger.total((b) => b.ts <= truncSrc.o.ledger.responses[t.requests - 1]!.ts),
      );
    }
    const w: string = j.warnings.join('\n');
    expect(w).toMatch(new RegExp(`${esc(truncFile)}: truncated zstd frame|${esc(truncFile)}: corrupt zstd data`));
    expect(w).toMatch(new RegExp(`${esc(magicFile)}: corrupt zstd data`));
    expect(w).toMatch(new RegExp(`${esc(garbageFile)}:\\d+: \\d+ unparsable lines? skipped`));
    expect(w).toMatch(
      new RegExp(`${esc(bombFile)}: decompressed size exceeds 4294967296 bytes; rest of the file skipped`),
    );
    expect(w).not.toContain(`${goodZst}:`);
    console.log(
      `codex .jsonl.zst cases: truncated frame (${t?.requests ?? 0} of 400 responses before the cut), wrong magic, garbage frame, bomb of ${bomb.frame.length} bytes → ${bomb.decompressedBytes} bytes (stopped at the 4 GiB cap) in ${ms} ms`,
    );
  });
});

describe('codex fuzz', () => {
  it('survives 10,000 mutated lines: no crash, no hang, no negative or NaN totals', () => {
    const h = new Home();
    const src = new RolloutWriter({
      threadId: id(0x8001),
      start: T(10),
      paginated: true,
      label: 'fuzz-src',
      project: '/proj/fuzz',
      ledger: new CodexLedger(),
    });
    src.sessionMeta().turn('gpt-5-codex', '/proj/fuzz');
    for (let i = 0; i < 10; i++) src.response(randomUsage(rng(200 + i)), { record: i % 2 ? 'before' : 'after' });
    src.infoNull().repeatTokenCount().overflowTotal().rollback(1).toolOutputMentioningUsage();
    const legacy = new RolloutWriter({
      threadId: id(0x8002),
      start: T(11),
      paginated: false,
      label: 'fuzz-legacy',
      project: '/proj/fuzz',
      ledger: new CodexLedger(),
      cacheWriteField: false,
    });
    legacy.sessionMeta().turn('gpt-5', '/proj/fuzz');
    for (let i = 0; i < 10; i++) legacy.response(randomUsage(rng(300 + i), false));
    const valid = [...src.lines, ...legacy.lines];
    const seed = 515151;
    const lines = fuzzLines(valid, 10_000, seed);
    const files = 10;
    for (let f = 0; f < files; f++) {
      const w = new RolloutWriter({
        threadId: id(0x8100 + f),
        start: T(12 + (f % 5)),
        paginated: true,
        label: `fuzz${f}`,
        project: '/proj/fuzz',
        ledger: new CodexLedger(),
      });
      // Every file starts with a valid session_meta half the time; else straight into mutated lines.
      const head = f % 2 ? '' : w.sessionMeta().text();
      writeFileSync(
        h.path(w),
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
        'codex',
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
      expect(row.reasoning_tokens).toBeLessThanOrEqual(row.output_tokens);
    }
    expect(j.totals.requests).toBeGreaterThan(0);
    expect(ms).toBeLessThan(60_000);
    console.log(
      `codex fuzz: ${lines.length} mutated lines (seed ${seed}) in ${files} files, ${j.totals.requests} responses counted, ${j.warnings.length} warnings, ${ms} ms`,
    );
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
