// What `tx-usage explain ARG...` is asked about: each ARG is a source file
// or database, a folder (every source under it), or a session id (every
// source holding responses of that session, only those responses). Sources
// are found among those the harnesses' own discovery found (through the
// registry: nothing here knows a harness's layout) and, for files that are
// gone, among those the store keeps.
import { realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { harnessById } from '../harnesses/registry.js';
import type { Harness, SourceRef } from '../harnesses/types.js';
import type { HarnessId } from '../core/types.js';
import type { HarnessScan } from '../ingest/discover.js';
import { UsageError } from '../report/period.js';
import { loadTemplate, runTemplate } from '../report/template.js';

export interface Target {
  harness: Harness;
  sourceKey: string;
  path: string;
  kind: string;
  /** The source as discovered (to read it again); null when its file is gone and only the store has its rows. */
  source: SourceRef | null;
  /** Only the responses of this session (a session id was asked for). */
  session: string | null;
  /** Every response of the source is of that session. */
  onlySession: boolean;
}

interface KnownSource {
  source_key: string;
  harness: string;
  path: string;
  kind: string;
  retained: boolean;
  /** The arguments that are session ids of its responses. */
  sessions: string[];
  /** The session of all of its responses, when they have one. */
  one_session: string | null;
}

const HOW = '`tx-usage sources` lists the files tx-usage reads; --root HARNESS=DIR adds a folder';

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** Whether something is at `p` (a path that cannot even be asked about counts as one: the loop below says why). */
function onDisk(p: string): boolean {
  try {
    return statSync(resolve(p), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** How many sessions an ambiguous prefix names in its message. */
const AMBIGUOUS_SHOWN = 10;

/**
 * The session id an argument stands for: itself when the store knows it;
 * else the one session whose id begins with it, or, written as a table cuts
 * an id (`01a1b…7e4eb`), begins and ends so. Several: a usage error naming
 * them; none: the argument as it is (the caller says it is unknown). One
 * query over the distinct sessions of event_attrs per argument that is no
 * path on disk.
 */
async function sessionIdOf(conn: DuckDBConnection, arg: string): Promise<string> {
  const cut = /^(.*?)(?:\u2026|\.\.\.)(.*)$/.exec(arg); // \u2026 written so: the bundle's ASCII output turned a literal … into \u{2026}, which without the u flag is no ellipsis
  const [head, tail] = cut ? [cut[1]!, cut[2]!] : [arg, ''];
  if (!head && !tail) return arg;
  const r = await conn.runAndReadAll(
    `SELECT DISTINCT session_id FROM event_attrs
     WHERE session_id = $arg OR (starts_with(session_id, $head) AND ends_with(session_id, $tail))
     ORDER BY session_id = $arg DESC, session_id LIMIT ${AMBIGUOUS_SHOWN + 1}`,
    { arg, head, tail },
  );
  const ids = (r.getRowObjectsJson() as { session_id: string }[]).map((x) => x.session_id);
  if (!ids.length || ids[0] === arg) return arg;
  if (ids.length === 1) return ids[0]!;
  const shown = ids.slice(0, AMBIGUOUS_SHOWN).join(', ') + (ids.length > AMBIGUOUS_SHOWN ? ', …' : '');
  throw new UsageError(
    `${JSON.stringify(arg)}: ${ids.length > AMBIGUOUS_SHOWN ? `more than ${AMBIGUOUS_SHOWN}` : ids.length} sessions match (${shown}); give more of the id`,
  );
}

/** The sources the store knows, with the arguments that are session ids of their responses (explain_sources.sql). */
async function knownSources(conn: DuckDBConnection, args: string[]): Promise<KnownSource[]> {
  return (await runTemplate(conn, loadTemplate('explain_sources'), { sessions: args })) as unknown as KnownSource[];
}

/** The sources each argument names, in the order given, each source (and session) once. */
export async function resolveTargets(conn: DuckDBConnection, scans: HarnessScan[], args: string[]): Promise<Target[]> {
  const discovered = scans.flatMap((s) => s.sources.map((src) => ({ src, harness: s.harness })));
  let reals: string[] | null = null;
  const realPaths = () => (reals ??= discovered.map((d) => realOrResolved(d.src.path)));
  // Each argument that is no file or folder on disk may be a session id, a unique prefix of one, or one a table cut.
  const ids = new Map<string, string>();
  // One with a slash (a missing path, or a session id such as Hermes' `profile/id`) is matched exactly, never as a prefix.
  for (const a of args) if (!onDisk(a) && !ids.has(a)) ids.set(a, /[\\/]/.test(a) ? a : await sessionIdOf(conn, a));
  // Asked once, for every argument that is no file or folder on disk.
  let known: KnownSource[] | null = null;
  const store = async () => (known ??= await knownSources(conn, [...ids.values()]));
  const retained = async () => (await store()).filter((s) => s.retained);
  const fromStore = (s: KnownSource, session: string | null): Target => ({
    harness: harnessById(s.harness as HarnessId)!,
    sourceKey: s.source_key,
    path: s.path,
    kind: s.kind,
    source: s.retained ? null : (discovered.find((d) => d.src.key === s.source_key)?.src ?? null),
    session,
    onlySession: session !== null && s.one_session === session,
  });
  const out: Target[] = [];
  const seen = new Set<string>();
  const add = (t: Target) => {
    const id = `${t.sourceKey}\u0000${t.session ?? ''}`;
    if (!seen.has(id)) {
      seen.add(id);
      out.push(t);
    }
  };
  for (const arg of args) {
    const abs = resolve(arg);
    let st;
    try {
      st = statSync(abs, { throwIfNoEntry: false });
    } catch (e) {
      throw new UsageError(`${arg}: ${(e as Error).message}`);
    }
    if (st) {
      const real = realOrResolved(abs);
      const folder = st.isDirectory();
      const hits = discovered.filter((_, i) => (folder ? within(realPaths()[i]!, real) : realPaths()[i] === real));
      const gone = folder ? (await retained()).filter((s) => within(s.path, abs) || within(s.path, real)) : [];
      if (!hits.length && !gone.length) {
        throw new UsageError(
          folder
            ? `${arg}: no file tx-usage reads is in this folder (${HOW})`
            : `${arg}: not a file tx-usage reads (${HOW})`,
        );
      }
      for (const h of hits)
        add({
          harness: h.harness,
          sourceKey: h.src.key,
          path: h.src.path,
          kind: h.src.kind,
          source: h.src,
          session: null,
          onlySession: false,
        });
      for (const g of gone) add(fromStore(g, null));
      continue;
    }
    // A file that is gone, whose rows the store keeps; a folder of them.
    const gone = (await retained()).filter((s) => within(s.path, abs));
    if (gone.length) {
      for (const g of gone) add(fromStore(g, null));
      continue;
    }
    const id = ids.get(arg) ?? arg;
    const ofSession = (await store()).filter((s) => s.sessions.includes(id));
    if (!ofSession.length) {
      throw new UsageError(
        /[\\/]/.test(arg)
          ? `${arg}: no such file or folder, and the store keeps no file of that name (${HOW})`
          : `${JSON.stringify(arg)}: neither a file nor a session id the store knows (\`tx-usage report --by session\` lists the sessions; ${HOW})`,
      );
    }
    for (const s of ofSession) add(fromStore(s, id));
  }
  return out;
}
