// The live scenarios of `npm run bench` (issue 26), on the same corpus and
// store as the report scenarios:
// - statusline: `tx-usage statusline` with Claude Code's JSON on stdin for one
//   of the corpus's Claude Code sessions, while that session's transcript is
//   being appended to (a new response every 250 ms, as a working session
//   writes them): median and p95 wall time over many runs, and ccusage's
//   `statusline` on the same input alongside;
// - watch refresh: what one `watch` refresh costs after a file grew (the
//   incremental ingest of the appended bytes and the live snapshot made from
//   the store, in one process with DuckDB loaded, as `watch` runs it).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ClaudeHome } from '../fixtures/claude-code/build.js';
import { Ledger as ClaudeLedger } from '../fixtures/ledger.js';
import { rng } from '../fixtures/codex/rollout.js';
import { CorpusSession, writeExchange } from './corpus/claude.js';
import type { AppendTarget, Manifest } from './corpus/generate.js';
import { Filler } from './corpus/text.js';
import { median } from './measure.js';

export interface LiveBenchOptions {
  m: Manifest;
  cli: string;
  env: NodeJS.ProcessEnv;
  ccusage: { cmd: string; version: string } | null;
  ccEnv: NodeJS.ProcessEnv;
  /** Status line runs (at least 20, for a p95). */
  runs: number;
  log: (s: string) => void;
}

export interface LiveBenchResult {
  statusline: { median: number; p95: number; n: number; stale: number; bytesAppended: number } | null;
  ccusageStatusline: { median: number; p95: number; n: number } | null;
  watchRefresh: { median: number; min: number; max: number; n: number } | null;
  lines: string[];
  problems: string[];
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]!;
}

function timed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string,
): Promise<{ ms: number; status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (code) =>
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: code ?? -1, stdout, stderr }),
    );
    c.stdin.end(input);
  });
}

/** Appends one exchange dated now to a Claude Code session file (the corpus's own writer); returns the bytes written. */
function appendNow(m: Manifest, t: AppendTarget, fill: Filler, round: number): number {
  const home = new ClaudeHome(join(m.home, '.claude'), new ClaudeLedger());
  // Its clock advances a few seconds to minutes per line: start it a little in the past, so that the lines are about now.
  const s = new CorpusSession(home, t.path, t.claude!.sessionId, t.claude!.cwd, null, Date.now() - 300_000, true);
  writeExchange(s, rng(m.seed * 7919 + round), fill, { imageBytes: 0, imageChance: 0, budget: 1, small: true });
  s.out.close();
  return s.out.bytes;
}

