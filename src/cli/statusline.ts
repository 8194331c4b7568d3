// `tx-usage statusline`: the command Claude Code's statusLine setting runs,
// with its JSON on stdin. Orchestration only (the figures: src/live/).
//
// It never loads DuckDB or the price data, never waits for the store, never
// writes to stderr and never exits non-zero: it reads the live snapshot
// (src/live/snapshot.ts) and the bytes appended to its own session's
// transcripts since, and prints one line. When the snapshot is older than
// `refresh_seconds`, it starts a detached `tx-usage statusline --refresh`
// (one at a time) and prints from what it has; when a refresh has been
// pending for `stale_seconds` (a busy store) or its own appends cannot be
// proven equal to the store's, the line says it is stale. When no refresh
// can bring it up to date (the cache dir's live/ folder cannot be written, or
// the last refresh failed: a read-only store), it says why in a few words
// (`stale_note`: `(stale 3m, cache not writable)`), also when the lock
// cannot be made (mkdir throws): the reason is never left to its JSON alone.
//
// The bin entry (fast.ts) runs this module from its own bundle
// (statusline.cjs) without yargs; `--refresh` and `--help` go through
// main.ts. statusline-flags.ts is the one list of its options for both.
import { spawn } from 'node:child_process';
import { isatty } from 'node:tty';
import { fstatSync, mkdirSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { writeAllSync } from './closed-stdout.js';
import { cacheDir, runtimeFrom, type GlobalArgs, type Runtime } from './runtime.js';
import { defaultLiveConfig, liveConfig, type LiveConfig } from '../live/config.js';
import { recordClaudeReading } from '../live/claude-limits.js';
import { readSnapshot, type LiveSnapshot } from '../live/snapshot.js';
import { readOwnAppends } from '../live/own-files.js';
import { mergeAppended } from '../live/merge.js';
import { liveView } from '../live/view.js';
import { metricsOfEvents } from '../live/blocks.js';
import {
  parseStatusInput,
  problemLine,
  renderStatusLine,
  type StatusFigures,
  type StatusInput,
} from '../live/statusline.js';
import { lastFailure, liveDirProblem, passLock, refreshRunningSince, takeLock } from '../live/refresh-lock.js';
import { evaluateBudgets, periodBounds, snapshotSpend } from '../live/budgets.js';
import { LOCAL_ZONE } from '../live/time.js';
import { mark } from '../core/trace.js';
import { terminalSafeJson } from '../render/terminal-text.js';

export interface StatuslineArgs extends GlobalArgs {
  format?: string;
  refresh?: boolean;
}

/** The harness whose session the status line describes. */
const LINE_HARNESS = 'claude-code';

/** Claude Code's status input is a few KB: more than this is not it (`/dev/zero` on stdin would never end). */
const MAX_INPUT_BYTES = 1 << 20;

/** How long the status line waits for its input to be one whole JSON value (Claude Code writes it at once). */
const INPUT_WAIT_MS = 2000;

/** Whether `text` is one whole JSON object already (no need to wait for the end of input). */
function wholeValue(text: string): boolean {
  if (!/\}\s*$/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Standard input's text: read until its end, until it holds one whole JSON
 * object (a writer that keeps its end open, `(echo '{…}'; sleep 25)`, gets
 * its line at once), or until INPUT_WAIT_MS has passed (then what came, which
 * is not a whole object: the short "unreadable" line). Null when it is larger
 * than MAX_INPUT_BYTES (read no further). A pipe, FIFO or socket is read
 * through the event loop (a blocking read could not be given up); a file or
 * device is read directly, never past the limit.
 */
function readStdin(): string | null | Promise<string | null> {
  if (isatty(0)) return '';
  let st;
  try {
    st = fstatSync(0);
  } catch {
    return '';
  }
  if (st.isFIFO() || st.isSocket()) return readStream();
  return readDirect();
}

function readStream(): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let sock: Socket;
    const text = () => Buffer.concat(chunks, total).toString('utf8');
    const finish = (v: string | null) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish(text()), INPUT_WAIT_MS);
    try {
      sock = new Socket({ fd: 0, readable: true, writable: false });
    } catch {
      clearTimeout(timer);
      resolve(readDirect());
      return;
    }
    sock.on('data', (b: Buffer) => {
      total += b.length;
      if (total > MAX_INPUT_BYTES) return finish(null);
      chunks.push(b);
      if (wholeValue(text())) finish(text());
    });
    sock.on('end', () => finish(text()));
    sock.on('error', () => finish(total ? null : ''));
  });
}

function readDirect(): string | null {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    let n: number;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      return total ? null : '';
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_INPUT_BYTES) return null;
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

interface LastGood {
  line: string;
  figures: StatusFigures;
  at: number;
}

const lastGoodPath = (dir: string) => join(dir, 'live', 'statusline-last.json');

function readLastGood(dir: string): Record<string, LastGood> {
  try {
    return JSON.parse(readFileSync(lastGoodPath(dir), 'utf8')) as Record<string, LastGood>;
  } catch {
    return {};
  }
}

