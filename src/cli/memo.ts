// The report memo: a report run again with nothing changed is answered with
// the rendering its last full run printed, without loading DuckDB (whose
// native library alone costs more than the whole answer). Validity
// is proven, not assumed. An entry holds:
// - the command's arguments (as parsed: args.ts or yargs, the same);
// - every input the full run read besides the sources (core/inputs.ts:
//   environment variables, report definitions, query templates, price data
//   and overrides, the config file, the zone, the terminal, today's date),
//   each with the answer it had, and the build that ran;
// - the digest of what the ingest found (roots, discovery warnings and the
//   stamp of every source, taken BEFORE it read them).
// It is replayed only when every input gives the same answer again and a
// fresh discovery (or its record, ingest/discovery-record.ts) and stat pass
// give the same digest. --from, --demo, --rebuild and in-memory stores are
// never memoized.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { loadRecord, replayRecord, saveRecord } from '../ingest/discovery-record.js';
import { fingerprintsOf, scanDigest, stampAll, type ScanFacts, type Stamp } from '../ingest/stamp.js';
import { readSidecar } from '../ingest/sidecar.js';
import { lastIngestDigest, noteEarlyStart, offerDiscovery, sidecarPath } from '../ingest/handoff.js';
import {
  firstDayRead,
  reportWindow,
  systemZoneWithoutIntl,
  wholePeriods,
  todayIn,
  type ReadsFrom,
} from '../report/period.js';
import { horizonOfDay } from '../ingest/horizon.js';
import { inputsHold, takeInputs, type Input } from '../core/inputs.js';
import { buildInputs } from './build-inputs.js';
import { cacheDir, type Runtime } from './runtime.js';
import { mark } from '../core/trace.js';
import { outFileWritable, writeOutFile } from './out-file.js';
import { ownJson, replaceOwnFile } from '../io/own-file.js';
import { readOnlyProblem } from '../store/errors.js';

// 6: entries keyed on the arguments alone (no command line: args.ts reads it without yargs).
const MEMO_VERSION = 6;
const KIND = 'report-memo';
/** What versions before the marker wrote (own-file.ts): still ours to replace. */
const LEGACY = ['{"version":'];
const MAX_ENTRIES = 16;
/** Renderings larger than this are not kept (an HTML report with charts can be big). */
const MAX_TEXT = 8 << 20;

interface Entry {
  args: Record<string, unknown>;
  /** JSON of `args` (and the Node version): how the entry is found. */
  key: string;
  inputs: Input[];
  digest: string;
  stdout: string;
  outPath: string | null;
  stderr: string;
  savedAt: number;
}

export interface MemoProbe {
  /** The rendering was replayed: nothing else to do. */
  hit: boolean;
  /** Null when this run must not be memoized. */
  key: string | null;
}

/** What a memo check found: the sources, the discovery's warnings, and the stamps it took. */
interface Found {
  scans: ScanFacts[];
  warnings: string[];
  /** Null when no memo entry waited on them: the report takes them (runtime.ts). */
  stamps: Map<string, Stamp | null> | null;
  /**
   * Writes the discovery record this search made (absent when the old one
   * held): done once the early start has the workers busy (handOff) or the
   * answer is out, rather than before.
   */
  saveRecord?: () => void;
}

let noted: { text: string; outPath: string | null; stderr: string } | null = null;

/** Called by the report command with exactly what it printed. */
export function noteReportOutput(text: string, outPath: string | null | undefined, stderr: string): void {
  noted = { text, outPath: outPath ?? null, stderr };
}

/** One memo file per cache dir (wherever --db points), so it can be found before the arguments are parsed. */
function memoPath(env: NodeJS.ProcessEnv, home: string): string {
  return join(cacheDir(env, home), 'report-memo.json');
}

/** The arguments as the memo keeps them: yargs' camel-case duplicates and `_`/`$0` left out, keys sorted. */
function argsOf(a: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(a)
      .filter(([k]) => k !== '_' && k !== '$0' && !k.includes('-'))
      .sort(([x], [y]) => (x < y ? -1 : 1)),
  );
}

/** The entry key of these arguments; null when this run must not be memoized. */
function memoKey(rt: Runtime, a: Record<string, unknown>): string | null {
  if (rt.rebuild || rt.dbPath === ':memory:' || a.demo || (Array.isArray(a.from) && a.from.length)) return null;
  return JSON.stringify({ node: process.version, args: argsOf(a) });
}

