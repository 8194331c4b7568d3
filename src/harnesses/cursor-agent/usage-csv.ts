// Cursor's dashboard usage-events CSV (cursor.com/dashboard → Usage →
// Export CSV), the one place Cursor's billed tokens and costs exist: the chats
// on disk hold context occupancy only (see README.md, "Imported usage CSV").
// A copy of each imported file lives in tx-usage's cache dir
// (src/imports/); this module reads one, strictly: an unknown column, a value
// that is not what its column holds, a second user, a torn or non-UTF-8 file
// is an error naming the line and column, and nothing of the file is used.
import { readFileSync } from 'node:fs';
import type { UsageEvent } from '../../core/types.js';
import { CsvError, decodeUtf8, isBlankRecord, parseCsv, type CsvRecord } from '../../io/csv.js';
import type { ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

/** Every column a Cursor usage-events export has been seen with (README.md lists the generations and where they were seen). */
export const USAGE_CSV_COLUMNS = {
  date: 'Date',
  user: 'User',
  cloudAgent: 'Cloud Agent ID',
  automation: 'Automation ID',
  kind: 'Kind',
  model: 'Model',
  maxMode: 'Max Mode',
  cacheWrite: 'Input (w/ Cache Write)',
  input: 'Input (w/o Cache Write)',
  cacheRead: 'Cache Read',
  output: 'Output Tokens',
  total: 'Total Tokens',
  cost: 'Cost',
  costToYou: 'Cost to you',
  requests: 'Requests',
} as const;
type Field = keyof typeof USAGE_CSV_COLUMNS;

const REQUIRED: readonly Field[] = ['date', 'model', 'cacheWrite', 'input', 'cacheRead', 'output'];
const BY_NAME = new Map<string, Field>(
  Object.entries(USAGE_CSV_COLUMNS).map(([f, name]) => [name.toLowerCase(), f as Field]),
);

/** One row of the export, as read. */
export interface UsageCsvRow {
  line: number;
  /** Epoch milliseconds (UTC). */
  ts: number;
  model: string | null;
  /** `Kind` as written (Included, On-Demand, "Errored, No Charge", ...); null without that column or when empty. */
  kind: string | null;
  /** The four token columns: disjoint parts of the row's input and output. */
  cacheWrite: number;
  input: number;
  cacheRead: number;
  output: number;
  /** USD the row's `Cost` states; null for Included / Free / - / empty, and without a Cost column. */
  cost: number | null;
  /** `Requests`: the row's charge in Cursor's request units (fractional: 0.5, 17.3); null without that column. */
  requestUnits: number | null;
  /** `Cloud Agent ID` when set (a background agent's run). */
  cloudAgentId: string | null;
  /** No tokens, no cost, no request units: not a billed response (errored rows). */
  noUsage: boolean;
}

export interface UsageCsv {
  /** The header's names, as written. */
  columns: string[];
  rows: UsageCsvRow[];
}

const fieldErr = (r: CsvRecord, k: number, header: string[], why: string) =>
  new CsvError(`column ${k + 1} (${header[k]}): ${why}`, r.at[k]!.line, r.at[k]!.column);

const show = (v: string) => JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);

/** Thousands separators are accepted only as Cursor writes them: groups of three digits. */
const GROUPED = /^(?:\d{1,3}(?:,\d{3})+|\d+)$/;

/** A token count: digits, optionally grouped by commas, optionally ".0"; null when empty or "-". */
function tokenCount(v: string): number | null | 'bad' {
  const s = v.trim();
  if (s === '' || s === '-') return null;
  const m = /^([\d,]+)(?:\.0+)?$/.exec(s);
  if (!m || !GROUPED.test(m[1]!)) return 'bad';
  const n = Number(m[1]!.replace(/,/g, ''));
  return Number.isSafeInteger(n) && n <= 1e12 ? n : 'bad';
}

/** Cost values that state no amount (the row is included in the plan, free, or was not charged). */
const NO_AMOUNT = new Set(['', '-', 'included', 'free', 'no charge', 'not charged', 'n/a']);

/** A USD amount ("$1,234.56", "0.49"); null for the words in NO_AMOUNT. */
function amount(v: string): number | null | 'bad' {
  const s = v.trim();
  if (NO_AMOUNT.has(s.toLowerCase())) return null;
  const m = /^\$?\s*([\d,]*)(\.\d+)?$/.exec(s);
  if (!m || (m[1] === '' && !m[2]) || (m[1] !== '' && !GROUPED.test(m[1]!))) return 'bad';
  const n = Number(`${(m[1] || '0').replace(/,/g, '')}${m[2] ?? ''}`);
  return Number.isFinite(n) && n <= 1_000_000 ? n : 'bad';
}

