// The one small interface every harness implements. Everything format-specific
// lives behind it, in src/harnesses/<id>/.
import type {
  ContextRow,
  RateLimitSnapshot,
  SessionEstimate,
  SessionFact,
  SourceLocation,
  UsageEvent,
  WorkUnit,
} from '../core/types.js';
import type { WinnerOrder } from './dedupe.js';
import type { HarnessId } from './ids.js';

/** Where a harness looks, resolved from flag, then environment, then default. */
export interface RootSpec {
  path: string;
  /** How the root was chosen, e.g. "--root", "CODEX_HOME", "default". */
  origin: string;
  exists: boolean;
  /** The root's real path, when it is (or passes through) a symbolic link; absent otherwise. */
  target?: string;
  /**
   * Set on a root that is searched for being the harness's, and found, but
   * whose files are not read, with why (Amp's debug logs, Grok's unified log):
   * `tx-usage sources` names it. Discovery finds no source in it.
   */
  unread?: string;
}

export interface PathContext {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Paths given with --root <harness>=PATH (in order). */
  rootOverrides: string[];
  /** Told what is wrong with a harness's own settings read to find its roots (a discovery warning); absent: not reported. */
  warn?: (message: string, at: SourceLocation) => void;
}

/**
 * `csv`: a usage export the user imported (`tx-usage import`), kept in tx-usage's cache dir.
 * `json`: one JSON document the harness rewrites whole (Gemini CLI's and Qwen Code's legacy
 * sessions, Cline's ui_messages.json): read again whole when it changes (never resumed), its
 * extractor handed what it returned last time (ExtractOptions.prior).
 */
export type SourceKind = 'jsonl' | 'jsonl.zst' | 'sqlite' | 'csv' | 'json';

/** One file or database a harness will read. */
export interface SourceRef {
  harness: HarnessId;
  /** Stable identity of the source for incremental bookkeeping; defaults to the path. */
  key: string;
  path: string;
  kind: SourceKind;
  /**
   * Extra files whose change means the source changed (e.g. a SQLite `-wal`).
   * Their size+mtime join the source's fingerprint.
   */
  companions?: string[];
  /** Free-form harness data computed during discovery (e.g. a session id from the path). */
  meta?: Record<string, string>;
}

/** Where an append-only JSONL read stopped, so the next run resumes there. */
export interface ResumePoint {
  /** Byte offset just past the last complete line that was consumed. */
  offset: number;
  /** Number of complete lines consumed (for file:line in warnings). */
  lines: number;
  /** Small harness state carried across appends (e.g. last cwd, last cumulative total). JSON-serializable. */
  state?: unknown;
}

export interface WarnOptions {
  /**
   * The warning sums up records the reader also reported one by one through
   * ExtractSink.unparsable() ("N unparsable lines skipped (first at …)"): a
   * sink that lists those records (explain's, src/explain/trace.ts) leaves it
   * out, so each bad line is listed once, at its own line; the ingest keeps
   * it (the one warning per file that reports print).
   */
  sumsUpUnparsable?: boolean;
  /**
   * The warning concerns bytes past the resume point (a torn final line): it
   * is dropped when the source is next resumed, which re-reads those bytes.
   */
  untilResumed?: boolean;
}

/** Receives what an extractor finds. Extractors never see the store. */
export interface ExtractSink {
  event(e: UsageEvent): void;
  sessionEstimate(e: SessionEstimate): void;
  context(c: ContextRow): void;
  /** A plan rate-limit snapshot (Codex token_count.rate_limits); sinks that keep none may leave it out. */
  rateLimit?(s: RateLimitSnapshot): void;
  /** A unit of work (prompt, turn end, tool calls, subagent task): counts and a timestamp, never text. */
  unit(u: WorkUnit): void;
  /** A session's title and lineage, where the harness keeps them. */
  sessionFact(f: SessionFact): void;
  /** Something was wrong with the input (unparsable line, unreadable blob): a user-visible warning. */
  warn(message: string, at: SourceLocation, opts?: WarnOptions): void;
  /** A record deliberately not counted, by reason (e.g. "synthetic api error"); counted in `tx-usage sources`. */
  skip(reason: string, at: SourceLocation): void;
  /** Free counters shown by `tx-usage sources` (e.g. cursor "stale roots ignored"). */
  count(name: string, n?: number): void;
  /**
   * A usage-bearing record folded into the event of the same dedupe key that
   * this read emits (a split line of a streamed response), so not an event
   * of its own: `folded` is what it would have been; `rule` names the harness
   * README rule that folded it. Only `tx-usage explain` listens
   * (src/explain/); other sinks leave it out.
   */
  merged?(folded: UsageEvent, rule: string): void;
  /** A line that held a usage marker and is not JSON (the reader also warns once per file, with the count: WarnOptions.sumsUpUnparsable). Only `tx-usage explain` listens. */
  unparsable?(at: SourceLocation): void;
}

export interface ExtractOptions {
  /** Set when the source is an append-only JSONL that only grew: continue from here. */
  resume: ResumePoint | null;
  /**
   * A `json` or `sqlite` source read again: the state its extractor returned
   * on the last read (ResumePoint.state), so that what has since left a
   * rewritten document (or rows a harness pruned from its database) is still
   * counted. Absent on a first read.
   */
  prior?: unknown;
  /** Directory for private temporary copies (never next to user data). */
  tmpDir: string;
  /**
   * cwd values already known from other harnesses (Cursor matches folder md5s
   * against them). Filled by the ingest before cursor-agent runs.
   */
  knownProjects: ReadonlySet<string>;
}

