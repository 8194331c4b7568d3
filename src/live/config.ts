// The live views' settings in the config file ($XDG_CONFIG_HOME/tx-usage/config.json,
// the file export/config.ts reads too):
//
//   "statusline": {
//     "segments": ["model", "session", "today", "block", "burn", "limits", "context", "budget"],
//     "colors": { "model": "cyan", "warn": "yellow", "over": "red" },   // or false for none
//     "harnesses": ["claude-code"],      // whose blocks and today's spend the line shows
//     "refresh_seconds": 10,             // how old the snapshot may get before a refresh starts
//     "stale_seconds": 30,               // a refresh pending this long marks the line stale
//     "tz": "Europe/Berlin"              // the zone "today" is cut in (default: the system zone)
//   },
//   "budgets": {                         // USD
//     "day": 20, "month": 400, "block": 10,
//     "harness": { "codex": { "day": 5 } },
//     "project": { "/home/me/src/app": { "month": 100 } }
//   }
//
// Read without throwing: the status line must print a line whatever the
// file says, so problems come back as messages for the caller to show.
import { existsSync } from 'node:fs';
import { configPath, MAX_CONFIG_BYTES, parseConfigText } from '../export/config.js';
import { readRegularText } from '../io/regular-file.js';
import { HARNESS_IDS } from '../core/types.js';
import { isValidTimeZone } from '../report/period.js';

export const SEGMENTS = ['model', 'session', 'today', 'block', 'burn', 'limits', 'context', 'budget'] as const;
export type Segment = (typeof SEGMENTS)[number];
export const DEFAULT_SEGMENTS: Segment[] = ['model', 'session', 'today', 'block', 'burn', 'limits', 'budget'];

/** Colour roles: one per segment, plus the budget and limit states and the stale mark. */
export const COLOR_ROLES = [...SEGMENTS, 'warn', 'over', 'stale', 'separator'] as const;
export type ColorRole = (typeof COLOR_ROLES)[number];

const SGR: Record<string, string> = {
  black: '30',
  red: '31',
  green: '32',
  yellow: '33',
  blue: '34',
  magenta: '35',
  cyan: '36',
  white: '37',
  gray: '90',
  grey: '90',
  bright_red: '91',
  bright_green: '92',
  bright_yellow: '93',
  bright_blue: '94',
  bright_magenta: '95',
  bright_cyan: '96',
  bold: '1',
  dim: '2',
  none: '',
};
export const COLOR_NAMES = Object.keys(SGR);

const DEFAULT_COLORS: Record<ColorRole, string> = {
  model: 'cyan',
  session: 'green',
  today: 'none',
  block: 'blue',
  burn: 'magenta',
  limits: 'none',
  context: 'none',
  budget: 'none',
  warn: 'yellow',
  over: 'red',
  stale: 'gray',
  separator: 'gray',
};

export type BudgetPeriod = 'day' | 'month' | 'block';
export const BUDGET_PERIODS: BudgetPeriod[] = ['day', 'month', 'block'];

export interface Budget {
  period: BudgetPeriod;
  usd: number;
  /** Only this harness / project (substring match, as --project) when set. */
  harness?: string;
  project?: string;
}

export interface LiveConfig {
  path: string;
  segments: Segment[];
  /** SGR parameters per role ('' = none); null = no colour at all. */
  colors: Record<ColorRole, string> | null;
  harnesses: string[];
  refreshMs: number;
  staleMs: number;
  tz: string | null;
  budgets: Budget[];
  /** What was wrong in the file (each names the file and the setting). */
  problems: string[];
  /** The file as a whole could not be used (unreadable, not a regular file, not JSON, not an object): its defaults apply. */
  fileProblem: string | null;
}

/** The settings with no config file (`path` the file they would come from). */
export function defaultLiveConfig(path: string): LiveConfig {
  return {
    path,
    segments: [...DEFAULT_SEGMENTS],
    colors: { ...DEFAULT_COLORS },
    harnesses: ['claude-code'],
    refreshMs: 10_000,
    staleMs: 30_000,
    tz: null,
    budgets: [],
    problems: [],
    fileProblem: null,
  };
}

