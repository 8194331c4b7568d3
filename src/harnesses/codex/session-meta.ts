// session_meta: line 1 describes the file (thread, project, provider,
// sub-agent, fork); a later one is a copied header naming the thread whose
// records follow (README "Lineage: copied history"), or the file's own
// header written again after a copy.
import type { SourceLocation } from '../../core/types.js';
import { addHeader, headerSeen } from './lineage.js';
import type { RolloutReader } from './reader.js';
import type { SessionMeta } from './records.js';

/** The session_meta at `line` (its line's timestamp `ts`). */
export function onSessionMeta(r: RolloutReader, meta: SessionMeta | null, line: number, ts: number | null): void {
  const { st, lin, sink } = r;
  // Only the first line describes the file; later session_meta lines are
  // copies from an ancestor (contract: session_meta.when), or the fork's own again.
  if (line !== 1 || st.metaSeen) {
    onCopiedMeta(r, meta, { file: r.file, line });
    return;
  }
  st.metaSeen = true;
  if (!meta) return;
  st.threadId = meta.id ?? st.threadId;
  st.metaCwd = meta.cwd;
  st.provider = meta.provider;
  st.forkCreatedTs = meta.created ?? ts;
  st.subagent = meta.subagent;
  st.subagentStart = meta.historyStart;
  // A sub-agent's own thread is linked to the thread that spawned it (its prompts are attributed there).
  const parent = meta.parent;
  if (parent)
    sink.sessionFact({
      harness: 'codex',
      session_id: st.threadId,
      title: null,
      title_rank: 0,
      parent_session_id: parent,
      seq: line,
    });
  // session_meta.session_id is the root thread of the tree (contract); a sub-agent's spend belongs there.
  if (st.subagent) st.root = meta.root !== null && meta.root !== st.threadId ? meta.root : (parent ?? st.threadId);
  if (meta.historyBase) {
    // Fork/revert: the inherited prefix stays in the other rollout (not
    // copied, not counted here); this file's totals continue from it.
    st.last = null;
  } else if (meta.forkedFrom !== null || (st.subagentStart !== null && parent !== null)) {
    // The records after this line may be copies of the parent's (or a
    // sub-agent's inherited context): keyed by the parent until a
    // boundary. A copy may start anywhere in the parent's history (its
    // last turns), so its first total's last_token_usage is its response.
    const copyOf = (meta.forkedFrom ?? parent)!;
    addHeader(lin, { id: copyOf, created: null, root: null });
    lin.origin = copyOf;
    st.last = null;
  }
}

/** A session_meta after line 1: a copied header naming the thread whose records follow, or this thread's own again. */
function onCopiedMeta(r: RolloutReader, meta: SessionMeta | null, at: SourceLocation): void {
  const { st, lin } = r;
  r.sink.skip('session_meta copied from another rollout (only the first line describes the file)', at);
  const id = meta?.id ?? null;
  if (id === null || lin.done) return;
  if (id === st.threadId) {
    r.endCopy("the fork's own session_meta written again after the copy");
    return;
  }
  const known = lin.headers.some((h) => h.id === id && headerSeen(h));
  const created = meta!.created;
  addHeader(lin, { id, created, root: meta!.root });
  const h = lin.headers.find((x) => x.id === id)!;
  if (h.created === null) Object.assign(h, { created, root: meta!.root });
  h.seen = true;
  // First sight: that thread's own file starts here, at 0. Again: its own records go on.
  r.switchTo(id, !known);
}