/** Request units: a plain non-negative decimal ("1", "0.5", "17.3"); null when empty or "-". */
function units(v: string): number | null | 'bad' {
  const s = v.trim();
  if (s === '' || s === '-') return null;
  if (!/^\d+(\.\d+)?$/.test(s)) return 'bad';
  const n = Number(s);
  return n <= 1e9 ? n : 'bad';
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * `Date`: ISO 8601 as Cursor writes it (`2026-08-05T06:44:42.863Z`), with
 * a zone offset or, when it has none, read as UTC (the dashboard exports in
 * UTC); also epoch milliseconds. Kept to the millisecond.
 */
function timestamp(v: string): number | null {
  const s = v.trim();
  if (/^\d{12,13}$/.test(s)) return Number(s);
  const m = ISO.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const base = Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!, ms);
  const check = new Date(base);
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59 || sec! > 59) return null;
  const zone = m[8];
  if (!zone || zone.toUpperCase() === 'Z') return base;
  const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const offset = (Number(z[2]) * 60 + Number(z[3] ?? 0)) * 60_000;
  return z[1] === '+' ? base - offset : base + offset;
}

/** Column index of each known field in this header. Throws on a header that is not a Cursor usage-events export. */
function readHeader(rec: CsvRecord): Map<Field, number> {
  const names = rec.fields.map((f) => f.trim());
  const cols = new Map<Field, number>();
  const unknown: number[] = [];
  names.forEach((name, k) => {
    if (name === '')
      throw new CsvError(`column ${k + 1} of the header has no name`, rec.at[k]!.line, rec.at[k]!.column);
    const f = BY_NAME.get(name.toLowerCase());
    if (!f) return void unknown.push(k);
    if (cols.has(f))
      throw new CsvError(
        `column ${k + 1} (${name}) repeats column ${cols.get(f)! + 1}`,
        rec.at[k]!.line,
        rec.at[k]!.column,
      );
    cols.set(f, k);
  });
  const missing = REQUIRED.filter((f) => !cols.has(f));
  const listed = names.length > 6 ? `${names.slice(0, 6).join(', ')}, …` : names.join(', ');
  if (missing.length) {
    const want = REQUIRED.map((f) => USAGE_CSV_COLUMNS[f]).join(', ');
    const tokenColumns = (['cacheWrite', 'input', 'cacheRead', 'output'] as const).filter((f) => cols.has(f)).length;
    if (tokenColumns === 0) {
      throw new CsvError(
        `not a Cursor usage-events export: its header (${listed}) has none of Cursor's token columns; expected ${want}`,
        rec.line,
        1,
      );
    }
    if (!cols.has('date') && names.some((n) => /^request count$/i.test(n) || /^cost \(\$\)$/i.test(n))) {
      throw new CsvError(
        `a per-model summary (no Date column), not the usage events: export the events from Dashboard → Usage (Export CSV)`,
        rec.line,
        1,
      );
    }
    throw new CsvError(
      `header lacks ${missing.map((f) => USAGE_CSV_COLUMNS[f]).join(', ')}; expected at least ${want}`,
      rec.line,
      1,
    );
  }
  if (unknown.length) {
    const k = unknown[0]!;
    throw new CsvError(
      `unknown column ${JSON.stringify(names[k])} (column ${k + 1}): this build knows ${Object.values(USAGE_CSV_COLUMNS).join(', ')}; nothing was imported (a newer export? please report it)`,
      rec.at[k]!.line,
      rec.at[k]!.column,
    );
  }
  return cols;
}