export function liveConfig(env: NodeJS.ProcessEnv, home: string): LiveConfig {
  const path = configPath(env, home);
  const cfg = defaultLiveConfig(path);
  if (!existsSync(path)) return cfg;
  // Only a regular file of a sane size (a FIFO or /dev/zero there would hang or exhaust the status line).
  const raw = parseConfigText(path, () => readRegularText(path, MAX_CONFIG_BYTES));
  if (typeof raw === 'string') {
    cfg.problems.push(raw);
    cfg.fileProblem = raw;
    return cfg;
  }
  const bad = (what: string, why: string) => cfg.problems.push(`${path}: "${what}" ${why}`);
  const sl = raw.statusline as Record<string, unknown> | undefined;
  if (sl !== undefined && (sl === null || typeof sl !== 'object' || Array.isArray(sl)))
    bad('statusline', 'must be an object');
  else if (sl) {
    if (sl.segments !== undefined) {
      const list = Array.isArray(sl.segments) ? sl.segments : null;
      const unknown = list?.filter((x) => !(SEGMENTS as readonly unknown[]).includes(x));
      if (!list || unknown!.length)
        bad(
          'statusline.segments',
          `must be a list of ${SEGMENTS.join(', ')}${unknown?.length ? ` (not ${unknown.map((x) => JSON.stringify(x)).join(', ')})` : ''}`,
        );
      else cfg.segments = list as Segment[];
    }
    if (sl.colors === false) cfg.colors = null;
    else if (sl.colors !== undefined && sl.colors !== true) {
      if (sl.colors === null || typeof sl.colors !== 'object' || Array.isArray(sl.colors))
        bad('statusline.colors', 'must be false or an object of role → colour');
      else
        for (const [role, name] of Object.entries(sl.colors as Record<string, unknown>)) {
          if (!(COLOR_ROLES as readonly string[]).includes(role))
            bad(`statusline.colors.${role}`, `is not one of ${COLOR_ROLES.join(', ')}`);
          else if (typeof name !== 'string' || !(name in SGR))
            bad(`statusline.colors.${role}`, `must be one of ${COLOR_NAMES.join(', ')}`);
          else cfg.colors![role as ColorRole] = name;
        }
    }
    if (sl.harnesses !== undefined) {
      const list = Array.isArray(sl.harnesses) ? sl.harnesses : null;
      if (!list || !list.length || list.some((h) => !(HARNESS_IDS as readonly unknown[]).includes(h)))
        bad('statusline.harnesses', `must be a list of ${HARNESS_IDS.join(', ')}`);
      else cfg.harnesses = list as string[];
    }
    const seconds = (k: string, set: (ms: number) => void) => {
      const v = sl[k];
      if (v === undefined) return;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 1)
        bad(`statusline.${k}`, 'must be a number of seconds, at least 1');
      else set(v * 1000);
    };
    seconds('refresh_seconds', (ms) => (cfg.refreshMs = ms));
    seconds('stale_seconds', (ms) => (cfg.staleMs = ms));
    if (sl.tz !== undefined) {
      if (typeof sl.tz !== 'string' || !sl.tz) bad('statusline.tz', 'must be an IANA zone name');
      // Checked here, so that it is named by the file and key, not taken for a --tz.
      else if (!isValidTimeZone(sl.tz))
        bad('statusline.tz', `${JSON.stringify(sl.tz)} is not an IANA time zone (e.g. UTC, Europe/Berlin)`);
      else cfg.tz = sl.tz;
    }
  }
  const b = raw.budgets as Record<string, unknown> | undefined;
  if (b !== undefined) {
    if (b === null || typeof b !== 'object' || Array.isArray(b)) bad('budgets', 'must be an object');
    else {
      const periods = (o: Record<string, unknown>, where: string, scope: { harness?: string; project?: string }) => {
        for (const [k, v] of Object.entries(o)) {
          if (where === 'budgets' && (k === 'harness' || k === 'project')) continue;
          if (!(BUDGET_PERIODS as string[]).includes(k))
            bad(
              `${where}.${k}`,
              `is not one of ${BUDGET_PERIODS.join(', ')}${where === 'budgets' ? ', harness, project' : ''}`,
            );
          else if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
            bad(`${where}.${k}`, 'must be a positive amount in USD');
          else cfg.budgets.push({ period: k as BudgetPeriod, usd: v, ...scope });
        }
      };
      periods(b, 'budgets', {});
      for (const kind of ['harness', 'project'] as const) {
        const m = b[kind];
        if (m === undefined) continue;
        if (m === null || typeof m !== 'object' || Array.isArray(m)) {
          bad(`budgets.${kind}`, `must be an object of ${kind} → budgets`);
          continue;
        }
        for (const [name, o] of Object.entries(m as Record<string, unknown>)) {
          if (kind === 'harness' && !(HARNESS_IDS as readonly string[]).includes(name))
            bad(`budgets.harness.${name}`, `is not one of ${HARNESS_IDS.join(', ')}`);
          else if (o === null || typeof o !== 'object' || Array.isArray(o))
            bad(`budgets.${kind}.${name}`, 'must be an object of period → USD');
          else periods(o as Record<string, unknown>, `budgets.${kind}.${name}`, { [kind]: name });
        }
      }
    }
  }
  return cfg;
}

/** Paints `text` in a role's colour (nothing when colours are off or the role has none). */
export function paint(cfg: LiveConfig, role: ColorRole, text: string, on: boolean): string {
  const code = on && cfg.colors ? SGR[cfg.colors[role]] : '';
  return code ? `\x1b[${code}m${text}\x1b[0m` : text;
}
