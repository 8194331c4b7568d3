// What a run read that can change its answer, besides the harness sources
// (those are stamped and digested, ingest/stamp.ts): environment variables,
// files and folders (report definitions, query templates, stored price data,
// price overrides, the config file, the zone file), the terminal, and the
// day. Every such read goes through this module, which notes what it saw, so
// the report memo (cli/memo.ts) keys a rendering on exactly what its run read
// and, on a later run, asks each question again: same answers, same inputs.
// A read that bypasses this module is a bug that can make the memo replay a
// stale answer; a knob noted that changes nothing only costs a miss.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { digest128 } from './digest.js';
import { readRegularText } from '../io/regular-file.js';

/** One question and the answer it had. */
export type Input =
  | { k: 'env'; name: string; v: string | null }
  /** size:mtime:inode of a file (through links), '-' when it cannot be stat'ed. */
  | { k: 'file'; path: string; v: string }
  /** Digest of a folder's sorted names, '-' when it cannot be listed. */
  | { k: 'dir'; path: string; v: string }
  | { k: 'realpath'; path: string; v: string | null }
  /** The host name (the default machine name of --by machine). */
  | { k: 'host'; v: string }
  /** Whether fd 1 / fd 2 is a terminal, and fd 1's width when it is. */
  | { k: 'tty'; fd: 1 | 2; v: string }
  /** The working directory relative paths were resolved against. */
  | { k: 'cwd'; v: string }
  /** Today's date in a zone (null: the system zone, as Date's local fields give it). */
  | { k: 'today'; tz: string | null; v: string };

/**
 * Environment variables that tune how a run works or what it reports about
 * itself, never its output: not inputs. (One missing here only costs the
 * memo a miss when it changes.)
 */
const RUN_KNOBS = new Set([
  'TX_USAGE_STATS',
  'TX_USAGE_TRACE',
  'TX_USAGE_WORKERS',
  'TX_USAGE_DEBUG',
  'TX_USAGE_NO_WASM',
  'TX_USAGE_LOCK_WAIT_MS',
]);

/**
 * What was noted, kept on a registered global: the bin entry (fast.cjs) and
 * the main bundle each hold a copy of this module, and a run started by one
 * goes on in the other with the same Runtime.
 */
const state = ((globalThis as Record<symbol, unknown>)[Symbol.for('tx-usage.inputs')] ??= {
  seen: new Map<string, Input>(),
  /** Set when something enumerated the environment: then all of it is an input. */
  envEnumerated: false,
  collecting: new Set<Map<string, Input>>(),
}) as { seen: Map<string, Input>; envEnumerated: boolean; collecting: Set<Map<string, Input>> };

function note(id: string, input: Input): void {
  if (!state.seen.has(id)) state.seen.set(id, input);
  for (const c of state.collecting) if (!c.has(id)) c.set(id, state.seen.get(id)!);
}

/**
 * Notes inputs asked on an earlier run, which hold now (inputsHold): a result
 * of theirs this run uses without asking them again (the prices, store/ready.ts)
 * makes what this run renders depend on them.
 */
export function noteHeld(list: readonly Input[]): void {
  for (const i of list) {
    if (i.k === 'env' && i.name === '\0all') state.envEnumerated = true;
    else note(inputId(i), i);
  }
}

function inputId(i: Input): string {
  switch (i.k) {
    case 'env':
      return `env\0${i.name}`;
    case 'file':
    case 'dir':
    case 'realpath':
      return `${i.k}\0${i.path}`;
    case 'tty':
      return `tty\0${i.fd}`;
    case 'today':
      return `today\0${i.tz ?? ''}`;
    case 'host':
    case 'cwd':
      return i.k;
    default:
      return i satisfies never;
  }
}

/**
 * Every input `work` asks (those asked before it too), with the answers they
 * had when first asked in this run: what a result made by `work` depends on
 * besides its arguments (cli/pricing.ts keeps the price data's this way). An
 * input asked meanwhile by other work is included too: a stricter key, never
 * a looser one.
 */
export async function inputsOf<T>(work: () => Promise<T>): Promise<{ value: T; inputs: Input[] }> {
  const c = new Map<string, Input>();
  state.collecting.add(c);
  try {
    const value = await work();
    const inputs = [...c.values()];
    if (state.envEnumerated) inputs.push({ k: 'env', name: '\0all', v: envDigest() });
    return { value, inputs };
  } finally {
    state.collecting.delete(c);
  }
}

/** A file's size:mtime:inode, '-' when it cannot be stat'ed: what a file input's answer is. */
export function statLine(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? `${s.size}:${s.mtimeMs}:${s.ino}` : '-';
  } catch {
    return '-';
  }
}

