// Claude Code session files for the benchmark corpus. Responses are written by
// the fixture builder (fixtures/claude-code/build.ts: same line shapes, same
// ledger), its output redirected into a buffered file; the bulk around them
// (tool output, progress lines, base64 screenshots) is added here.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeHome, ClaudeSession, type Usage } from '../../fixtures/claude-code/build.js';
import { LineFile } from './sink.js';
import type { Filler } from './text.js';

const MODELS = [
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-1-20250805',
  'claude-haiku-4-5-20251001',
  'claude-sonnet-4-20250514',
];

export function uuid(rand: () => number): string {
  const h = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${h(8)}-${h(4)}-4${h(3)}-8${h(3)}-${h(12)}`;
}

/** A ClaudeSession whose lines go to a LineFile (new file, or appended to an existing one). */
export class CorpusSession extends ClaudeSession {
  readonly out: LineFile;
  private inResponse = false;
  clock: number;

  constructor(
    home: ClaudeHome,
    file: string,
    sessionId: string,
    cwd: string,
    sidechain: { agentId: string } | null,
    start: number,
    append = false,
  ) {
    // The base class truncates the file it is given: when appending, hand it a scratch path.
    super(
      home,
      append ? join(tmpdir(), `tx-usage-bench-scratch-${process.pid}.jsonl`) : file,
      sessionId,
      cwd,
      sidechain,
    );
    // Nothing is written to the scratch file after that (raw() writes to `out`): it goes now.
    if (append) rmSync(this.file, { force: true });
    this.out = new LineFile(file, append ? 'a' : 'w');
    this.clock = start;
  }

  override raw(line: string): this {
    this.out.line(line.endsWith('\n') ? line.slice(0, -1) : line, this.inResponse);
    return this;
  }

  override response(o: Parameters<ClaudeSession['response']>[0]): string {
    this.inResponse = true;
    try {
      return super.response(o);
    } finally {
      this.inResponse = false;
    }
  }

  tick(rand: () => number, maxSeconds = 20): string {
    this.clock += 500 + Math.floor(rand() * maxSeconds * 1000);
    return new Date(this.clock).toISOString();
  }

  private env(rand: () => number, ts: string) {
    return {
      parentUuid: null,
      isSidechain: this.sidechain !== null,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: 'main',
      entrypoint: 'cli',
      timestamp: ts,
      uuid: uuid(rand),
      ...(this.sidechain ? { agentId: this.sidechain.agentId } : {}),
    };
  }

  toolResult(rand: () => number, fill: Filler, bytes: number): void {
    const text = fill.text(bytes);
    this.record({
      ...this.env(rand, this.tick(rand)),
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: `toolu_01${uuid(rand).slice(0, 20)}`, type: 'tool_result', content: text }],
      },
      toolUseResult: { stdout: text.slice(0, bytes >> 1), stderr: '', interrupted: false, isImage: false },
    });
  }

  screenshot(rand: () => number, fill: Filler, bytes: number): void {
    this.record({
      ...this.env(rand, this.tick(rand)),
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            tool_use_id: `toolu_01${uuid(rand).slice(0, 20)}`,
            type: 'tool_result',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: fill.base64(bytes) } }],
          },
        ],
      },
    });
  }

  progress(rand: () => number, fill: Filler): void {
    const id = `toolu_01${uuid(rand).slice(0, 20)}`;
    this.record({
      ...this.env(rand, this.tick(rand, 3)),
      type: 'progress',
      toolUseID: id,
      parentToolUseID: id,
      data: {
        type: 'bash_progress',
        output: fill.text(80 + Math.floor(rand() * 400)),
        elapsedTimeSeconds: Math.floor(rand() * 60),
      },
    });
  }

  snapshot(rand: () => number): void {
    const id = uuid(rand);
    const ts = new Date(this.clock).toISOString();
    this.record({
      type: 'file-history-snapshot',
      messageId: id,
      snapshot: {
        messageId: id,
        trackedFileBackups: {
          'src/app.ts': {
            backupFileName: `${id.slice(0, 16)}@v2`,
            version: 2,
            backupTime: ts,
            realParentDir: `${this.cwd}/src`,
          },
        },
        timestamp: ts,
      },
      isSnapshotUpdate: false,
    });
  }
}

function claudeUsage(rand: () => number): Usage {
  const write = rand() < 0.5 ? Math.floor(rand() * 20000) : 0;
  const thinking = rand() < 0.3 ? Math.floor(rand() * 800) : undefined;
  return {
    input: 1 + Math.floor(rand() * 60),
    cacheRead: Math.floor(rand() * 150000),
    cacheWrite5m: rand() < 0.8 ? write : 0,
    cacheWrite1h: rand() < 0.2 ? Math.floor(rand() * 5000) : 0,
    output: 5 + Math.floor(rand() * 2500) + (thinking ?? 0),
    thinking,
  };
}

export interface ClaudeFilePlan {
  home: ClaudeHome;
  path: string;
  sessionId: string;
  cwd: string;
  agentId: string | null;
  start: number;
  targetBytes: number;
  /** Bytes per base64 screenshot line; 0 = none in this file. */
  imageBytes: number;
}

/**
 * One "exchange": a prompt, then responses (1-3 split lines each, all with
 * usage) with tool output, progress chatter and sometimes a screenshot.
 * About 13% of the lines carry usage, as in real transcripts.
 */
export function writeExchange(
  s: CorpusSession,
  rand: () => number,
  fill: Filler,
  o: { imageBytes: number; imageChance: number; budget: number; small?: boolean },
): void {
  s.user(s.tick(rand, 120), fill.text(o.small ? 300 : 200 + Math.floor(rand() * 1500)));
  s.snapshot(rand);
  const model = MODELS[Math.floor(rand() * rand() * MODELS.length)]!;
  const responses = 1 + Math.floor(rand() * 4);
  for (let r = 0; r < responses; r++) {
    // Ids from the corpus's own generator: unique across runs of the benchmark
    // (the builder's counter restarts in every process).
    const hex = uuid(rand).replace(/-/g, '');
    s.response({
      model,
      ts: s.tick(rand),
      usage: claudeUsage(rand),
      splits: 1 + Math.floor(rand() * 3),
      msgId: `msg_01${hex.slice(0, 24)}`,
      requestId: `req_011${hex.slice(8)}`,
    });
    const progress = o.small ? 2 : 6 + Math.floor(rand() * 10);
    for (let i = 0; i < progress; i++) s.progress(rand, fill);
    const big = !o.small && rand() < 0.1;
    s.toolResult(rand, fill, big ? 20_000 + Math.floor(rand() * 60_000) : 300 + Math.floor(rand() * 5000));
    if (o.imageBytes > 0 && o.budget - s.out.bytes > o.imageBytes * 2 && rand() < o.imageChance)
      s.screenshot(rand, fill, o.imageBytes);
    if (s.out.bytes >= o.budget) return;
  }
}

export function writeClaudeFile(
  p: ClaudeFilePlan,
  rand: () => number,
  fill: Filler,
): { file: LineFile; clock: number } {
  const s = new CorpusSession(p.home, p.path, p.sessionId, p.cwd, p.agentId ? { agentId: p.agentId } : null, p.start);
  while (s.out.bytes < p.targetBytes)
    writeExchange(s, rand, fill, { imageBytes: p.imageBytes, imageChance: 0.35, budget: p.targetBytes });
  s.out.close();
  return { file: s.out, clock: s.clock };
}