function saveLastGood(dir: string, all: Record<string, LastGood>, key: string, v: LastGood): void {
  const prev = all[key];
  if (prev && prev.line === v.line) return;
  const kept = Object.entries({ ...all, [key]: v })
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, 50);
  try {
    const path = lastGoodPath(dir);
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(kept)));
    renameSync(tmp, path);
  } catch {
    /* a cache only */
  }
}

/** After a failed refresh, the next one waits this long (a status line runs every few hundred ms). */
const RETRY_AFTER_FAILURE_MS = 30_000;

/** What a line says when its cache dir cannot be written (the whole reason is in the JSON's stale_reason). */
const UNWRITABLE_NOTE = 'cache not writable';

/**
 * Starts `tx-usage statusline --refresh` detached, unless one runs already or
 * the last one failed moments ago. Returns why none can run at all (the live
 * folder cannot be written: no lock, no snapshot), else null.
 */
function startRefresh(rt: Runtime, a: StatuslineArgs, dir: string, now: number): string | null {
  const unwritable = liveDirProblem(dir);
  if (unwritable)
    return `the cache folder cannot be written (${unwritable}), so the live snapshot cannot be refreshed: give it write permission, or set XDG_CACHE_HOME to one tx-usage can write`;
  const failed = lastFailure(dir);
  if (failed && Date.now() - failed.at < RETRY_AFTER_FAILURE_MS) return null;
  if (!takeLock(dir, process.pid, now)) return null;
  const bin = process.argv[1];
  if (!bin) return null;
  const args = [
    bin,
    'statusline',
    '--refresh',
    ...(a.db ? ['--db', a.db] : []),
    ...(a.root ?? []).flatMap((r) => ['--root', r]),
    ...(a.prices ? ['--prices', a.prices] : []),
  ];
  try {
    const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: rt.env });
    child.on('error', () => undefined);
    if (child.pid) passLock(dir, child.pid, now);
    child.unref();
  } catch {
    /* no refresh this time: the next line tries again */
  }
  return null;
}

function figuresFrom(
  snap: LiveSnapshot,
  input: StatusInput,
  cfg: LiveConfig,
  merged: ReturnType<typeof mergeAppended>,
  now: number,
): StatusFigures {
  const tz = cfg.tz ?? LOCAL_ZONE;
  const view = liveView(snap, merged, { now, tz, families: cfg.harnesses });
  const todays = view.events.filter((e) => e.ts >= view.todayFrom && cfg.harnesses.includes(e.harness));
  const sid = input.session_id;
  const zero = metricsOfEvents([]);
  return {
    model: input.model,
    session: sid
      ? { id: sid, ...(view.session(LINE_HARNESS, sid) ?? zero), claude_estimate_usd: input.claude_cost_usd }
      : null,
    today: { day: view.today, harnesses: cfg.harnesses, ...metricsOfEvents(todays) },
    block: view.blocks[0]?.active ?? null,
    rate_limits: input.five_hour || input.seven_day ? { five_hour: input.five_hour, seven_day: input.seven_day } : null,
    context_used_percent: input.context_used_percent,
    budgets: evaluateBudgets(cfg.budgets, {
      now,
      tz,
      activeBlocks: view.activeBlocks,
      spent: snapshotSpend(snap, view.events),
    }),
    stale: false,
    stale_reason: null,
    snapshot_age_seconds: Math.max(0, Math.round((now - snap.made_at) / 1000)),
    stale_note: null,
  };
}

/** The figures of a line made from the input alone (no snapshot to add to it). */
function inputOnly(input: StatusInput | null, reason: string, note: string | null): StatusFigures {
  return {
    model: input?.model ?? null,
    session: null,
    today: null,
    block: null,
    rate_limits:
      input && (input.five_hour || input.seven_day) ? { five_hour: input.five_hour, seven_day: input.seven_day } : null,
    context_used_percent: input?.context_used_percent ?? null,
    budgets: [],
    stale: true,
    stale_reason: reason,
    snapshot_age_seconds: null,
    stale_note: note,
  };
}

let printed = false;

function output(format: string, line: string, figures: object): void {
  printed = true;
  writeAllSync(
    1,
    format === 'json' ? terminalSafeJson(JSON.stringify({ line, ...figures }, null, 2)) + '\n' : line + '\n',
  );
}

/** Never throws, never writes to stderr: whatever goes wrong, a line is printed. */
export async function statuslineCommand(a: StatuslineArgs, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const format = a.format === 'json' ? 'json' : 'text';
  const got: { input: StatusInput | null } = { input: null };
  try {
    await statusline(a, env, format, (i) => (got.input = i));
  } catch (e) {
    if (printed) return;
    // Whatever it was (a cache file it could not read or write…): the line from the input, and that something failed.
    const f = inputOnly(got.input, `tx-usage failed: ${(e as Error)?.message ?? String(e)}`, 'tx-usage error');
    try {
      output(format, renderStatusLine(f, defaultLiveConfig(''), false, Date.now()), f);
    } catch {
      /* stdout is gone */
    }
  }
}

