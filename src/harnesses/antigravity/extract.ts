// An Antigravity conversation database → usage events: one per `gen_metadata`
// row, the model generation it records (README.md beside this file has every
// rule and its evidence). The database is opened only through
// openSqliteReadOnly: never written, checkpointed or migrated, and nothing is
// created beside it. Blobs are decoded with the checked-in
// proto/antigravity.proto.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type protobuf from 'protobufjs';
import { checkTokenCount } from '../../core/numbers.js';
import type { UsageEvent, WorkUnit } from '../../core/types.js';
import { loadProto, num } from '../../io/proto.js';
import { readSqliteSnapshot, type SqliteDb } from '../../io/sqlite.js';
import { columnNames, tableNames } from '../opencode/tables.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

type Raw = Record<string, any>;

let types: { gen: protobuf.Type; trajectory: protobuf.Type } | null = null;
function protoTypes() {
  if (!types) {
    const root = loadProto('antigravity.proto');
    types = {
      gen: root.lookupType('antigravity.CortexStepGeneratorMetadata'),
      trajectory: root.lookupType('antigravity.TrajectoryMetadata'),
    };
  }
  return types;
}

/** A counted generation as the state remembers it: what is needed to count it again once Antigravity prunes its row. */
type Kept = [
  key: string,
  ts: number,
  model: string | null,
  input: number,
  cacheRead: number,
  output: number,
  reasoning: number,
];

/** What a read hands the next read of the same database (ExtractOptions.prior). */
interface State {
  v: 1;
  session: string;
  project: string | null;
  kept: Kept[];
}

function isState(v: unknown): v is State {
  return typeof v === 'object' && v !== null && (v as State).v === 1 && Array.isArray((v as State).kept);
}

const has = (m: Raw, k: string) => Object.prototype.hasOwnProperty.call(m, k);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** A protobuf Timestamp to epoch ms; null when absent or implausible. */
function tsOf(t: Raw | null | undefined): number | null {
  if (!t) return null;
  const s = num(t.seconds);
  const n = num(t.nanos);
  if (!(s > 946684800 && s < 4102444800) || n < 0 || n > 999_999_999) return null;
  return s * 1000 + Math.floor(n / 1e6);
}

/** `file:///Users/me/My%20Projects/app` → `/Users/me/My Projects/app`; null when not a file URI. */
export function workspacePath(uri: string | null): string | null {
  if (!uri?.startsWith('file://')) return null;
  let p = uri.slice('file://'.length);
  if (!p) return null;
  try {
    p = decodeURIComponent(p);
  } catch {
    // A stray % that is not an escape: the path as written.
  }
  // A Windows drive (`file:///c%3A/src/app`).
  return /^\/[A-Za-z]:\//.test(p) ? p.slice(1) : p;
}

interface Read {
  events: UsageEvent[];
  units: WorkUnit[];
  state: State;
}

/** `steps.step_type` of a user's prompt (CORTEX_STEP_TYPE_USER_INPUT; agentsview antigravity.go). */
const USER_INPUT = 14;