/** A memoized rendering written as the report wrote it (to --out or stdout, notices to stderr). */
function writeOutput(rt: Runtime, entry: Entry, force: boolean): void {
  if (entry.outPath) writeOutFile(entry.outPath, entry.stdout, cacheDir(rt.env, rt.home), force, rt.dbPath);
  else process.stdout.write(entry.stdout);
  if (entry.stderr) process.stderr.write(entry.stderr);
}

function readEntries(path: string): Entry[] {
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as { 'tx-usage'?: string; version: number; entries: Entry[] };
    return m['tx-usage'] === KIND && m.version === MEMO_VERSION && Array.isArray(m.entries) ? m.entries : [];
  } catch {
    return [];
  }
}

/**
 * Milliseconds since the process started, as performance.now() gives them:
 * the `performance` global loads perf_hooks on first use, process.uptime() does not.
 */
const sinceStart = (): number => process.uptime() * 1000;

export function writeStatsFile(stats: object): void {
  const file = process.env.TX_USAGE_STATS;
  if (!file) return;
  try {
    writeFileSync(file, JSON.stringify({ ...stats, maxRssKb: process.resourceUsage().maxRSS }) + '\n');
  } catch {
    /* best effort */
  }
}

/** The build's identity for the discovery record: a new build may discover differently. */
function buildLine(): string {
  return buildInputs()
    .map((i) => (i.k === 'file' ? `${i.path}\t${i.v}` : ''))
    .join('\n');
}

/**
 * The sources, from the discovery record in the cache dir when all its
 * answers still hold, else from a discovery run now (and recorded). Then
 * stamped, when a memo entry is to be checked against them: before the
 * ingest reads anything, so the ingest uses these stamps. Otherwise
 * (`forIngest`) handOff has them taken.
 */
export async function findSources(rt: Runtime, forIngest = false): Promise<Found> {
  const path = join(cacheDir(rt.env, rt.home), 'discovery.json');
  const build = buildLine();
  const rec = loadRecord(path);
  mark('memo: discovery record read');
  let found: Omit<Found, 'stamps'> | null = rec && rec.build === build ? replayRecord(rec, rt) : null;
  if (!found) {
    const { discoverRecorded } = await import('../ingest/discover.js');
    const warnings: string[] = [];
    const { scans, record } = await discoverRecorded(rt, warnings);
    mark('sources found');
    let unsaved = true;
    const save = () => {
      if (unsaved) saveRecord(path, { ...record(), build });
      unsaved = false;
    };
    found = { scans, warnings, saveRecord: save };
  }
  mark('memo: discovery record replayed');
  if (forIngest) return { ...found, stamps: null };
  const stamps = stampAll(found.scans);
  mark('sources stamped');
  return { ...found, stamps };
}

/** Replays `entry` if every source still has the stamp it had when the entry was rendered; else what was found. */
async function replayIfCurrent(rt: Runtime, entry: Entry, t0: number): Promise<true | Found> {
  const found = await findSources(rt);
  mark('memo: sources found and stamped');
  const { scans, warnings } = found;
  if (scanDigest(scans, fingerprintsOf(found.stamps!), warnings) !== entry.digest) return found; // the ingest that follows writes the record (handOff)
  mark('memo: sources digested');
  // An --out file that may not be replaced now (changed by someone else): the full run says why.
  const force = entry.args.force === true;
  if (entry.outPath && !outFileWritable(entry.outPath, cacheDir(rt.env, rt.home), force, rt.dbPath)) return found;
  // A store that cannot be written now: the full run answers from it and says so (runtime.ts answerReadOnly),
  // a warning the entry, rendered when it could be written, does not carry. (A few access(2) calls.)
  if (readOnlyProblem(rt.dbPath)) return found;
  writeOutput(rt, entry, force);
  found.saveRecord?.();
  writeStatsFile({
    kind: 'memo-hit',
    sources: scans.reduce((n, s) => n + s.sources.length, 0),
    ms: { total: sinceStart() - t0 },
    at: { start: t0, end: sinceStart() },
  });
  return true;
}

/**
 * Replays the memoized rendering for these arguments when nothing changed.
 * On a miss, hands the discovered sources to the ingest that follows, so
 * they are not searched twice.
 */
