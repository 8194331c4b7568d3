// The warm fast path of `tx-usage report`: when no source changed since a
// report with the same arguments was rendered, print that rendering again
// without loading DuckDB (whose native library alone costs more than the
// whole answer). Validity is proven, not assumed:
// - the key holds everything else the output depends on: the arguments,
//   today's date in the report's zone, the terminal, the runtime options,
//   the build, and the stats of every other file read (report definitions,
//   query templates, price data, price overrides, team config);
// - the digest holds what was found: roots, discovery warnings and the stamp
//   (size, mtime, inode, companions) of every source, taken by the ingest
//   BEFORE it read them, compared with a fresh stat pass.
// Anything unknown (--from, --demo, --rebuild, an in-memory store) skips it.
import { existsSync, mkdirSync, statSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTeamConfig } from '../export/config.js';
import { loadRecord, replayRecord, saveRecord } from '../ingest/discovery-record.js';
import { fingerprintsOf, scanDigests, stampAll, type ScanDigests, type ScanFacts, type Stamp } from '../ingest/stamp.js';
import { lastIngestDigest, offerDiscovery, sidecarPath } from '../ingest/handoff.js';
import { firstDayRead, isValidTimeZone, parseDay, systemZoneWithoutIntl, todayIn, type ReadsFrom } from '../report/period.js';
import { horizonOfDay } from '../ingest/horizon.js';
import { cacheDir, runtimeFrom, type GlobalArgs, type Runtime } from './runtime.js';
import { loadBundle } from './code-cache.js';
import { mark } from '../core/trace.js';
import { isTTY, writeAllSync } from './closed-stdout.js';
import { digest128 } from '../core/digest.js';

// 4: digests by SHA-256 again (core/digest.ts).
const MEMO_VERSION = 4;
const MAX_ENTRIES = 16;
/** Renderings larger than this are not kept (an HTML report with charts can be big). */
const MAX_TEXT = 8 << 20;
/** Environment variables that can change a rendering without changing any file. */
const ENV_KEYS = ['TZ', 'LANG', 'LC_ALL', 'LC_NUMERIC', 'LC_TIME', 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS'];
/** TX_USAGE_ variables that change how a run works or what it reports about itself, never its output. */
const ENV_IGNORED = new Set(['TX_USAGE_STATS', 'TX_USAGE_TRACE', 'TX_USAGE_WORKERS']);

interface Entry {
  /** The command line (as yargs was given it) and what yargs made of it: lets a repeat be answered before yargs loads. */
  argv: string;
  args: Record<string, unknown>;
  key: string;
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
  stamps: Map<string, Stamp | null>;
  /** The shape digest of scans and warnings, when the discovery record knew it. */
  shape?: string;
  /**
   * Writes the discovery record this search made (absent when the old one
   * held): ~4 ms of JSON, done once the early start has the workers busy
   * (handOff) or the answer is out, rather than before.
   */
  saveRecord?: () => void;
}

/** A miss found by replayByArgv, so the check after yargs does not search again. */
let probed: ({ key: string } & Found) | null = null;

let noted: { text: string; outPath: string | null; stderr: string } | null = null;

/** Called by the report command with exactly what it printed. */
export function noteReportOutput(text: string, outPath: string | null | undefined, stderr: string): void {
  noted = { text, outPath: outPath ?? null, stderr };
}

/** One memo file per cache dir (wherever --db points), so it can be found before the arguments are parsed. */
function memoPath(env: NodeJS.ProcessEnv, home: string): string {
  return join(cacheDir(env, home), 'report-memo.json');
}

function packageRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json'))) {
    const up = dirname(d);
    if (up === d) return d;
    d = up;
  }
  return d;
}

/**
 * The compiled memo module, standing for the build: named relative to this
 * module rather than as this module, because the bin entry (fast.cjs, next
 * to it) bundles this code, and both must compute the same keys.
 */
function buildFile(): string {
  return fileURLToPath(new URL('./memo.js', import.meta.url));
}

