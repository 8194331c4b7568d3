// Transcripts growing while tx-usage reads them: a child process appends
// Claude Code, Codex and Pi transcripts in random-sized byte chunks (so reads
// constantly end inside a line) while reports run back to back. Every
// intermediate report must show, per session, exactly the first m responses
// of that file (no half line counted, nothing out of order); the run after
// the writer stops must show everything, equal to a fresh read.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { id as codexId, rolloutName, sessionsPath } from '../../fixtures/codex/home.js';
import { Ledger as CodexLedger } from '../../fixtures/codex/ledger.js';
import { RolloutWriter } from '../../fixtures/codex/rollout.js';
import { sessionsDir, SONNET } from '../../fixtures/pi/scenarios.js';
import { Ledger as PiLedger, PiSession } from '../../fixtures/pi/session.js';
import { cleanEnv, CLI, tempDir } from '../helpers/cli.js';

const N = 500;
const SEED = 4711;
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

interface Grown {
  harness: string;
  session: string;
  staged: string;
  target: string;
  /** Prefix sums: prefix[m] = metrics of the first m responses of the file. */
  prefix: M[];
}

function prefixSums(perResponse: Omit<M, 'requests' | 'total_tokens'>[]): M[] {
  const out: M[] = [
    {
      requests: 0,
      input_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 0,
      reasoning_tokens: 0,
      total_tokens: 0,
    },
  ];
  for (const r of perResponse) {
    const p = out[out.length - 1]!;
    out.push({
      requests: p.requests + 1,
      input_tokens: p.input_tokens + r.input_tokens,
      cache_read_tokens: p.cache_read_tokens + r.cache_read_tokens,
      cache_write_tokens: p.cache_write_tokens + r.cache_write_tokens,
      output_tokens: p.output_tokens + r.output_tokens,
      reasoning_tokens: p.reasoning_tokens + r.reasoning_tokens,
      total_tokens: p.total_tokens + r.input_tokens + r.cache_read_tokens + r.cache_write_tokens + r.output_tokens,
    });
  }
  return out;
}

/** Complete transcripts written to `staging`; the test home gets the same relative paths, empty. */
function stage(staging: string, home: string): Grown[] {
  const out: Grown[] = [];
  const target = (p: string) => join(home, relative(staging, p));

  const claude = new ClaudeHome(join(staging, '.claude'));
  const cs = claude.session({ cwd: '/home/user/growing' });
  for (let k = 0; k < N; k++)
    cs.response({
      ts: new Date(Date.UTC(2026, 5, 1, 9, 0, k)).toISOString(),
      splits: 1 + (k % 3),
      usage: { input: 1, output: k + 1, cacheRead: 2 * k },
    });
  out.push({
    harness: 'claude-code',
    session: cs.sessionId,
    staged: cs.file,
    target: target(cs.file),
    prefix: prefixSums(
      claude.ledger.responses.map((r) => ({
        input_tokens: r.input_tokens,
        cache_read_tokens: r.cache_read_tokens,
        cache_write_tokens: r.cache_write_tokens,
        output_tokens: r.output_tokens,
        reasoning_tokens: r.reasoning_tokens,
      })),
    ),
  });

  const codexLedger = new CodexLedger();
  const start = Date.UTC(2026, 5, 2, 9, 0, 0);
  const w = new RolloutWriter({
    threadId: codexId(0xd00d),
    start,
    paginated: true,
    label: 'growing',
    project: '/proj/growing',
    ledger: codexLedger,
  });
  w.sessionMeta().turn('gpt-5-codex', '/proj/growing');
  for (let k = 0; k < N; k++)
    w.response(
      { input: 10 + k, cached: k, cacheWrite: 0, output: k + 1, reasoning: 0 },
      { record: k % 2 ? 'before' : 'after' },
    );
  const codexFile = sessionsPath(join(staging, '.codex'), start, rolloutName(start, w.o.threadId));
  mkdirSync(dirname(codexFile), { recursive: true });
  writeFileSync(codexFile, w.text());
  out.push({
    harness: 'codex',
    session: w.o.threadId,
    staged: codexFile,
    target: target(codexFile),
    prefix: prefixSums(
      codexLedger.responses.map((r) => ({
        input_tokens: r.usage.input - r.usage.cached - r.usage.cacheWrite,
        cache_read_tokens: r.usage.cached,
        cache_write_tokens: r.usage.cacheWrite,
        output_tokens: r.usage.output,
        reasoning_tokens: r.usage.reasoning,
      })),
    ),
  });

  const piLedger = new PiLedger();
  const ps = new PiSession({
    dir: sessionsDir(join(staging, '.pi', 'agent'), '/home/dev/growing'),
    cwd: '/home/dev/growing',
    start: Date.UTC(2026, 5, 3, 9, 0, 0),
    ledger: piLedger,
    seed: 4242,
  });
  ps.modelChange(SONNET[1], SONNET[0]);
  for (let k = 0; k < N; k++) {
    ps.user('next');
    ps.assistant({
      provider: SONNET[1],
      model: SONNET[0],
      usage: { input: 10, output: k + 1, cacheRead: k, cacheWrite: 1, cost: 1 / 1024 },
    });
  }
  const piFile = ps.write();
  out.push({
    harness: 'pi',
    session: ps.sessionId,
    staged: piFile,
    target: target(piFile),
    prefix: prefixSums(
      piLedger.rows.map((r) => ({
        input_tokens: r.input,
        cache_read_tokens: r.cacheRead,
        cache_write_tokens: r.cacheWrite,
        output_tokens: r.output,
        reasoning_tokens: Math.min(r.reasoning, r.output),
      })),
    ),
  });

  for (const g of out) {
    mkdirSync(dirname(g.target), { recursive: true });
    writeFileSync(g.target, '');
  }
  return out;
}