async function statusline(
  a: StatuslineArgs,
  env: NodeJS.ProcessEnv,
  format: 'json' | 'text',
  gotInput: (i: StatusInput) => void,
): Promise<void> {
  let rt: Runtime;
  try {
    rt = runtimeFrom(a, env);
  } catch {
    rt = runtimeFrom({}, env);
  }
  const dir = cacheDir(rt.env, rt.home);
  let now = Date.now();
  if (env.TX_USAGE_NOW) {
    const t = Date.parse(env.TX_USAGE_NOW);
    if (Number.isFinite(t)) now = t;
  }
  mark('statusline: loaded');
  const text = await readStdin();
  const { input, problem } = text === null ? { input: null, problem: 'unreadable' as const } : parseStatusInput(text);
  mark('statusline: input read');
  if (!input) {
    const line = problemLine(problem!);
    return output(format, line, { problem });
  }
  gotInput(input);
  const cfg = liveConfig(rt.env, rt.home);
  const color =
    format === 'text' && a.color !== false && !('NO_COLOR' in rt.env && rt.env.NO_COLOR !== '') && cfg.colors !== null;
  if (input.five_hour || input.seven_day) {
    recordClaudeReading(dir, {
      first: now,
      last: now,
      session: input.session_id ?? '',
      five_hour: reading(input.five_hour, 300),
      seven_day: reading(input.seven_day, 10_080),
    });
  }
  const snap = readSnapshot(dir, rt.dbPath);
  mark('statusline: snapshot read');
  if (!snap) {
    const unwritable = startRefresh(rt, a, dir, now);
    // A refresh that failed (a read-only store, say) is said, not `(updating)` for ever.
    const failed = unwritable ? null : lastFailure(dir);
    const figures = unwritable
      ? inputOnly(input, unwritable, UNWRITABLE_NOTE)
      : failed
        ? inputOnly(input, `no live snapshot yet: refresh failed: ${failed.message}`, failed.note)
        : inputOnly(input, 'no live snapshot yet: a refresh has started', null);
    return output(format, renderStatusLine(figures, cfg, color, now), figures);
  }
  const own = input.session_id
    ? await readOwnAppends(snap, LINE_HARNESS, input.session_id, input.transcript_path)
    : { events: [], unproven: null };
  mark('statusline: own appends read');
  const merged = mergeAppended(snap, own.events);
  const figures = figuresFrom(snap, input, cfg, merged, now);
  mark('statusline: figures made');
  const age = now - snap.made_at;
  const behind = age > cfg.refreshMs;
  const unwritable = behind ? startRefresh(rt, a, dir, now) : null;
  const pending = refreshRunningSince(dir, now);
  const failed = lastFailure(dir);
  const unproven = own.unproven ?? merged.unproven;
  const stalled =
    behind &&
    ((pending !== null && now - pending > cfg.staleMs) ||
      (failed !== null && failed.at > snap.made_at && age > cfg.staleMs));
  const lastGood = readLastGood(dir);
  const key = input.session_id ?? '';
  if (unproven || stalled || unwritable) {
    figures.stale = true;
    // Said on the line too when it needs the user (a cache or store that cannot be written); a busy store passes.
    const failedSince = failed && failed.at > snap.made_at ? failed : null;
    figures.stale_reason =
      unwritable ??
      unproven ??
      (failedSince ? `refresh failed: ${failedSince.message}` : 'the store is busy: a refresh has been waiting for it');
    figures.stale_note = unwritable ? UNWRITABLE_NOTE : !unproven && failedSince ? failedSince.note : null;
    const prev = unproven ? lastGood[key] : undefined;
    if (prev) {
      // The last line proven equal to the store's, marked stale.
      const f = {
        ...prev.figures,
        stale: true,
        stale_reason: figures.stale_reason,
        stale_note: unwritable ? UNWRITABLE_NOTE : null,
        snapshot_age_seconds: Math.round((now - prev.at) / 1000),
      };
      return output(format, renderStatusLine(f, cfg, color, now), f);
    }
  }
  const line = renderStatusLine(figures, cfg, color, now);
  output(format, line, figures);
  if (!figures.stale) saveLastGood(dir, lastGood, key, { line, figures, at: now });
}

function reading(l: StatusInput['five_hour'], minutes: number) {
  return l ? { used_percent: l.used_percent, window_minutes: minutes, resets_at: l.resets_at } : null;
}

/** `statusline --refresh`, through main.ts: the store and the snapshot brought up to date. */
export async function statuslineRefresh(rt: Runtime): Promise<void> {
  const cfg = liveConfig(rt.env, rt.home);
  const { lockedRefresh } = await import('./live-refresh.js');
  let now = Date.now();
  if (rt.env.TX_USAGE_NOW && Number.isFinite(Date.parse(rt.env.TX_USAGE_NOW))) now = Date.parse(rt.env.TX_USAGE_NOW);
  await lockedRefresh(rt, {
    now,
    lineHarnesses: [...new Set([LINE_HARNESS, ...cfg.harnesses])],
    monthStart: periodBounds('month', now, cfg.tz ?? LOCAL_ZONE).start,
  });
}
