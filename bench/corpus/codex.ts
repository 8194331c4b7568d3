// Codex rollout files for the benchmark corpus. Every line is written by the
// fixture builder (fixtures/codex/rollout.ts: real cumulative totals, its
// own ledger); lines are drained into a buffered file as they are produced,
// so a 90 MB rollout is never held whole.
import type { Ledger, RawUsage } from '../../fixtures/codex/ledger.js';
import { randomUsage, RolloutWriter } from '../../fixtures/codex/rollout.js';
import { LineFile } from './sink.js';
import type { Filler } from './text.js';
import { uuid } from './claude.js';

const MODELS = ['gpt-5-codex', 'gpt-5', 'gpt-5.1-codex', 'o4-mini'];

/** What is needed to continue a rollout later (the append scenario). */
export interface CodexTail {
  threadId: string;
  paginated: boolean;
  clock: number;
  ordinal: number;
  total: RawUsage;
  cwd: string;
}

const isUsageLine = (l: string) =>
  (l.includes('"token_count"') && l.includes('"total_token_usage"')) || l.includes('"token_usage_record"');

function drain(w: RolloutWriter, out: LineFile): void {
  for (const l of w.lines.splice(0)) out.line(l, isUsageLine(l));
}

/**
 * One turn: task_started/turn_context/user message, then responses (each:
 * reasoning, message, token_count and, in paginated rollouts, its
 * token_usage_record), shell calls with output, sometimes an attached image.
 */
function writeTurn(
  w: RolloutWriter,
  out: LineFile,
  rand: () => number,
  fill: Filler,
  o: { imageBytes: number; room: boolean; small?: boolean; budget?: number },
): void {
  w.turn(MODELS[Math.floor(rand() * rand() * MODELS.length)]!, w.cwd, fill.text(100 + Math.floor(rand() * 1200)));
  if (o.imageBytes > 0 && o.room && rand() < 0.3) {
    w.line('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_image', image_url: `data:image/png;base64,${fill.base64(o.imageBytes)}` }],
    });
  }
  const responses = o.small ? 1 : 1 + Math.floor(rand() * 5);
  for (let r = 0; r < responses; r++) {
    const calls = o.small ? 1 : 1 + Math.floor(rand() * 4);
    for (let c = 0; c < calls; c++) {
      const callId = `call_${uuid(rand).slice(0, 24)}`;
      w.line('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', fill.text(40 + Math.floor(rand() * 200))] }),
        call_id: callId,
      });
      const big = !o.small && rand() < 0.08;
      w.line('response_item', {
        type: 'function_call_output',
        call_id: callId,
        output: JSON.stringify({
          output: fill.text(big ? 20_000 + Math.floor(rand() * 50_000) : 200 + Math.floor(rand() * 4000)),
          metadata: { exit_code: 0, duration_seconds: 0.4 },
        }),
      });
    }
    w.response(randomUsage(rand, w.o.paginated), { record: w.o.paginated ? 'after' : 'none' });
    drain(w, out);
    if (o.budget !== undefined && out.bytes >= o.budget) break;
  }
  w.endTurn();
}

export interface CodexFilePlan {
  path: string;
  threadId: string;
  start: number;
  cwd: string;
  paginated: boolean;
  targetBytes: number;
  imageBytes: number;
}

export function writeCodexFile(
  p: CodexFilePlan,
  ledger: Ledger,
  rand: () => number,
  fill: Filler,
): { file: LineFile; tail: CodexTail } {
  const out = new LineFile(p.path);
  const w = new RolloutWriter({
    threadId: p.threadId,
    start: p.start,
    stepMs: 2500,
    paginated: p.paginated,
    ledger,
    label: p.path,
    project: p.cwd,
    cacheWriteField: p.paginated,
  });
  w.sessionMeta();
  drain(w, out);
  while (out.bytes < p.targetBytes) {
    writeTurn(w, out, rand, fill, {
      imageBytes: p.imageBytes,
      room: p.targetBytes - out.bytes > p.imageBytes * 2,
      budget: p.targetBytes,
    });
    drain(w, out);
  }
  out.close();
  return {
    file: out,
    tail: {
      threadId: p.threadId,
      paginated: p.paginated,
      clock: w.clock,
      ordinal: w.ordinal,
      total: w.total,
      cwd: p.cwd,
    },
  };
}

/** Appends one more turn to a rollout, continuing its cumulative total. Returns the new tail. */
export function appendCodexTurn(
  path: string,
  t: CodexTail,
  ledger: Ledger,
  rand: () => number,
  fill: Filler,
  round: number,
): { tail: CodexTail; bytes: number } {
  const out = new LineFile(path, 'a');
  const w = new RolloutWriter({
    threadId: t.threadId,
    start: t.clock,
    stepMs: 2500,
    paginated: t.paginated,
    firstOrdinal: t.ordinal,
    ledger,
    // A label of its own: response ids (resp_<label>_<n>) must not repeat the file's.
    label: `${path}#append${round}`,
    project: t.cwd,
    startTotal: t.total,
    cacheWriteField: t.paginated,
  });
  writeTurn(w, out, rand, fill, { imageBytes: 0, room: false, small: true });
  drain(w, out);
  out.close();
  return { tail: { ...t, clock: w.clock, ordinal: w.ordinal, total: w.total }, bytes: out.bytes };
}
