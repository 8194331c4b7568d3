// Codex end to end: the real compiled CLI over a generated Codex home must
// report exactly the totals the fixture builders added up.
import { beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { buildCodexHome, SINCE, UNTIL, zstdCompress, type CodexHome } from '../../fixtures/codex/home.js';
import { METRICS, utcDay, type BilledResponse, type Ledger, type Totals } from '../../fixtures/codex/ledger.js';
import { randomUsage, rng, usageJson } from '../../fixtures/codex/rollout.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', SINCE, '--until', UNTIL];
const { decompress } = createRequire(import.meta.url)('zstd-napi') as { decompress(b: Buffer): Buffer };

const metrics = (r: any): Totals => Object.fromEntries(METRICS.map((m) => [m, r[m]])) as unknown as Totals;

function rowsBy(j: any, keys: string[]): Map<string, Totals> {
  return new Map(j.rows.map((r: any) => [keys.map((k) => String(r[k])).join('|'), metrics(r)]));
}

const sortedMap = <V>(m: Map<string, V>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function expectModelDay(j: any, ledger: Ledger, filter?: (r: BilledResponse) => boolean) {
  expect(j.group_by).toEqual(['model', 'day']);
  expect(sortedMap(rowsBy(j, ['model', 'day']))).toEqual(sortedMap(ledger.byModelDay(filter)));
  expect(metrics(j.totals)).toEqual(ledger.total(filter));
}

describe('codex end to end', () => {
  let fx: CodexHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildCodexHome(tempDir('txu-codex-e2e-'), { corrupt: true });
    env = cleanEnv(fx.home);
  });

  it('report --harness codex --by model,day matches the ledger exactly; corrupt .zst files are warnings naming them', () => {
    const j = reportJson(['--harness', 'codex', '--by', 'model,day', ...RANGE], env);
    expectModelDay(j, fx.ledger);
    expect(fx.corrupt).toHaveLength(2);
    for (const f of fx.corrupt)
      expect(
        j.warnings.some((w: string) => w.includes(f) && /zstd/.test(w)),
        f,
      ).toBe(true);
    // Codex records no money: every cost is computed from prices.
    for (const r of j.rows) {
      expect(r.recorded_cost_usd).toBeNull();
      expect(r.cost_source).toBe('computed');
    }
  });

  it('one UTC day at a time', () => {
    for (const day of ['2026-01-10', '2026-01-11', '2026-01-12', '2026-01-13']) {
      const j = reportJson(
        ['--harness', 'codex', '--by', 'model,day', '--since', day, '--until', day, '--tz', 'UTC'],
        env,
      );
      expectModelDay(j, fx.ledger, (r) => utcDay(r.ts) === day);
    }
  });

  it("by session and project: a sub-agent is its root session's, in the parent project; revert files share the thread", () => {
    const s = reportJson(['--harness', 'codex', '--by', 'session', ...RANGE], env);
    expect(sortedMap(rowsBy(s, ['session']))).toEqual(sortedMap(fx.ledger.by((r) => r.session)));
    // The sub-agent's spend is in its root session (the parent's thread), which counts one sub-agent thread.
    const root = s.rows.find((r: any) => r.session === '0199aaaa-0000-7000-8000-0000000000d1');
    expect(root.subagent_threads).toBe(1);
    expect(s.rows.some((r: any) => r.session === '0199aaaa-0000-7000-8000-0000000000d2')).toBe(false);
    expect(s.rows.filter((r: any) => r.subagent_threads > 0)).toHaveLength(1);
    const p = reportJson(['--harness', 'codex', '--by', 'project', ...RANGE], env);
    expect(sortedMap(rowsBy(p, ['project']))).toEqual(sortedMap(fx.ledger.by((r) => r.project)));
    expect(p.rows.some((r: any) => String(r.project).includes('.worktrees'))).toBe(false);
  });

  it("state_5.sqlite's threads.tokens_used and thread_history_1.sqlite are never read as usage (tokscale#851)", () => {
    // Each holds a billion tokens a thread (fixtures/codex/home.ts writeStateDatabases): the totals are the rollouts' alone.
    const j = reportJson(['--harness', 'codex', ...RANGE], env);
    expect(metrics(j.totals)).toEqual(fx.ledger.total());
    const h = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (x: any) => x.harness === 'codex',
    );
    expect(h.sources.filter((s: any) => /\.sqlite$/.test(s.path))).toEqual([]);
  });

  it('sources shows per-file counts for Codex and the reasons for what was skipped', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'codex');
    // + session_index.jsonl, read for thread names (titles).
    expect(h.files).toBe(fx.written.length + fx.corrupt.length + 1);
    expect(h.billed_events).toBe(fx.ledger.responses.length);
    for (const w of fx.written) {
      const src = h.sources.find((s: any) => s.path === w.path);
      expect(src, w.path).toBeTruthy();
      // A file's events: its own responses, plus the copies it holds of its parent's (keyed as the parent's file keys them).
      expect(src.counts['own responses'] ?? 0, w.label).toBe(
        fx.ledger.responses.filter((x) => x.file === w.label).length,
      );
      const copied = Object.entries(src.counts)
        .filter(([k]) => k.startsWith('responses copied from thread '))
        .reduce((n, [, v]) => n + (v as number), 0);
      expect(src.events, w.label).toBe(fx.ledger.responses.filter((x) => x.file === w.label).length + copied);
    }
    for (const f of fx.corrupt) {
      const src = h.sources.find((s: any) => s.path === f);
      expect(src.events).toBe(0);
      expect(src.warnings.some((w: string) => /zstd/.test(w))).toBe(true);
    }
    const reasons = h.skipped.map((s: any) => s.reason);
    for (const want of [
      'duplicate token_usage_record (same response_id)',
      'token_count already counted by its token_usage_record',
      'token_count repeating an unchanged total',
      'token_count without info (rate-limit update only)',
      'synthesized context-window-overflow total (not provider usage)',
      'session_meta copied from another rollout (only the first line describes the file)',
    ]) {
      expect(reasons, want).toContain(want);
    }
    const text = runCli(['sources'], env).stdout;
    expect(text).toContain(`Codex CLI (codex): ${fx.written.length + fx.corrupt.length + 1} sources`);
    expect(text).toContain(fx.written[0]!.path);
  });
});

