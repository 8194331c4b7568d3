// What a task folder's other files say about its requests (README.md
// "Model" and "Project"): the model in use at a time, the working folder, a
// parent task. Only small files are parsed; the conversation history (prompt
// text, tool output, images) is searched at byte level for the two markers
// the extension itself writes into each prompt's environment details.
import { closeSync, readSync } from 'node:fs';
import { openRegular, readRegularBytes } from '../../io/regular-file.js';
import { join } from 'node:path';

/** A model in use from `ts` on (task_metadata.json model_usage, or an environment-details stamp). */
export interface ModelStamp {
  ts: number;
  model: string;
  provider: string | null;
}

function readIfThere(path: string, max?: number): Buffer | null {
  try {
    if (max === undefined) return readRegularBytes(path);
    const fd = openRegular(path);
    try {
      const b = Buffer.allocUnsafe(max);
      return b.subarray(0, readSync(fd, b, 0, max, 0));
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Cline's task_metadata.json `model_usage`: one entry `{ts, model_id,
 * model_provider_id, mode}` each time the model, provider or mode changed
 * before a request (cline ModelContextTracker.recordModelUsage).
 */
export function taskMetadataModels(taskDir: string): { stamps: ModelStamp[]; problem: string | null } {
  const buf = readIfThere(join(taskDir, 'task_metadata.json'));
  if (buf === null) return { stamps: [], problem: null };
  let doc: unknown;
  try {
    doc = JSON.parse(buf.toString('utf8'));
  } catch {
    return { stamps: [], problem: 'task_metadata.json is not JSON; models taken from the requests alone' };
  }
  const list = (doc as { model_usage?: unknown } | null)?.model_usage;
  if (!Array.isArray(list)) return { stamps: [], problem: null };
  const stamps: ModelStamp[] = [];
  for (const e of list) {
    const model = str(e?.model_id);
    if (model && typeof e.ts === 'number') stamps.push({ ts: e.ts, model, provider: str(e.model_provider_id) });
  }
  return { stamps: stamps.sort((a, b) => a.ts - b.ts), problem: null };
}

/** Roo's and Kilo's history_item.json: the task's workspace and parent task. */
export function historyItem(taskDir: string): { workspace: string | null; parent: string | null } {
  const buf = readIfThere(join(taskDir, 'history_item.json'));
  if (buf === null) return { workspace: null, parent: null };
  try {
    const h = JSON.parse(buf.toString('utf8'));
    return { workspace: str(h?.workspace), parent: str(h?.parentTaskId) };
  } catch {
    return { workspace: null, parent: null };
  }
}

const HISTORY = 'api_conversation_history.json';
/** The environment details of the first prompt are near the start of the history: no need to read all of it for the folder. */
const FOLDER_PREFIX_BYTES = 1 << 20;
const MODEL_OPEN = Buffer.from('<model>');
const MODEL_CLOSE = Buffer.from('</model>');
const TS_KEY = Buffer.from('"ts":');

/** A JSON string's raw bytes (between its quotes) to the text, or null when it does not decode. */
function decodeJsonText(raw: string): string | null {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/**
 * The working folder the extension printed into the first prompt's
 * environment details (`# Current Working Directory (<path>) Files` in Cline,
 * `# Current Workspace Directory (<path>) Files` in Roo and Kilo). A multi-root
 * Cline workspace prints `(Primary: <name>)`, which is no path: null.
 */
export function folderFromHistory(taskDir: string, heading: string): string | null {
  const buf = readIfThere(join(taskDir, HISTORY), FOLDER_PREFIX_BYTES);
  if (buf === null) return null;
  const at = buf.indexOf(heading);
  if (at < 0) return null;
  const from = at + Buffer.byteLength(heading);
  const end = buf.indexOf(') Files', from);
  if (end < 0 || end - from > 4096) return null;
  const path = decodeJsonText(buf.toString('utf8', from, end));
  return path && !path.startsWith('Primary: ') ? path : null;
}

/**
 * Roo and Kilo write `<model>ID</model>` into every prompt's environment
 * details; the history message holding it ends with its `"ts":` (written
 * after the content). Each stamp dates the model of the request that prompt
 * was sent with.
 */
export function historyModelStamps(taskDir: string): ModelStamp[] {
  const buf = readIfThere(join(taskDir, HISTORY));
  if (buf === null) return [];
  const out: ModelStamp[] = [];
  let i = 0;
  for (;;) {
    const open = buf.indexOf(MODEL_OPEN, i);
    if (open < 0) break;
    const from = open + MODEL_OPEN.length;
    const close = buf.indexOf(MODEL_CLOSE, from);
    if (close < 0 || close - from > 512) {
      i = from;
      continue;
    }
    i = close + MODEL_CLOSE.length;
    const tsAt = buf.indexOf(TS_KEY, i);
    if (tsAt < 0) break;
    let j = tsAt + TS_KEY.length;
    let ts = 0;
    let digits = 0;
    while (j < buf.length && buf[j]! >= 0x30 && buf[j]! <= 0x39 && digits < 16)
      ((ts = ts * 10 + (buf[j++]! - 0x30)), digits++);
    const model = decodeJsonText(buf.toString('utf8', from, close));
    if (digits >= 12 && model && model.trim()) out.push({ ts, model: model.trim(), provider: null });
  }
  return out.sort((a, b) => a.ts - b.ts);
}