/**
 * The writer: appends each staged file to its target in chunks of 1..3000
 * bytes, a few ms apart, in a seeded random order. At a third and at two
 * thirds of the bytes it waits until the reader has finished one more report
 * ("go" on stdin), so that however fast either side runs, reports overlap the
 * writing and some see the files part-written.
 */
const WRITER = `
  const fs = require('node:fs');
  const [spec, seed] = JSON.parse(process.argv[1]);
  let a = seed >>> 0;
  const rnd = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const files = spec.map(([src, dst]) => ({ bytes: fs.readFileSync(src), dst, at: 0 }));
  const total = files.reduce((s, f) => s + f.bytes.length, 0);
  const milestones = [total / 3, (2 * total) / 3];
  let written = 0;
  let passed = 0;
  let reports = 0;
  let waiting = false;
  process.stdin.on('data', (b) => {
    reports += String(b).split('go').length - 1;
    if (waiting) { waiting = false; step(); }
  });
  let chunks = 0;
  const step = () => {
    if (passed < milestones.length && written >= milestones[passed]) {
      if (reports <= passed) { waiting = true; return; }
      passed++;
    }
    const open = files.filter((f) => f.at < f.bytes.length);
    if (!open.length) { process.stdout.write(String(chunks)); process.stdin.destroy(); return; }
    const f = open[Math.floor(rnd() * open.length)];
    const part = f.bytes.subarray(f.at, f.at + 1 + Math.floor(rnd() * 3000));
    fs.appendFileSync(f.dst, part);
    f.at += part.length;
    written += part.length;
    chunks++;
    setTimeout(step, Math.floor(rnd() * 10));
  };
  step();`;

function report(env: NodeJS.ProcessEnv, db?: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const args = [
      CLI,
      'report',
      '--since',
      '2026-06-01',
      '--until',
      '2026-06-30',
      '--by',
      'harness,session',
      '--format',
      'json',
      ...(db ? ['--db', db] : []),
    ];
    const c = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (b) => (out += b));
    c.stderr.on('data', (b) => (err += b));
    c.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`report exited ${code}: ${err}`)),
    );
  });
}

const pick = (r: any): M => Object.fromEntries(METRICS.map((k) => [k, r[k]])) as M;

describe('files growing while being read', () => {
  it('no half line is ever counted; every response is counted once the writer is done', async () => {
    const home = tempDir('txu-growing-');
    const grown = stage(tempDir('txu-growing-stage-'), home);
    const env = cleanEnv(home);
    const writer = spawn(
      process.execPath,
      ['-e', WRITER, JSON.stringify([grown.map((g) => [g.staged, g.target]), SEED])],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    writer.stdin!.on('error', () => {}); // a "go" after the writer finished
    let chunks = '';
    writer.stdout.on('data', (b) => (chunks += b));
    const done = new Promise<number | null>((r) => writer.on('exit', r));

    let runs = 0;
    let partialSightings = 0;
    let tornWarnings = 0;
    while (writer.exitCode === null) {
      const j = await report(env);
      runs++;
      for (const g of grown) {
        const row = j.rows.find((r: any) => r.harness === g.harness && r.session === g.session);
        const m = row ? row.requests : 0;
        // Exactly the first m responses of the file: the prefix sum, not some other subset or a torn value.
        expect(m).toBeLessThanOrEqual(N);
        expect(row ? pick(row) : g.prefix[0], `${g.harness} after run ${runs} (${m} responses)`).toEqual(g.prefix[m]);
        if (m > 0 && m < N) partialSightings++;
      }
      tornWarnings += j.warnings.filter((w: string) => /incomplete final line/.test(w)).length;
      if (writer.exitCode === null) writer.stdin!.write('go\n');
    }
    writer.stdin!.end();
    expect(await done).toBe(0);

    const final = await report(env);
    for (const g of grown) {
      const row = final.rows.find((r: any) => r.harness === g.harness && r.session === g.session);
      expect(pick(row), g.harness).toEqual(g.prefix[N]);
    }
    expect(final.warnings.filter((w: string) => /incomplete final line/.test(w))).toEqual([]);
    // Incremental reads ended where a fresh read of the finished files ends.
    const fresh = await report(env, join(tempDir('txu-growing-fresh-'), 'fresh.duckdb'));
    expect(final.rows).toEqual(fresh.rows);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(partialSightings).toBeGreaterThan(0);
    console.log(
      `faults: 3 transcripts (${N} responses each) appended in ${chunks} random chunks (seed ${SEED}) during ${runs} reports: ${partialSightings} partial views, all exact prefixes; ${tornWarnings} torn-tail warnings seen mid-write, none at the end`,
    );
  }, 300_000);
});