function statLine(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s) return `${path}\t${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    /* unreadable: as if missing */
  }
  return `${path}\t-`;
}

function dirLines(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [`${dir}\t-`];
  }
  return names.map((n) => statLine(join(dir, n)));
}

function argsOf(a: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a).filter(([k]) => k !== '_' && k !== '$0' && !k.includes('-')).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/** Everything besides the sources that the rendering depends on; null when this run must not be memoized. */
function memoKey(rt: Runtime, a: Record<string, unknown>): string | null {
  if (rt.rebuild || rt.dbPath === ':memory:' || a.demo || (Array.isArray(a.from) && a.from.length)) return null;
  let day: object;
  if (typeof a.tz === 'string') {
    if (!isValidTimeZone(a.tz)) return null;
    day = { tz: a.tz, today: todayIn(a.tz) };
  } else {
    // The system zone without Intl (whose first use costs ~15 ms): TZ (in
    // `env` below), else /etc/localtime; today from Date's local fields.
    const d = new Date();
    let localtime = '-';
    try {
      localtime = `${realpathSync('/etc/localtime')}\t${statLine('/etc/localtime')}`;
    } catch {
      /* no /etc/localtime: TZ or UTC */
    }
    day = { localtime, today: `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`, offset: d.getTimezoneOffset() };
  }
  let config;
  try {
    config = readTeamConfig(rt.env, rt.home);
  } catch {
    return null; // the full path reports the bad config
  }
  const root = packageRoot();
  const files = [
    buildFile(),
    join(root, 'package.json'),
    config.path,
    ...(config.prices ? [config.prices] : []),
    ...(rt.pricesFile ? [rt.pricesFile] : []),
    ...dirLines(join(root, 'reports')),
    ...dirLines(join(root, 'queries')),
    join(root, 'node_modules', 'yargs', 'package.json'),
    ...dirLines(join(cacheDir(rt.env, rt.home), 'prices')),
  ];
  const args = argsOf(a);
  const env = Object.entries(rt.env)
    .filter(([k]) => ENV_KEYS.includes(k) || (k.startsWith('TX_USAGE_') && !ENV_IGNORED.has(k)))
    .sort(([x], [y]) => (x < y ? -1 : 1));
  const outTTY = isTTY(1);
  const basis = {
    v: MEMO_VERSION,
    node: process.version,
    args,
    day,
    cwd: process.cwd(),
    host: hostname(),
    rt: { home: rt.home, db: rt.dbPath, roots: rt.rootOverrides, quiet: rt.quiet, color: rt.color, prices: rt.pricesFile ?? null },
    tty: { out: outTTY, err: isTTY(2), columns: outTTY ? process.stdout.columns ?? null : null },
    env,
    files: files.map((f) => (f.includes('\t') ? f : statLine(f))),
  };
  return digest128(JSON.stringify(basis));
}

/** A memoized rendering written as the report wrote it (to --out or stdout, notices to stderr), without creating the stdio streams. */
function writeOutput(outPath: string | null | undefined, text: string, stderr: string): void {
  if (outPath) writeFileSync(outPath, text);
  else if (!writeAllSync(1, text)) return;
  if (stderr) writeAllSync(2, stderr);
}

function readEntries(path: string): Entry[] {
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as { version: number; entries: Entry[] };
    return m.version === MEMO_VERSION && Array.isArray(m.entries) ? m.entries : [];
  } catch {
    return [];
  }
}

/**
 * Milliseconds since the process started, as performance.now() gives them:
 * the `performance` global loads perf_hooks on first use (~2 ms of a warm
 * run's ~60), process.uptime() does not.
 */
const sinceStart = (): number => process.uptime() * 1000;

function writeStatsFile(env: NodeJS.ProcessEnv, stats: object): void {
  const file = env.TX_USAGE_STATS ?? process.env.TX_USAGE_STATS;
  if (!file) return;
  try {
    writeFileSync(file, JSON.stringify({ ...stats, maxRssKb: process.resourceUsage().maxRSS }) + '\n');
  } catch {
    /* best effort */
  }
}

/** The build's identity for the discovery record: a new build may discover differently. */
function buildLine(): string {
  return [join(packageRoot(), 'package.json'), buildFile()].map(statLine).join('\n');
}

/**
 * The sources, from the discovery record in the cache dir when all its
 * answers still hold, else from a discovery run now (and recorded). Then
 * stamped: before the ingest reads anything, so the ingest uses these stamps.
 */
async function findSources(rt: Runtime): Promise<Found> {
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
    // No shape digest yet: made when first needed (a delta answer, stamp.ts ScanDigests.shape).
    found = { scans, warnings, saveRecord: save };
  }
  mark('memo: discovery record replayed');
  const stamps = stampAll(found.scans);
  mark('sources stamped');
  return { ...found, stamps };
}

/** Replays `entry` if every source still has the stamp it had when the entry was rendered. */
async function replayIfCurrent(rt: Runtime, entry: Entry, t0: number): Promise<boolean | Found> {
  const found = await findSources(rt);
  mark('memo: sources found and stamped');
  const { scans, warnings } = found;
  const now = scanDigests(scans, fingerprintsOf(found.stamps), warnings);
  mark('memo: sources digested');
  if (now.digest !== entry.digest) return found; // the ingest that follows writes the record (handOff)
  writeOutput(entry.outPath, entry.stdout, entry.stderr);
  found.saveRecord?.();
  writeStatsFile(rt.env, { kind: 'memo-hit', sources: scans.reduce((n, s) => n + s.sources.length, 0), ms: { total: sinceStart() - t0 }, at: { start: t0, end: sinceStart() } });
  return true;
}

const HANDED = Symbol.for('tx-usage.memo-probe');
type ArgvProbe = { hit: boolean; seen?: { rt: Runtime; args: Record<string, unknown> } };

/** Called by the bin entry (fast.cjs) on a miss: the ESM main takes over what it found. */
export function handProbeOver(result: ArgvProbe): void {
  (globalThis as Record<symbol, unknown>)[HANDED] = { result, probed };
}

/** What the bin entry found before it handed over to main (null when main was started directly). */
export function takeHandedProbe(): ArgvProbe | null {
  const g = globalThis as Record<symbol, unknown>;
  const h = g[HANDED] as { result: ArgvProbe; probed: typeof probed } | undefined;
  delete g[HANDED];
  if (!h) return null;
  probed = h.probed;
  return h.result;
}

/**
 * Before yargs is even loaded: a command line seen before is answered from
 * the memo when its key (recomputed from what yargs made of it then) and
 * the sources are unchanged. On a miss for a command line seen before, its
 * parsed arguments are handed back, so the report can run without yargs.
 */
export async function replayByArgv(argv: string[]): Promise<ArgvProbe> {
  const t0 = sinceStart();
  const env = process.env;
  const home = env.HOME && env.HOME.trim() ? env.HOME : homedir();
  const line = JSON.stringify(argv);
  const entry = readEntries(memoPath(env, home)).find((e) => e.argv === line);
  if (!entry) return { hit: false };
  let rt: Runtime;
  try {
    rt = runtimeFrom(entry.args as GlobalArgs, env);
  } catch {
    return { hit: false };
  }
  mark('memo: entry read');
  if (memoKey(rt, entry.args) !== entry.key) return { hit: false };
  mark('memo: key computed');
  const r = await replayIfCurrent(rt, entry, t0);
  if (r === true) return { hit: true };
  if (r) probed = { key: entry.key, ...r };
  // Same command line, same build: yargs would make the same arguments of it.
  return { hit: false, seen: { rt, args: entry.args } };
}

/**
 * After yargs: replays the memoized rendering for these arguments when
 * nothing changed. On a miss, hands the discovered sources to the ingest
 * that follows, so they are not searched twice.
 */
export async function replayReport(rt: Runtime, a: Record<string, unknown>): Promise<MemoProbe> {
  const t0 = sinceStart();
  const key = memoKey(rt, a);
  if (!key) return { hit: false, key: null };
  const before = probed;
  probed = null;
  let found: Found;
  if (before && before.key === key) {
    // replayByArgv already compared this very entry with the sources.
    found = before;
  } else {
    const entry = readEntries(memoPath(rt.env, rt.home)).find((e) => e.key === key);
    const r = entry ? await replayIfCurrent(rt, entry, t0) : null;
    if (r === true) return { hit: true, key };
    if (r) found = r;
    else found = await findSources(rt);
  }
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
    const def = JSON.parse(readFileSync(join(packageRoot(), 'reports', `${name}.json`), 'utf8')) as { reads_from?: ReadsFrom };
    const d = new Date();
    const today = typeof a.tz === 'string' ? todayIn(a.tz) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const since = parseDay(typeof a.since === 'string' ? a.since : '30d', '--since', today);
    const tz = typeof a.tz === 'string' ? a.tz : systemZoneWithoutIntl();
    return horizonOfDay(firstDayRead(def.reads_from, since), tz);
  } catch {
    return null; // an unknown report or a bad --since: the full path says so
  }
}

/** A miss: the ingest that follows gets the sources found, and new ones start being read now, while DuckDB loads. */
async function handOff(rt: Runtime, found: Found, a: Record<string, unknown>): Promise<void> {
  try {
    const { withHarnesses } = await import('../ingest/discover.js');
    const scans = withHarnesses(found.scans);
    offerDiscovery(rt, scans, found.warnings, found.stamps);
    const side = sidecarPath(rt.dbPath);
    if (!side || rt.rebuild) return;
    const { startEarlyExtraction } = await import('../ingest/early.js');
    startEarlyExtraction(rt, scans, side, found.stamps, earlyHorizon(a));
  } finally {
    found.saveRecord?.();
  }
}

/** After a full report run: remembers its rendering under the digest of what the ingest read. */
export function saveReportMemo(rt: Runtime, probe: MemoProbe, argv: string[], a: Record<string, unknown>): void {
  const digest = lastIngestDigest();
  const out = noted;
  noted = null;
  if (!probe.key || !digest || !out || out.text.length > MAX_TEXT) return;
  saveEntry(rt, { argv: JSON.stringify(argv), args: argsOf(a), key: probe.key, digest, stdout: out.text, outPath: out.outPath, stderr: out.stderr, savedAt: Date.now() });
}

/** Puts `entry` first, in place of any entry with its key or command line. */
function saveEntry(rt: Runtime, entry: Entry): void {
  const path = memoPath(rt.env, rt.home);
  const entries = readEntries(path).filter((e) => e.key !== entry.key && e.argv !== entry.argv);
  entries.unshift(entry);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ version: MEMO_VERSION, entries: entries.slice(0, MAX_ENTRIES) }));
    renameSync(tmp, path);
  } catch {
    /* a memo that cannot be written only costs speed next time */
  }
}
