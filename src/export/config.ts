// The team settings: this machine's name in exports and roll-ups, and the
// salt that --anonymize hashes with. Flags win; else the config file
// $XDG_CONFIG_HOME/tx-usage/config.json (default ~/.config/...):
//   { "machine": "alice-laptop", "export": { "salt": "team secret" }, "prices": "my-prices.json" }
// else the host name.
import { inputHostname, noteInputFile, readInputText } from '../core/inputs.js';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../report/period.js';
import { MACHINE_RE } from './schema.js';
import { fsProblem } from '../core/fs-problem.js';

export interface TeamConfig {
  machine?: string;
  salt?: string;
  /** LiteLLM-format price overrides used when --prices is not given (absolute; a relative path is read from the config's folder). */
  prices?: string;
  /** The file read, for messages. */
  path: string;
}

export function configPath(env: NodeJS.ProcessEnv, home: string): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(base, 'tx-usage', 'config.json');
}

/** Largest config file read: settings, not data (a FIFO or /dev/zero at its path is refused, io/regular-file.ts). */
export const MAX_CONFIG_BYTES = 1 << 20;

/**
 * The config file's top-level object, or what is wrong with it (naming the
 * file): unreadable, not a regular file, too large, not JSON, or JSON that
 * is not an object (`null`, `[]`, a number). `read` gives its text.
 */
export function parseConfigText(path: string, read: () => string): Record<string, unknown> | string {
  let text: string;
  try {
    text = read();
  } catch (e) {
    return `${path}: cannot read the config file: ${fsProblem(e)}`;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return `${path}: not valid JSON (${(e as Error).message})`;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return `${path}: expected a JSON object of settings ({ "machine": …, "budgets": … }), not ${raw === null ? 'null' : Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}`;
  }
  return raw as Record<string, unknown>;
}

export function readTeamConfig(env: NodeJS.ProcessEnv, home: string): TeamConfig {
  const path = configPath(env, home);
  // Through core/inputs.ts: the report memo keys on the config file (its absence too).
  if (!noteInputFile(path)) return { path };
  const raw = parseConfigText(path, () => readInputText(path, MAX_CONFIG_BYTES));
  if (typeof raw === 'string') throw new UsageError(raw);
  const obj = raw as { machine?: unknown; export?: { salt?: unknown }; prices?: unknown };
  const out: TeamConfig = { path };
  if (obj.machine !== undefined) {
    if (typeof obj.machine !== 'string') throw new UsageError(`${path}: "machine" must be a string`);
    out.machine = obj.machine;
  }
  const salt = obj.export?.salt;
  if (salt !== undefined) {
    if (typeof salt !== 'string' || !salt) throw new UsageError(`${path}: "export.salt" must be a non-empty string`);
    out.salt = salt;
  }
  if (obj.prices !== undefined) {
    if (typeof obj.prices !== 'string' || !obj.prices)
      throw new UsageError(`${path}: "prices" must be the path of a prices file`);
    out.prices = resolve(dirname(path), obj.prices);
  }
  return out;
}

/** A host name made safe for file names: other characters become '-'. */
export function sanitizeMachine(name: string): string {
  const s = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 63);
  return MACHINE_RE.test(s) ? s : 'localhost';
}

/** This machine's name: --machine, else config "machine", else the host name. */
export function machineName(flag: string | undefined, cfg: TeamConfig): string {
  const given = flag ?? cfg.machine;
  if (given === undefined) return sanitizeMachine(inputHostname());
  if (!MACHINE_RE.test(given)) {
    const from = flag !== undefined ? '--machine' : `"machine" in ${cfg.path}`;
    throw new UsageError(
      `${from} ${JSON.stringify(given)}: use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  return given;
}

/** The salt for --anonymize: --salt, else config "export.salt"; required. */
export function anonymizeSalt(anonymize: boolean, flag: string | undefined, cfg: TeamConfig): string | null {
  if (flag !== undefined && !anonymize) throw new UsageError('--salt is only used with --anonymize');
  if (!anonymize) return null;
  const salt = flag ?? cfg.salt;
  if (!salt)
    throw new UsageError(`--anonymize needs a salt: pass --salt TEXT or set "export": { "salt": ... } in ${cfg.path}`);
  return salt;
}