export async function replayReport(rt: Runtime, a: Record<string, unknown>): Promise<MemoProbe> {
  const t0 = sinceStart();
  const key = memoKey(rt, a);
  if (!key) return { hit: false, key: null };
  const entry = readEntries(memoPath(rt.env, rt.home)).find((e) => e.key === key);
  mark(entry ? 'memo: entry read' : 'memo: no entry');
  const r = entry && inputsHold(entry.inputs, todayIn) ? await replayIfCurrent(rt, entry, t0) : null;
  if (r === true) return { hit: true, key };
  mark('memo miss');
  const found = r ?? (await findSources(rt, true));
  await handOff(rt, found, a);
  return { hit: false, key };
}

/**
 * The horizon of the report these arguments ask for (see horizon.ts): today
 * here is the system zone's, read without Intl (Date's local fields: the zone
 * Intl resolves too). Only for the early start, which may read more than the
 * ingest needs (the ingest then keeps it) or less (the ingest reads the
 * rest): a day taken off it for safety made a cold 30-day report read 44
 * more transcripts (10 MB) of the benchmark corpus than it needed.
 */
function earlyHorizon(a: Record<string, unknown>): number | null {
  try {
    const name = typeof a.name === 'string' ? a.name : 'summary';
    const def = JSON.parse(readFileSync(join(packageRoot(), 'reports', `${name}.json`), 'utf8')) as {
      reads_from?: ReadsFrom;
    };
    const d = new Date();
    const today =
      typeof a.tz === 'string'
        ? todayIn(a.tz)
        : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const w = reportWindow(
      typeof a.since === 'string' ? a.since : undefined,
      typeof a.until === 'string' ? a.until : undefined,
      today,
    );
    const { since } = name === 'summary' && typeof a.by === 'string' ? wholePeriods(w, a.by.split(','), today) : w;
    const tz = typeof a.tz === 'string' ? a.tz : systemZoneWithoutIntl();
    return horizonOfDay(firstDayRead(def.reads_from, since), tz);
  } catch {
    return null; // an unknown report or a bad --since: the full path says so
  }
}

/**
 * A miss: the report that follows gets the sources found. When some are new
 * to the store (not in the sidecar index its last ingest left, see
 * ingest/sidecar.ts), they start being read now, in worker threads, while
 * DuckDB loads (ingest/early.ts); a new question of a store that knows every
 * source loads none of that.
 */
async function handOff(rt: Runtime, found: Found, a: Record<string, unknown>): Promise<void> {
  try {
    const side = sidecarPath(rt.dbPath);
    const horizon = side && !rt.rebuild ? earlyHorizon(a) : null;
    if (side && !rt.rebuild && someUnknown(found.scans, side, horizon)) {
      const [{ startEarlyExtraction }, { withHarnesses }] = await Promise.all([
        import('../ingest/early.js'),
        import('../ingest/discover.js'),
      ]);
      if (startEarlyExtraction(rt, withHarnesses(found.scans), side, found.stamps ?? undefined, horizon))
        noteEarlyStart();
    }
    offerDiscovery(rt, found.scans, found.warnings, found.stamps);
  } finally {
    found.saveRecord?.();
  }
}

/**
 * Whether a source that can be read early is missing from the sidecar index
 * (or there is none): neither known to the store nor left unread by its last
 * ingest under a horizon no later than this report's.
 */
function someUnknown(scans: ScanFacts[], side: string, horizon: number | null): boolean {
  const known = readSidecar(side, { horizon });
  if (!known) return true;
  for (const s of scans) for (const src of s.sources) if (src.kind !== 'sqlite' && !known.has(src.key)) return true;
  return false;
}

/** After a full report run: remembers its rendering with what the run read and the digest of what the ingest read. */
export function saveReportMemo(rt: Runtime, probe: MemoProbe, a: Record<string, unknown>): void {
  const digest = lastIngestDigest();
  const out = noted;
  noted = null;
  if (!probe.key || !digest || !out || out.text.length > MAX_TEXT) return;
  const inputs = [...buildInputs(), ...takeInputs()];
  saveEntry(rt, {
    args: argsOf(a),
    key: probe.key,
    inputs,
    digest,
    stdout: out.text,
    outPath: out.outPath,
    stderr: out.stderr,
    savedAt: Date.now(),
  });
}

/** Puts `entry` first, in place of any entry with its key. */
function saveEntry(rt: Runtime, entry: Entry): void {
  const path = memoPath(rt.env, rt.home);
  const entries = readEntries(path).filter((e) => e.key !== entry.key);
  entries.unshift(entry);
  // A memo that cannot be written only costs speed next time; a file there that is not ours is left alone.
  replaceOwnFile(path, ownJson(KIND, { version: MEMO_VERSION, entries: entries.slice(0, MAX_ENTRIES) }), KIND, LEGACY);
}
