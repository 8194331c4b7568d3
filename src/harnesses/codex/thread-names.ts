// Codex thread names (contract `codex`, layout and linking/sidecar
// references): ~/.codex/session_index.jsonl is an append-only list of
// {id, thread_name, updated_at}; the last entry for an id wins. Read as a
// source of its own (appended to, so resumed like a rollout); a name is a
// title chosen by the user or generated, never prompt text.
import { scanJsonlFile } from '../../io/jsonl.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';

export const THREAD_NAMES_FILE = 'session_index.jsonl';
/** The lines of session_index.jsonl read: those naming a thread. */
export const THREAD_NAME_MARKERS = ['"thread_name"'];

export async function extractThreadNames(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint> {
  // The last entry per thread in this read; a later read's entries have later lines (seq) and win in the store.
  const names = new Map<string, { title: string; line: number }>();
  const point = await scanJsonlFile(
    source.path,
    { markers: THREAD_NAME_MARKERS, resume: opts.resume },
    sink,
    (rec, line) => {
      if (typeof rec.id !== 'string' || !rec.id || typeof rec.thread_name !== 'string') return;
      names.set(rec.id.toLowerCase(), { title: rec.thread_name.trim(), line });
    },
  );
  for (const [id, n] of names)
    sink.sessionFact({
      harness: 'codex',
      session_id: id,
      title: n.title,
      title_rank: 0,
      parent_session_id: null,
      seq: n.line,
    });
  return point;
}
