// The benchmark corpus: a deterministic Claude Code + Codex history of a
// given size, shaped like real data (median file ~100 KB, p99 ~5 MB, a few
// 40-90 MB files, multi-MB base64 screenshot lines, ~13% of lines carrying
// usage). Its manifest holds what a correct reader must report, added up by
// the writers from the responses they wrote (never by reading files back).
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { latestIsoField, readLastLine } from '../../src/io/last-line.js';
import { join } from 'node:path';
import { ClaudeHome, projectKey } from '../../fixtures/claude-code/build.js';
import { Ledger as ClaudeLedger } from '../../fixtures/ledger.js';
import { emptyTotals, Ledger as CodexLedger, METRICS, utcDay, type Totals } from '../../fixtures/codex/ledger.js';
import { rolloutName, sessionsPath } from '../../fixtures/codex/home.js';
import { rng } from '../../fixtures/codex/rollout.js';
import { writeClaudeFile, uuid } from './claude.js';
import { writeCodexFile, type CodexTail } from './codex.js';
import { Filler } from './text.js';

/** Bump when the generator's output changes, so stale corpora are regenerated. */
export const CORPUS_VERSION = 4;
const DAY = 86_400_000;
const SPAN_DAYS = 60;
const MB = 1 << 20;
export const GIB = 1 << 30;

export type Harness = 'claude-code' | 'codex';
/** Per harness, per UTC day (YYYY-MM-DD): what was billed. */
export type DayTotals = Record<Harness, Record<string, Totals>>;

export interface AppendTarget {
  harness: Harness;
  path: string;
  /** Size as generated: the benchmark truncates back to it after appending. */
  bytes: number;
  claude?: { sessionId: string; cwd: string; agentId: string | null; clock: number };
  codex?: CodexTail;
}

export interface Manifest {
  version: number;
  seed: number;
  targetBytes: number;
  /** Last day of the history (UTC); it spans the SPAN_DAYS days up to it. */
  anchor: string;
  home: string;
  shape: {
    files: number;
    bytes: number;
    lines: number;
    usageLines: number;
    usageLineShare: number;
    medianFile: number;
    p99File: number;
    largestFile: number;
    largestLine: number;
    filesOver40MB: number;
  };
  totals: DayTotals;
  appendTargets: AppendTarget[];
}

export interface CorpusOptions {
  dir: string;
  bytes: number;
  seed?: number;
  /** YYYY-MM-DD; default today (UTC). */
  anchor?: string;
}