/** Reads a whole export. Throws CsvError (line and column) at the first thing that is not as Cursor writes it. */
export function parseUsageCsv(bytes: Uint8Array): UsageCsv {
  const records = parseCsv(decodeUtf8(bytes));
  const first = records.findIndex((r) => !isBlankRecord(r));
  if (first === -1) throw new CsvError('the file is empty (no header line)', 1, 1);
  const headerRec = records[first]!;
  const cols = readHeader(headerRec);
  const header = headerRec.fields.map((f) => f.trim());
  const rows: UsageCsvRow[] = [];
  let user: string | null = null;
  const last = records.length - 1;
  for (let i = first + 1; i < records.length; i++) {
    const r = records[i]!;
    if (isBlankRecord(r)) continue;
    if (r.fields.length !== header.length) {
      const k = Math.min(r.fields.length, header.length) - 1;
      const cut = i === last && r.fields.length < header.length ? ' (the file is cut short?)' : '';
      throw new CsvError(
        `${r.fields.length} fields where the header has ${header.length}${cut}`,
        r.at[k]!.line,
        r.at[k]!.column,
      );
    }
    const get = (f: Field) => {
      const k = cols.get(f);
      return k === undefined ? null : r.fields[k]!;
    };
    const bad = (f: Field, why: string) => fieldErr(r, cols.get(f)!, header, why);

    const ts = timestamp(get('date')!);
    if (ts === null)
      throw bad('date', `${show(get('date')!)} is not a date and time (expected e.g. 2026-08-05T06:44:42.863Z)`);
    const tokens = (['cacheWrite', 'input', 'cacheRead', 'output'] as const).map((f) => {
      const v = tokenCount(get(f)!);
      if (v === 'bad') throw bad(f, `${show(get(f)!)} is not a token count`);
      return v;
    });
    const total = get('total');
    if (total !== null && tokenCount(total) === 'bad') throw bad('total', `${show(total)} is not a token count`);
    let cost: number | null = null;
    for (const f of ['cost', 'costToYou'] as const) {
      const v = get(f);
      if (v === null) continue;
      const a = amount(v);
      if (a === 'bad') throw bad(f, `${show(v)} is not a USD amount, Included, Free or -`);
      if (f === 'cost') cost = a;
    }
    const reqRaw = get('requests');
    const requestUnits = reqRaw === null ? null : units(reqRaw);
    if (requestUnits === 'bad') throw bad('requests', `${show(reqRaw!)} is not a number of requests`);
    // One person's usage: a team export mixes people (tx-usage reports what your agents cost you).
    const u = get('user')?.trim() || null;
    if (u !== null) {
      if (user === null) user = u;
      else if (u !== user) {
        throw bad(
          'user',
          "a second user: this is a team export with several people's usage; export your own from Dashboard → Usage (Export CSV)",
        );
      }
    }
    const [cacheWrite, input, cacheRead, output] = tokens.map((t) => t ?? 0) as [number, number, number, number];
    const noUsage = cacheWrite + input + cacheRead + output === 0 && !cost && !requestUnits;
    rows.push({
      line: r.line,
      ts,
      model: get('model')!.trim() || null,
      kind: get('kind')?.trim() || null,
      cacheWrite,
      input,
      cacheRead,
      output,
      cost,
      requestUnits,
      cloudAgentId: get('cloudAgent')?.trim() || null,
      noUsage,
    });
  }
  return { columns: header, rows };
}

/** Session of imported rows that name no background agent: the export has no chat ids. */
export const USAGE_CSV_SESSION = 'cursor-usage-csv';

/**
 * A row's identity: what stays the same when the row is exported again,
 * whatever the export's generation: the instant to the millisecond, the
 * model and the four token counts. Kind and Cost are not part of it: the
 * same event has been exported with Cost "Included" by one generation and a
 * dollar figure by the next (README.md). Identical rows within one file are
 * told apart by their occurrence number.
 */
function identity(r: UsageCsvRow): string {
  return JSON.stringify([new Date(r.ts).toISOString(), r.model, r.cacheWrite, r.input, r.cacheRead, r.output]);
}

/** The billed rows of an export as usage events (rows without usage are left out; see `noUsage`). */
export function usageCsvEvents(csv: UsageCsv, file: string): UsageEvent[] {
  const seen = new Map<string, number>();
  const out: UsageEvent[] = [];
  for (const r of csv.rows) {
    if (r.noUsage) continue;
    const id = identity(r);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    out.push({
      harness: 'cursor-agent',
      session_id: r.cloudAgentId ?? USAGE_CSV_SESSION,
      project: null,
      model: r.model,
      provider: null,
      ts: r.ts,
      dedupe_key: `csv:${id}#${n}`,
      // Two exports disagreeing about a row: the one stating a kind, then a dollar cost, is kept.
      dedupe_rank: (r.kind === null ? 2 : 0) + (r.cost === null ? 1 : 0),
      requests: 1,
      input_tokens: r.input,
      cache_read_tokens: r.cacheRead,
      cache_write_tokens: r.cacheWrite,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: r.output,
      reasoning_tokens: 0,
      recorded_cost_usd: r.cost,
      source_file: file,
      source_line: r.line,
      billing_kind: r.kind,
      request_units: r.requestUnits,
      rule: RULE.csvRow,
    });
  }
  return out;
}

/** Reason under which rows without usage are counted (`tx-usage sources`, the cursor reconciliation). */
export const NO_USAGE_REASON = 'usage CSV rows without usage (errored, no charge): not billed responses';

/** Extractor for a `csv` source of cursor-agent: an imported usage-events export. */
export async function extractUsageCsv(source: SourceRef, sink: ExtractSink): Promise<ResumePoint | null> {
  const csv = parseUsageCsv(readFileSync(source.path));
  sink.count('usage CSV rows', csv.rows.length);
  for (const r of csv.rows) if (r.noUsage) sink.skip(NO_USAGE_REASON, { file: source.path, line: r.line });
  for (const e of usageCsvEvents(csv, source.path)) sink.event(e);
  return null;
}
