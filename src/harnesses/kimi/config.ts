// What kimi-cli's share folder says about the model and the projects
// (README.md "Model" and "Project"): the wire records no model per call.
//   config.toml  `default_model = "<key>"` and `[models.<key>] model = "<id>"`
//                (kimi-cli config.py; written by kimi-cli itself, one key = value per line)
//   config.json  `{"model": ...}`, the older file, only where no config.toml exists
//   kimi.json    `work_dirs[].path`: a session bucket is md5(path) (`<kaos>_` prefixed off the local machine)
// Each is read whole, small, through the shared readers; a file that is not
// what it should be is named once and the fallback taken.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readJsonFile } from '../../io/json-file.js';
import { readRegularText } from '../../io/regular-file.js';
import { isFile } from '../roots.js';
import type { ExtractSink } from '../types.js';

export type ModelSource = 'meta' | 'toml' | 'json' | 'default';

export interface CliConfig {
  /** The model configured as the default, and where it was found. */
  model: string;
  source: Exclude<ModelSource, 'meta'>;
  /** config.toml's models by key (a sub-agent's meta.json may name a key). */
  models: Map<string, string>;
}

/** kimi-cli's model when none is configured (kimi-cli config.py; ccusage's fallback too). */
export const DEFAULT_MODEL = 'kimi-for-coding';
const MAX_CONFIG_BYTES = 1 << 20;

const TABLE = /^\s*\[\s*models\s*\.\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_.-]+))\s*\]\s*(?:#.*)?$/;
const OTHER_TABLE = /^\s*\[/;
const KEY_VALUE = /^\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(?:#.*)?$/;

/** default_model and each [models.<key>] table's model, from config.toml's text. */
export function parseConfigToml(text: string): { defaultModel: string | null; models: Map<string, string> } {
  let defaultModel: string | null = null;
  const models = new Map<string, string>();
  let table: string | null | undefined = null; // null: top level; undefined: a table not read
  for (const line of text.split(/\r?\n/)) {
    const t = TABLE.exec(line);
    if (t) {
      table = t[1] ?? t[2] ?? t[3]!;
      continue;
    }
    if (OTHER_TABLE.test(line)) {
      table = undefined;
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv) continue;
    const value = kv[2] !== undefined ? (JSON.parse(`"${kv[2]}"`) as string) : kv[3]!;
    if (table === null && kv[1] === 'default_model') defaultModel = value;
    else if (typeof table === 'string' && kv[1] === 'model') models.set(table, value);
  }
  return { defaultModel, models };
}

/** The configured model of a kimi-cli share folder (today's configuration: README "Model"). */
export function readCliConfig(share: string, sink: ExtractSink): CliConfig {
  const toml = join(share, 'config.toml');
  if (isFile(toml)) {
    try {
      const { defaultModel, models } = parseConfigToml(readRegularText(toml, MAX_CONFIG_BYTES));
      if (defaultModel !== null) return { model: models.get(defaultModel) ?? defaultModel, source: 'toml', models };
      return { model: DEFAULT_MODEL, source: 'default', models };
    } catch (e) {
      sink.warn(`cannot read the model from it (${(e as Error).message}); ${DEFAULT_MODEL} assumed`, { file: toml });
      return { model: DEFAULT_MODEL, source: 'default', models: new Map() };
    }
  }
  const json = join(share, 'config.json');
  if (isFile(json)) {
    const doc = readJsonFile(json, sink) as { model?: unknown } | null;
    const m =
      doc && typeof doc === 'object' && typeof doc.model === 'string' && doc.model.trim() ? doc.model.trim() : null;
    if (m !== null) return { model: m, source: 'json', models: new Map() };
  }
  return { model: DEFAULT_MODEL, source: 'default', models: new Map() };
}

/** The work folder whose bucket a kimi-cli session sits in, from kimi.json; null when it names none. */
export function projectOfBucket(share: string, bucket: string, sink: ExtractSink): string | null {
  const file = join(share, 'kimi.json');
  if (!isFile(file)) return null;
  const doc = readJsonFile(file, sink) as { work_dirs?: unknown } | null;
  const dirs = doc && typeof doc === 'object' && Array.isArray(doc.work_dirs) ? doc.work_dirs : [];
  for (const d of dirs) {
    if (!d || typeof d !== 'object' || typeof (d as any).path !== 'string') continue;
    const path = (d as any).path as string;
    const kaos = typeof (d as any).kaos === 'string' && (d as any).kaos !== 'local' ? `${(d as any).kaos}_` : '';
    if (`${kaos}${createHash('md5').update(path).digest('hex')}` === bucket) return path;
  }
  return null;
}

/** A sub-agent's model from its meta.json `launch_spec.effective_model` (a config key or a model id), or null. */
export function subagentModel(dir: string, config: CliConfig, sink: ExtractSink): string | null {
  const file = join(dir, 'meta.json');
  if (!isFile(file)) return null;
  const doc = readJsonFile(file, sink) as { launch_spec?: { effective_model?: unknown } } | null;
  const m = doc?.launch_spec?.effective_model;
  if (typeof m !== 'string' || !m.trim()) return null;
  return config.models.get(m.trim()) ?? m.trim();
}