describe('codex end to end: files that grow, compress and move between runs on one store', () => {
  it('appends are read once; .jsonl → .jsonl.zst, → archived_sessions and copies are never counted twice', () => {
    const fx = buildCodexHome(tempDir('txu-codex-move-'));
    const env = cleanEnv(fx.home);
    const report = () => reportJson(['--harness', 'codex', '--by', 'model,day', ...RANGE], env);
    expectModelDay(report(), fx.ledger);

    // 1. A legacy file grows: one more response (token_count only), read incrementally.
    const legacy = fx.written.find((w) => w.label === 'legacy')!;
    const lines = readFileSync(legacy.path, 'utf8')
      .trimEnd()
      .split('\n')
      .flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return []; // the fixture's torn line
        }
      });
    const lastTotal = [...lines].reverse().find((l) => l.payload?.type === 'token_count' && l.payload.info)!.payload
      .info.total_token_usage;
    const extra = randomUsage(rng(77), false);
    const ts = Date.UTC(2026, 0, 14, 8, 0, 0);
    const total = {
      input_tokens: lastTotal.input_tokens + extra.input,
      cached_input_tokens: lastTotal.cached_input_tokens + extra.cached,
      output_tokens: lastTotal.output_tokens + extra.output,
      reasoning_output_tokens: lastTotal.reasoning_output_tokens + extra.reasoning,
      total_tokens: lastTotal.total_tokens + extra.input + extra.output,
    };
    appendFileSync(
      legacy.path,
      JSON.stringify({
        timestamp: new Date(ts).toISOString(),
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: { total_token_usage: total, last_token_usage: usageJson(extra, false), model_context_window: 272000 },
          rate_limits: null,
        },
      }) + '\n',
    );
    fx.ledger.add({ model: 'o3', ts, project: '/proj/beta', session: legacy.threadId, usage: extra, file: 'legacy' });
    const ing = runCli(['ingest'], env);
    expect(ing.status).toBe(0);
    expect(ing.stdout).toMatch(/1 appended/);
    expectModelDay(report(), fx.ledger);

    // 2. Idle files get compressed in place, others archived (same file name).
    const moved: string[] = [];
    let i = 0;
    for (const w of fx.written) {
      if (!w.path.endsWith('.jsonl') || w.path.includes('archived_sessions')) continue;
      if (i++ % 2 === 0) {
        writeFileSync(w.path + '.zst', zstdCompress(readFileSync(w.path, 'utf8')));
        unlinkSync(w.path);
        moved.push(w.path + '.zst');
      } else {
        const dest = join(fx.codexHome, 'archived_sessions', basename(w.path));
        mkdirSync(dirname(dest), { recursive: true });
        renameSync(w.path, dest);
        moved.push(dest);
      }
    }
    expect(moved.length).toBeGreaterThanOrEqual(8);
    expectModelDay(report(), fx.ledger);

    // 3. Resumed: a .zst is decompressed back to .jsonl; for a moment both exist.
    const zst = moved.find((p) => p.endsWith('.zst'))!;
    writeFileSync(zst.slice(0, -4), decompress(readFileSync(zst)));
    expectModelDay(report(), fx.ledger);
    unlinkSync(zst);
    expectModelDay(report(), fx.ledger);

    // 4. A copy of a rollout left in the other folder (copied, not moved).
    const live = moved.find((p) => p.includes('archived_sessions'))!;
    const other = join(fx.codexHome, 'sessions', '2026', '01', '15', basename(live));
    mkdirSync(dirname(other), { recursive: true });
    copyFileSync(live, other);
    expectModelDay(report(), fx.ledger);
    const src = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (x: any) => x.harness === 'codex',
    );
    expect(src.events).toBeGreaterThan(src.billed_events);
    expect(src.billed_events).toBe(fx.ledger.responses.length);
  });
});

describe('codex roots', () => {
  it('CODEX_HOME and --root codex=PATH replace ~/.codex', () => {
    const fx = buildCodexHome(tempDir('txu-codex-roots-'));
    const elsewhere = join(tempDir('txu-codex-other-'), 'codex-data');
    renameSync(fx.codexHome, elsewhere);
    const none = reportJson(['--harness', 'codex', ...RANGE], cleanEnv(fx.home));
    expect(none.totals.requests).toBe(0);
    const viaEnv = reportJson(
      ['--harness', 'codex', '--by', 'model,day', ...RANGE],
      cleanEnv(fx.home, { CODEX_HOME: elsewhere }),
    );
    expectModelDay(viaEnv, fx.ledger);
    const viaFlag = reportJson(
      [
        '--harness',
        'codex',
        '--by',
        'model,day',
        '--root',
        `codex=${join(elsewhere, 'sessions')}`,
        '--root',
        `codex=${join(elsewhere, 'archived_sessions')}`,
        ...RANGE,
        '--db',
        join(fx.home, 'flag.duckdb'),
      ],
      cleanEnv(fx.home),
    );
    expectModelDay(viaFlag, fx.ledger);
  });
});