function listing(path: string): { names: string[] | null; v: string } {
  try {
    const names = readdirSync(path).sort();
    return { names, v: digest128(names.join('\n')) };
  } catch {
    return { names: null, v: '-' };
  }
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The process environment, with every variable read noted as an input.
 * Runtime.env is this (cli/runtime.ts), so the harnesses' roots, the cache
 * and config folders and anything else read through it are covered.
 */
export const inputEnv: NodeJS.ProcessEnv = new Proxy(process.env, {
  get(t, k) {
    if (typeof k === 'string' && !RUN_KNOBS.has(k)) note(`env\0${k}`, { k: 'env', name: k, v: t[k] ?? null });
    return Reflect.get(t, k);
  },
  has(t, k) {
    if (typeof k === 'string' && !RUN_KNOBS.has(k)) note(`env\0${k}`, { k: 'env', name: k, v: t[k] ?? null });
    return Reflect.has(t, k);
  },
  ownKeys(t) {
    state.envEnumerated = true;
    return Reflect.ownKeys(t);
  },
});

/** Largest settings file read (prices overrides, price data, the config file): LiteLLM's whole price list is ~2 MB. */
export const MAX_INPUT_FILE_BYTES = 64 << 20;

/**
 * A file's text (UTF-8), its stat noted first: a change while it is read
 * shows as a change next time. Only a regular file of at most `maxBytes`
 * (io/regular-file.ts): a device, a FIFO or a huge file throws
 * UnusableFileError instead of being read until memory runs out.
 */
export function readInputText(path: string, maxBytes = MAX_INPUT_FILE_BYTES): string {
  note(`file\0${path}`, { k: 'file', path, v: statLine(path) });
  return readRegularText(path, maxBytes);
}

/** Notes a file read by other means (or whose absence matters); returns whether it can be stat'ed. */
export function noteInputFile(path: string): boolean {
  const v = statLine(path);
  note(`file\0${path}`, { k: 'file', path, v });
  return v !== '-';
}

/** A folder's names, sorted; throws what readdir throws (the failure is noted too). */
export function listInputDir(path: string): string[] {
  const l = listing(path);
  note(`dir\0${path}`, { k: 'dir', path, v: l.v });
  if (!l.names) return readdirSync(path); // throws the real error
  return l.names;
}

export function inputRealpath(path: string): string | null {
  const v = realpathOrNull(path);
  note(`realpath\0${path}`, { k: 'realpath', path, v });
  return v;
}

/** `path` made absolute; when it was relative, the working directory is noted. */
export function resolveInputPath(path: string): string {
  if (isAbsolute(path)) return path;
  note('cwd', { k: 'cwd', v: process.cwd() });
  return resolve(path);
}

/** os.hostname(), noted. */
export function inputHostname(): string {
  const v = hostname();
  note('host', { k: 'host', v });
  return v;
}

function ttyNow(fd: 1 | 2): string {
  if ((fd === 1 ? process.stdout : process.stderr).isTTY !== true) return 'no';
  return fd === 1 ? `yes:${process.stdout.columns ?? ''}` : 'yes';
}

/** Whether fd 1 or 2 is a terminal. */
export function inputIsTTY(fd: 1 | 2): boolean {
  const v = ttyNow(fd);
  note(`tty\0${fd}`, { k: 'tty', fd, v });
  return v !== 'no';
}

/** The width to lay tables out in: the terminal's, else 80. */
export function outputColumns(): number {
  inputIsTTY(1);
  return process.stdout.columns || 80;
}

export function localDay(now: Date): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/**
 * The system zone's questions: TZ and the zone file Intl reads when TZ is
 * unset (both noted), then `resolve()` (Intl's answer).
 */
export function noteSystemZone(): void {
  inputEnv.TZ;
  noteInputFile('/etc/localtime');
  inputRealpath('/etc/localtime');
}

/** Notes that the run used today's date in `tz` (null: the system zone), which was `day`. */
export function noteToday(tz: string | null, day: string): void {
  note(`today\0${tz ?? ''}`, { k: 'today', tz, v: day });
}

/** Everything noted so far (once the environment was enumerated, all of it, as one digest). */
export function takeInputs(): Input[] {
  const out = [...state.seen.values()];
  if (state.envEnumerated) out.push({ k: 'env', name: '\0all', v: envDigest() });
  return out;
}

function envDigest(): string {
  return digest128(
    JSON.stringify(
      Object.entries(process.env)
        .filter(([k]) => !RUN_KNOBS.has(k))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
  );
}

/**
 * Whether each input would be answered the same now. `todayIn(tz)` gives
 * today's date in a named zone (the caller's, so this module needs no Intl).
 */
export function inputsHold(list: readonly Input[], todayIn: (tz: string) => string): boolean {
  for (const i of list) {
    switch (i.k) {
      case 'env':
        if ((i.name === '\0all' ? envDigest() : (process.env[i.name] ?? null)) !== i.v) return false;
        break;
      case 'file':
        if (statLine(i.path) !== i.v) return false;
        break;
      case 'dir':
        if (listing(i.path).v !== i.v) return false;
        break;
      case 'realpath':
        if (realpathOrNull(i.path) !== i.v) return false;
        break;
      case 'cwd':
        if (process.cwd() !== i.v) return false;
        break;
      case 'host':
        if (hostname() !== i.v) return false;
        break;
      case 'tty':
        if (ttyNow(i.fd) !== i.v) return false;
        break;
      case 'today':
        if ((i.tz === null ? localDay(new Date()) : todayIn(i.tz)) !== i.v) return false;
        break;
      default:
        return i satisfies never;
    }
  }
  return true;
}