function lognormal(rand: () => number, median: number, sigma: number): number {
  const u = Math.max(rand(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  return median * Math.exp(sigma * z);
}

function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
}

/** Adds up `totals` for the UTC days in [since, until]. */
export function windowTotals(days: Record<string, Totals>, since: string, until: string): Totals {
  const t = emptyTotals();
  for (const [day, d] of Object.entries(days)) {
    if (day < since || day > until) continue;
    for (const m of METRICS) t[m] += d[m];
  }
  return t;
}

export function addDays(into: Record<string, Totals>, more: Record<string, Totals>): void {
  for (const [day, d] of Object.entries(more)) {
    const t = (into[day] ??= emptyTotals());
    for (const m of METRICS) t[m] += d[m];
  }
}

export function claudeDayTotals(l: ClaudeLedger): Record<string, Totals> {
  const out: Record<string, Totals> = {};
  for (const r of l.responses) {
    const t = (out[utcDay(r.ts)] ??= emptyTotals());
    t.requests += r.requests;
    t.input_tokens += r.input_tokens;
    t.cache_read_tokens += r.cache_read_tokens;
    t.cache_write_tokens += r.cache_write_tokens;
    t.output_tokens += r.output_tokens;
    t.reasoning_tokens += r.reasoning_tokens;
    t.total_tokens += r.input_tokens + r.cache_read_tokens + r.cache_write_tokens + r.output_tokens;
  }
  return out;
}

export function codexDayTotals(l: CodexLedger): Record<string, Totals> {
  return Object.fromEntries(l.by((r) => utcDay(r.ts)));
}

export function generateCorpus(o: CorpusOptions): Manifest {
  const seed = o.seed ?? 1;
  const anchor = o.anchor ?? new Date().toISOString().slice(0, 10);
  const rand = rng(seed);
  const fill = new Filler(rand, seed);
  const home = join(o.dir, 'home');
  const claudeDir = join(home, '.claude');
  const codexHome = join(home, '.codex');
  const claudeLedger = new ClaudeLedger();
  const codexLedger = new CodexLedger();
  const claudeHome = new ClaudeHome(claudeDir, claudeLedger);
  const end = Date.parse(`${anchor}T00:00:00Z`) + DAY;
  const first = end - SPAN_DAYS * DAY;
  const projects = Array.from({ length: 24 }, (_, i) => `/home/dev/src/project-${String(i).padStart(2, '0')}`);

  // A few very long sessions (40-90 MB at 1 GiB, scaled down for smaller corpora), the rest log-normal.
  const scale = Math.min(1, o.bytes / GIB);
  const plan: { harness: Harness; bytes: number }[] = [];
  [88, 75, 64, 52, 41].forEach((mb, i) =>
    plan.push({ harness: i % 2 ? 'codex' : 'claude-code', bytes: Math.round(mb * MB * scale) }),
  );
  let planned = plan.reduce((n, p) => n + p.bytes, 0);
  // Writers overshoot their target by up to one exchange: plan a little under.
  while (planned < o.bytes * 0.97) {
    const bytes = Math.round(Math.min(30 * MB, Math.max(2048, lognormal(rand, 80 * 1024, 1.55))));
    plan.push({ harness: rand() < 0.62 ? 'claude-code' : 'codex', bytes });
    planned += bytes;
  }

  const sizes: number[] = [];
  let lines = 0;
  let usageLines = 0;
  let largestLine = 0;
  const appendTargets: AppendTarget[] = [];
  const written: string[] = [];
  let lastMain: { sessionId: string; cwd: string; start: number; path: string } | null = null;
  for (const [i, p] of plan.entries()) {
    const start = first + Math.floor(rand() * (SPAN_DAYS * DAY - 6 * 3_600_000));
    const cwd = projects[Math.floor(rand() * rand() * projects.length)]!;
    // Screenshots (1-5 MB base64 lines) only in files big enough to hold several.
    const imageBytes = p.bytes > 3 * MB ? Math.round((1 + rand() * 4) * MB) : 0;
    // Appends go to sessions of the last three weeks, as they do in real use.
    const wantAppend = (t: number) =>
      appendTargets.length < 10 && p.bytes > 40_000 && p.bytes < 2 * MB && i % 7 === 3 && t >= end - 21 * DAY;
    let file;
    if (p.harness === 'claude-code') {
      const parent: { sessionId: string; cwd: string; start: number } | null =
        lastMain !== null && rand() < 0.15 ? lastMain : null;
      const sub: boolean = parent !== null;
      const sessionId: string = parent ? parent.sessionId : uuid(rand);
      const c: string = parent ? parent.cwd : cwd;
      const agentId: string | null = sub ? uuid(rand).slice(0, 17).replace(/-/g, '') : null;
      const dir = join(claudeDir, 'projects', projectKey(c));
      const path: string = agentId
        ? join(dir, sessionId, 'subagents', `agent-${agentId}.jsonl`)
        : join(dir, `${sessionId}.jsonl`);
      const s0: number = parent ? parent.start + 60_000 : start;
      const w = writeClaudeFile(
        { home: claudeHome, path, sessionId, cwd: c, agentId, start: s0, targetBytes: p.bytes, imageBytes },
        rand,
        fill,
      );
      file = w.file;
      if (!sub) lastMain = { sessionId, cwd: c, start: s0, path };
      if (wantAppend(s0))
        appendTargets.push({
          harness: 'claude-code',
          path,
          bytes: file.bytes,
          claude: { sessionId, cwd: c, agentId, clock: w.clock },
        });
    } else {
      const threadId = uuid(rand);
      const path = sessionsPath(codexHome, start, rolloutName(start, threadId));
      const r = writeCodexFile(
        { path, threadId, start, cwd, paginated: rand() < 0.5, targetBytes: p.bytes, imageBytes },
        codexLedger,
        rand,
        fill,
      );
      file = r.file;
      if (wantAppend(start)) appendTargets.push({ harness: 'codex', path, bytes: file.bytes, codex: r.tail });
    }
    written.push(file.path);
    sizes.push(file.bytes);
    lines += file.lines;
    usageLines += file.usageLines;
    largestLine = Math.max(largestLine, file.largestLine);
  }
  // A transcript's modification time is its last write, as on a real disk
  // (a generator writing everything today would make every file look active).
  for (const path of new Set(written)) {
    const line = readLastLine(path, 16 << 20);
    const t = line ? latestIsoField(line, 'timestamp') : null;
    if (t !== null) utimesSync(path, t / 1000, t / 1000);
  }
  sizes.sort((a, b) => a - b);
  const manifest: Manifest = {
    version: CORPUS_VERSION,
    seed,
    targetBytes: o.bytes,
    anchor,
    home,
    shape: {
      files: sizes.length,
      bytes: sizes.reduce((a, b) => a + b, 0),
      lines,
      usageLines,
      usageLineShare: Math.round((usageLines / lines) * 1000) / 1000,
      medianFile: quantile(sizes, 0.5),
      p99File: quantile(sizes, 0.99),
      largestFile: sizes[sizes.length - 1] ?? 0,
      largestLine,
      filesOver40MB: sizes.filter((s) => s >= 40 * MB).length,
    },
    totals: { 'claude-code': claudeDayTotals(claudeLedger), codex: codexDayTotals(codexLedger) },
    appendTargets,
  };
  writeFileSync(join(o.dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return manifest;
}

/** The corpus in `dir`, generated unless a complete one of the same parameters (and a recent anchor) is there. */
export function ensureCorpus(o: CorpusOptions & { maxAgeDays?: number }): { manifest: Manifest; generated: boolean } {
  const mpath = join(o.dir, 'manifest.json');
  if (existsSync(mpath)) {
    try {
      const m = JSON.parse(readFileSync(mpath, 'utf8')) as Manifest;
      const age = (Date.now() - Date.parse(`${m.anchor}T00:00:00Z`)) / DAY;
      const anchorOk = o.anchor ? m.anchor === o.anchor : age < (o.maxAgeDays ?? 14);
      if (m.version === CORPUS_VERSION && m.seed === (o.seed ?? 1) && m.targetBytes === o.bytes && anchorOk)
        return { manifest: m, generated: false };
    } catch {
      /* incomplete or foreign: regenerate */
    }
  }
  rmSync(o.dir, { recursive: true, force: true });
  return { manifest: generateCorpus(o), generated: true };
}