export async function benchLive(o: LiveBenchOptions): Promise<LiveBenchResult> {
  const out: LiveBenchResult = {
    statusline: null,
    ccusageStatusline: null,
    watchRefresh: null,
    lines: [],
    problems: [],
  };
  const t = o.m.appendTargets.find((x) => x.claude && !x.claude.agentId);
  if (!t) {
    out.problems.push('live: the corpus has no Claude Code session to append to');
    return out;
  }
  const fill = new Filler(rng(o.m.seed + 11), o.m.seed + 11);
  let round = 0;
  let appended = appendNow(o.m, t, fill, ++round);
  const input = JSON.stringify({
    hook_event_name: 'Status',
    session_id: t.claude!.sessionId,
    transcript_path: t.path,
    cwd: t.claude!.cwd,
    model: { id: 'claude-opus-4-6', display_name: 'Opus' },
    workspace: { current_dir: t.claude!.cwd, project_dir: t.claude!.cwd },
    version: '2.1.310',
    output_style: { name: 'default' },
    cost: {
      total_cost_usd: 1.23,
      total_duration_ms: 60_000,
      total_api_duration_ms: 20_000,
      total_lines_added: 10,
      total_lines_removed: 2,
    },
    context_window: {
      total_input_tokens: 24_000,
      total_output_tokens: 3_000,
      context_window_size: 200_000,
      used_percentage: 12,
      remaining_percentage: 88,
      current_usage: {
        input_tokens: 8,
        output_tokens: 120,
        cache_creation_input_tokens: 2_000,
        cache_read_input_tokens: 22_000,
      },
    },
    rate_limits: {
      five_hour: { used_percentage: 40, resets_at: Math.floor(Date.now() / 1000) + 3600 },
      seven_day: { used_percentage: 20, resets_at: Math.floor(Date.now() / 1000) + 86_400 },
    },
  });

  // Watch refresh: in this process, as `watch` runs it (DuckDB loaded once; the store opened per refresh).
  const { refreshSnapshot } = await import('../src/cli/live-refresh.js');
  const { runtimeFrom } = await import('../src/cli/runtime.js');
  const rt = runtimeFrom({ quiet: true }, o.env);
  const opts = () => ({
    now: Date.now(),
    lineHarnesses: ['claude-code'],
    monthStart: Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1),
  });
  const first = performance.now();
  let snap = (await refreshSnapshot(rt, opts())).snapshot; // reads what the 30-day report left unread, once
  o.log(
    `  live: first refresh (reads every source the reports left unread) ${(performance.now() - first).toFixed(0)} ms`,
  );
  const refreshMs: number[] = [];
  for (let i = 0; i < 7; i++) {
    appended += appendNow(o.m, t, fill, ++round);
    const t0 = performance.now();
    const r = await refreshSnapshot(rt, opts(), snap);
    refreshMs.push(performance.now() - t0);
    snap = r.snapshot;
    if (!r.incremental)
      out.problems.push(`watch refresh ${i + 1}: the snapshot was made from the store again, not carried forward`);
    if (r.ingest.appended !== 1 || r.ingest.rewritten !== 0)
      out.problems.push(
        `watch refresh ${i + 1}: expected one appended source, got ${r.ingest.appended} appended and ${r.ingest.rewritten} re-read`,
      );
  }
  out.watchRefresh = {
    median: median(refreshMs),
    min: Math.min(...refreshMs),
    max: Math.max(...refreshMs),
    n: refreshMs.length,
  };

  // Status line while the session grows: a new exchange every 250 ms.
  const timer = setInterval(() => (appended += appendNow(o.m, t, fill, ++round)), 250);
  const walls: number[] = [];
  let stale = 0;
  try {
    const n = Math.max(20, o.runs);
    for (let i = 0; i < n; i++) {
      const r = await timed(process.execPath, [o.cli, 'statusline', '--format', 'json'], o.env, input);
      if (r.status !== 0 || r.stderr)
        out.problems.push(
          `statusline run ${i + 1}: exit ${r.status}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`,
        );
      const j = JSON.parse(r.stdout) as { stale: boolean; session: unknown };
      if (j.stale) stale++;
      if (!j.session) out.problems.push(`statusline run ${i + 1}: no session figures`);
      walls.push(r.ms);
    }
  } finally {
    clearInterval(timer);
  }
  out.statusline = { median: median(walls), p95: p95(walls), n: walls.length, stale, bytesAppended: appended };

  if (o.ccusage) {
    const cc: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await timed(o.ccusage.cmd, ['statusline', '--offline'], o.ccEnv, input);
      if (r.status !== 0) {
        out.lines.push(`ccusage statusline exited ${r.status}: ${r.stderr.slice(0, 200)}`);
        break;
      }
      cc.push(r.ms);
    }
    if (cc.length) out.ccusageStatusline = { median: median(cc), p95: p95(cc), n: cc.length };
  }

  const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
  const s = out.statusline;
  const c = out.ccusageStatusline;
  out.lines.push(
    '',
    '| live scenario | median | p95 | runs | vs ccusage | target | met |',
    '|---|---|---|---|---|---|---|',
    ...(c ? [`| ccusage statusline (same input) | ${fmt(c.median)} | ${fmt(c.p95)} | ${c.n} | 1.00× | | |`] : []),
    `| tx-usage statusline, transcript appended to every 250 ms | ${fmt(s.median)} | ${fmt(s.p95)} | ${s.n} | ${c ? `${(s.median / c.median).toFixed(2)}×` : 'n/a'} | median ≤ 80 ms, p95 ≤ 200 ms | ${s.median <= 80 && s.p95 <= 200 ? 'yes' : 'no'} |`,
    `| tx-usage watch refresh after one file grew (in process) | ${fmt(out.watchRefresh.median)} | max ${fmt(out.watchRefresh.max)} | ${out.watchRefresh.n} | | median ≤ 150 ms | ${out.watchRefresh.median <= 150 ? 'yes' : 'no'} |`,
    `status lines marked stale: ${s.stale} of ${s.n}; ${appended} bytes appended to the session meanwhile`,
  );
  return out;
}
