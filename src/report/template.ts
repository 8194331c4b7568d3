// Loads report queries from queries/*.sql. Each file starts with a header
// comment declaring its parameters (`-- param: name TYPE description`), its
// code-filled slots (`-- slot: name`) and its output columns. Values are bound
// as DuckDB `$name` parameters; a slot is filled only from a whitelist in
// code. A template whose used parameters differ from its declared ones is
// rejected.
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { readInputText } from '../core/inputs.js';
import { mark } from '../core/trace.js';
import {
  BIGINT,
  BOOLEAN,
  DATE,
  DOUBLE,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '../store/duckdb.js';

export interface TemplateParam {
  name: string;
  type: string;
  description: string;
}

export interface Template {
  name: string;
  file: string;
  params: TemplateParam[];
  slots: string[];
  columns: { name: string; type: string; description: string }[];
  body: string;
}

export class TemplateError extends Error {}

const SCALAR_TYPES: Record<string, DuckDBType> = { VARCHAR, DATE, BIGINT, INTEGER, DOUBLE, BOOLEAN };

function duckType(t: string): DuckDBType {
  if (t.endsWith('[]')) return LIST(duckType(t.slice(0, -2)));
  const s = SCALAR_TYPES[t];
  if (!s) throw new TemplateError(`unsupported parameter type ${t}`);
  return s;
}

/** Strips `--` comments and string literals so that `$x` inside them is not taken for a parameter. */
function codeOnly(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      out += '\n';
    } else if (c === "'") {
      i++;
      while (i < sql.length && !(sql[i] === "'" && sql[i + 1] !== "'")) i += sql[i] === "'" ? 2 : 1;
      out += "''";
    } else out += c;
  }
  return out;
}

/**
 * The SQL of a shared fragment (queries/fragments/NAME.sql) without its
 * comment lines: what `-- include: NAME` puts in place of `{{NAME}}`.
 */
export function loadFragment(name: string): string {
  if (!/^[a-z0-9_-]+$/.test(name)) throw new TemplateError(`bad fragment name ${name}`);
  const file = join(packageRoot(), 'queries', 'fragments', `${name}.sql`);
  return readInputText(file) // core/inputs.ts: the report memo keys on it
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('--') && l.trim() !== '')
    .join('\n');
}

/**
 * Parses a template's header and checks its body. `fragment` gives the SQL
 * of each `-- include: NAME` (written `{{NAME}}` in the body), so SQL that
 * several reports share — the metric aggregates — is written once, in SQL.
 */
export function parseTemplate(file: string, text: string, fragment: (name: string) => string = loadFragment): Template {
  const params: TemplateParam[] = [];
  const slots: string[] = [];
  const includes: string[] = [];
  const columns: Template['columns'] = [];
  let name = '';
  for (const line of text.split('\n')) {
    const m = /^--\s*(report|param|slot|column|include):\s*(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, kind, rest] = m;
    const [first = '', second = '', ...more] = rest!.trim().split(/\s+/);
    if (kind === 'report') name = first;
    else if (kind === 'param') {
      duckType(second); // validates the declared type
      params.push({ name: first, type: second, description: more.join(' ') });
    } else if (kind === 'slot') slots.push(first);
    else if (kind === 'include') includes.push(first);
    else columns.push({ name: first, type: second, description: more.join(' ') });
  }
  if (!name) throw new TemplateError(`${file}: header has no "-- report: NAME" line`);
  for (const inc of includes) {
    if (!text.includes(`{{${inc}}}`)) throw new TemplateError(`${file}: includes ${inc} but never writes {{${inc}}}`);
    text = text.split(`{{${inc}}}`).join(fragment(inc));
  }
  const code = codeOnly(text);
  const used = new Set([...code.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
  const declared = new Set(params.map((p) => p.name));
  const undeclared = [...used].filter((u) => !declared.has(u));
  const unused = [...declared].filter((d) => !used.has(d));
  if (undeclared.length || unused.length) {
    throw new TemplateError(
      `${file}: parameters used and declared differ` +
        (undeclared.length ? `; used but not declared: ${undeclared.join(', ')}` : '') +
        (unused.length ? `; declared but not used: ${unused.join(', ')}` : ''),
    );
  }
  const usedSlots = new Set([...code.matchAll(/\{\{([a-z_]+)\}\}/g)].map((m) => m[1]!));
  const badSlots = [...usedSlots].filter((s) => !slots.includes(s));
  if (badSlots.length) throw new TemplateError(`${file}: slots used but not declared: ${badSlots.join(', ')}`);
  return { name, file, params, slots, columns, body: text };
}

const cache = new Map<string, Template>();

export function loadTemplate(name: string): Template {
  let t = cache.get(name);
  if (!t) {
    if (!/^[a-z0-9_-]+$/.test(name)) throw new TemplateError(`bad template name ${name}`);
    const file = join(packageRoot(), 'queries', `${name}.sql`);
    t = parseTemplate(file, readInputText(file)); // core/inputs.ts: the report memo keys on it
    cache.set(name, t);
  }
  return t;
}

export type ParamValue = string | number | boolean | string[] | number[] | null;

/** A template's SQL with its slots filled, and its parameters bound. */
function bindTemplate(t: Template, values: Record<string, ParamValue>, slots: Record<string, string>) {
  let sql = t.body;
  for (const s of t.slots) sql = sql.split(`{{${s}}}`).join(slots[s] ?? '');
  const bound: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const p of t.params) {
    if (!(p.name in values)) throw new TemplateError(`${t.file}: no value for parameter $${p.name}`);
    const v = values[p.name]!;
    types[p.name] = duckType(p.type);
    if (Array.isArray(v)) bound[p.name] = listValue(p.type === 'BIGINT[]' ? v.map((x) => BigInt(x)) : v);
    else if (p.type === 'DATE' && typeof v === 'string') {
      // Dates are bound as text and cast by the declared type.
      bound[p.name] = v;
      types[p.name] = VARCHAR;
      sql = sql.split(`$${p.name}`).join(`CAST($${p.name} AS DATE)`);
    } else bound[p.name] = v as DuckDBValue;
  }
  return { sql, bound, types };
}

/**
 * Runs a template with its parameters bound and its slots filled. Slot text
 * must come from code (a whitelist), never from user input.
 */
export async function runTemplate(
  conn: DuckDBConnection,
  t: Template,
  values: Record<string, ParamValue>,
  slots: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const { sql, bound, types } = bindTemplate(t, values, slots);
  const reader = await conn.runAndReadAll(sql, bound, types);
  const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
  mark(`query ${t.name}: ${rows.length} rows`);
  return rows;
}

/**
 * Keeps a template's rows in a temporary table named after the template
 * (this connection's, replaced by the next call), for templates that several
 * others aggregate in one run: the rows are computed once, not once per
 * aggregate.
 */
export async function materializeTemplate(
  conn: DuckDBConnection,
  t: Template,
  values: Record<string, ParamValue>,
): Promise<void> {
  const { sql, bound, types } = bindTemplate(t, values, {});
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${t.name} AS ${sql}`, bound, types);
  mark(`table ${t.name}`);
}