function readAll(db: SqliteDb, source: SourceRef, sink: ExtractSink, prior: State | null): Read {
  const file = source.path;
  const session = basename(file).replace(/\.db$/, '');
  const out: Read = { events: [], units: [], state: { v: 1, session, project: prior?.project ?? null, kept: [] } };
  const tables = tableNames(db);
  if (!tables.has('gen_metadata') || !columnNames(db, 'gen_metadata').has('data')) {
    sink.warn(
      'no gen_metadata table with a data column (not an Antigravity conversation database, or a changed schema); nothing read',
      { file },
    );
    return out;
  }
  const { gen, trajectory } = protoTypes();
  // The conversation's workspace and start (README "Project and time").
  let project: string | null = null;
  let started: number | null = null;
  if (tables.has('trajectory_metadata_blob')) {
    const row = db.prepare('SELECT data FROM trajectory_metadata_blob LIMIT 1').get() as { data: unknown } | undefined;
    if (row && row.data instanceof Uint8Array) {
      try {
        const t = trajectory.decode(row.data) as Raw;
        project = workspacePath(text((t.workspaces as Raw[] | undefined)?.[0]?.uri));
        started = tsOf(t.created_at);
      } catch (e) {
        sink.warn(
          `trajectory_metadata_blob: not a trajectory metadata message (${(e as Error).message}); project and start unknown`,
          { file },
        );
      }
    }
  }
  project ??= prior?.project ?? null;
  out.state.project = project;
  const priorTs = new Map((prior?.kept ?? []).map((k) => [k[0], k[1]]));
  let mtime: number | null = null;
  const fileTime = () => (mtime ??= Math.floor(statSync(file).mtimeMs));
  const idxCol = columnNames(db, 'gen_metadata').has('idx') ? 'idx' : 'NULL';
  let rows = 0;
  let decoded = 0;
  /** gen_metadata idx and time of each generation counted, in idx order (to place prompts). */
  const timeline: [number, number][] = [];
  for (const r of db
    .prepare(
      `SELECT rowid AS rid, ${idxCol} AS idx, data FROM gen_metadata ORDER BY ${idxCol === 'idx' ? 'idx, rowid' : 'rowid'}`,
    )
    .iterate() as Iterable<{ rid: number; idx: unknown; data: unknown }>) {
    rows++;
    const idx = typeof r.idx === 'number' || typeof r.idx === 'bigint' ? String(r.idx) : `rowid ${r.rid}`;
    const at = { file, row: `gen_metadata idx ${idx}` };
    if (!(r.data instanceof Uint8Array)) {
      sink.warn('gen_metadata row without a data blob skipped', at);
      continue;
    }
    let m: Raw;
    try {
      m = gen.decode(r.data) as Raw;
    } catch (e) {
      sink.warn(`not a generator metadata message (${(e as Error).message}); skipped`, at);
      continue;
    }
    const chat = m.chat_model as Raw | undefined;
    const u = chat?.usage as Raw | undefined;
    if (!u) {
      sink.skip('generation without usage', at);
      continue;
    }
    decoded++;
    const invalid: string[] = [];
    const tok = (k: string) => {
      const ck = checkTokenCount(has(u, k) ? num(u[k]) : undefined);
      if (!ck.ok) invalid.push(`${k} ${ck.reason}`);
      return ck.value;
    };
    // input_tokens is uncached: cache reads are beside it, not in it (README "Tokens").
    const input = tok('input_tokens');
    const output = tok('output_tokens');
    const cacheRead = tok('cache_read_tokens');
    const thinking = tok('thinking_output_tokens');
    const response = tok('response_output_tokens');
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    if (input + output + cacheRead === 0) {
      sink.skip('generation with no tokens', at);
      continue;
    }
    // output_tokens holds thinking and response (README "Tokens"): never added again.
    if ((has(u, 'thinking_output_tokens') || has(u, 'response_output_tokens')) && thinking + response !== output) {
      sink.count('antigravity: output is not thinking + response (output kept as recorded)');
    }
    if (tok('cache_write_tokens') > 0)
      sink.count('antigravity: deprecated cache_write_tokens set (not counted: no cache writes are billed)');
    const id = text(u.response_id);
    const key = id !== null ? `resp:${id}` : `${session}:${idx}`;
    // Time: the generation's own start; else the conversation's; else the time of the first read (README "Project and time").
    let ts = tsOf((chat!.chat_start_metadata as Raw | undefined)?.created_at);
    if (ts === null) {
      ts = priorTs.get(key) ?? started ?? fileTime();
      sink.count(
        'antigravity: generation without a time (placed at the conversation start, else the database file time)',
      );
    }
    const model = text(chat!.response_model) ?? text(chat!.model_display_name);
    if (model === null) sink.count('antigravity: generation with only a model number (model unknown, not priced)');
    const reasoning = Math.min(thinking, output);
    out.events.push(
      eventOf(source, session, project, [key, ts, model, input, cacheRead, output, reasoning], RULE.generation),
    );
    out.state.kept.push([key, ts, model, input, cacheRead, output, reasoning]);
    if (typeof r.idx === 'number') timeline.push([r.idx, ts]);
  }
  out.units = prompts(db, tables, session, timeline);
  if (rows > 0 && decoded === 0)
    sink.warn(
      `none of its ${rows} gen_metadata rows holds usage Antigravity's schema as known has (a changed format?); nothing counted`,
      { file },
    );
  // Rows Antigravity pruned since the last read stay counted (README "Pruned rows").
  const here = new Set(out.state.kept.map((k) => k[0]));
  for (const k of prior?.kept ?? []) {
    if (here.has(k[0])) continue;
    out.events.push(eventOf(source, session, project, k, RULE.kept));
    out.state.kept.push(k);
    sink.count('antigravity: generations pruned from the database since counted (kept)');
  }
  return out;
}

/**
 * The user's prompts (README "Units of work"): `steps` rows of the user-input
 * type, read by their idx and type only (never the payload, which holds the
 * text), each placed at the first generation after it.
 */
function prompts(db: SqliteDb, tables: Set<string>, session: string, timeline: [number, number][]): WorkUnit[] {
  if (!tables.has('steps') || !timeline.length) return [];
  const cols = columnNames(db, 'steps');
  if (!cols.has('idx') || !cols.has('step_type')) return [];
  const out: WorkUnit[] = [];
  let g = 0;
  for (const r of db.prepare('SELECT idx FROM steps WHERE step_type = ? ORDER BY idx').iterate(USER_INPUT) as Iterable<{
    idx: unknown;
  }>) {
    if (typeof r.idx !== 'number') continue;
    while (g < timeline.length && timeline[g]![0] < r.idx) g++;
    if (g === timeline.length) break; // not answered yet: counted with its answer
    out.push({
      harness: 'antigravity',
      session_id: session,
      kind: 'prompt',
      dedupe_key: `${session}:step ${r.idx}`,
      dedupe_rank: 0,
      ts: timeline[g]![1],
      count: 1,
    });
  }
  return out;
}

function eventOf(source: SourceRef, session: string, project: string | null, k: Kept, rule: string): UsageEvent {
  const [key, ts, model, input, cacheRead, output, reasoning] = k;
  return {
    harness: 'antigravity',
    session_id: session,
    project,
    model,
    provider: null,
    ts,
    // The response id is one response wherever it is recorded: a sub-conversation's database and its parent's count it once.
    dedupe_key: key,
    dedupe_rank: 0,
    requests: 1,
    input_tokens: input,
    cache_read_tokens: cacheRead,
    cache_write_tokens: 0,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: output,
    reasoning_tokens: reasoning,
    recorded_cost_usd: null,
    source_file: source.path,
    source_line: null,
    rule,
  };
}

export async function extractAntigravity(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const prior = isState(opts.prior) ? opts.prior : null;
  const read = readSqliteSnapshot(file, opts.tmpDir, sink, (db) => readAll(db, source, sink, prior));
  // The state (what was counted) is what the next read of this database is handed as `prior`.
  return { offset: 0, lines: 0, state: read.state };
}