/** A name (and provider) to ask the price data about for a model name as a harness wrote it (src/pricing/names.ts). */
export interface PriceName {
  model: string;
  provider?: string;
  /** Why this attempt exists, shown by `prices show`. */
  how: string;
  /** The entry found this way prices another seller's listing of the model: a report names it as a near match. */
  near?: true;
}

/**
 * Everything tx-usage knows of one harness, in its folder (src/harnesses/<id>/,
 * exported by its index.ts) and one line of the registry (registry.ts, ids.ts).
 * docs/adding-a-harness.md is the checklist.
 */
export interface Harness<Id extends HarnessId = HarnessId> {
  id: Id;
  displayName: string;
  /** Its colour in every chart of every report (src/render/chart-style.ts): one no other harness has. */
  chartColor: string;
  /** What the price data is asked about its models (src/pricing/names.ts). */
  pricing: {
    /**
     * The provider it talks to when a response records none; null when its
     * responses record one, or it talks to any provider. Only a first attempt:
     * a miss falls through to matching by model name alone.
     */
    providerHint: string | null;
    /** Its own spellings of a model, asked after the name as recorded (and its provider prefixes) and the name alone. */
    modelNames?(name: string): PriceName[];
  };
  /**
   * The names of the rules its events are counted by (UsageEvent.rule, and
   * ExtractSink.merged), as its README states them under "Rule names" and
   * `tx-usage explain` shows them; a test holds the three together.
   */
  ruleNames: readonly string[];
  /** Which row of a response is counted among its copies (dedupe.ts); default LARGEST_USAGE_FIRST. */
  winnerOrder?: WinnerOrder;
  /**
   * Its `extract` continues an append-only JSONL source from a resume point
   * with only the state it carries (ResumePoint.state): the status line reads
   * a session's appended lines with it (src/live/own-files.ts). Such a
   * harness's `extract` is its extractor itself, imported statically (the
   * status line's bundle has no lazily loaded modules). Absent: the status
   * line leaves its changes to the store (and marks itself stale).
   */
  resumesAlone?: true;
  /**
   * The marker sets its extractor hands the shared JSONL scanner
   * (src/io/jsonl.ts ScanOptions.markers): only lines holding one are parsed.
   * Each set must fit the WebAssembly scanner's tables: at most 16 markers,
   * each 1 to 60 bytes without a newline, with at most 8 distinct (first byte,
   * last byte, length) probes among them (src/io/marker-scan.ts). The
   * registry checks them when it is loaded.
   */
  scanMarkers?: readonly (readonly string[])[];
  /** Roots searched, in order, for `sources` and the "nothing found" message. */
  roots(ctx: PathContext): RootSpec[];
  /**
   * Set by harnesses that resolve projects through opts.knownProjects (Cursor):
   * the ingest runs them after every other harness.
   */
  usesKnownProjects?: boolean;
  /** The environment variables and --root syntax a user can set, for help text. */
  howToPoint: string;
  /**
   * When the last complete line of a plain JSONL source was written (ms since
   * the epoch), given that line's bytes (a view, valid during the call);
   * null when the line does not tell. A harness
   * that provides it lets a report leave sources last written before its
   * window unread (src/ingest/horizon.ts). It must only be provided where
   * lines are appended in time order and a record copied into another file
   * either keeps its timestamp or is marked as a copy (dedupe_rank > 0).
   */
  lastLineTime?(line: Buffer): number | null;
  /**
   * Its `.jsonl.zst` sources are made from a transcript idle for days and are
   * never written to again (a resume decompresses back to `.jsonl` first):
   * a compressed file's modification time, kept from the transcript or the
   * time it was compressed, is at or after its last record. With
   * lastLineTime, a report may then leave an old `.jsonl.zst` unread on its
   * modification time alone (its last line would take decoding the whole
   * frame; see src/ingest/horizon.ts).
   */
  sealedWhenCompressed?: boolean;
  /**
   * Its events with dedupe_rank > 0 are copies of responses that another of
   * its files may hold (forks). Such a copy makes a report's ingest read the
   * sources it left unread after all (horizon.ts). Not set where the rank
   * orders records of one file (Codex: a record before its token_count).
   */
  rankMarksCopies?: boolean;
  /**
   * With rankMarksCopies: the lowest dedupe_rank that marks a copy whose
   * original may sit in a file a report leaves unread (default 1). Codex
   * ranks a record 0 and its token_count 1 within a file, copies that kept
   * their original's timestamp 2 and 3 (the original's file, written at or
   * after that time, is never left unread when the copy is in the window),
   * re-stamped copies 4 and 5.
   */
  copyRankFrom?: number;
  /**
   * With rankMarksCopies: the lowest dedupe_rank of any copy (default
   * copyRankFrom, else 1). An appended copy whose original the status line's
   * snapshot lacks leaves the status line unproven (src/live/merge.ts).
   */
  anyCopyRankFrom?: number;
  /** All sources under the given roots. Must not throw for missing roots. */
  discover(roots: RootSpec[], warn: (msg: string, at: SourceLocation) => void): Promise<SourceRef[]>;
  /**
   * Extract usage from one source. Returns the resume point for append-only
   * JSONL sources (null when the source cannot be resumed, e.g. zstd or SQLite).
   */
  extract(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint | null>;
}
