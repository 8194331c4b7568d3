// Brings the store up to date with the harness files: discovers sources,
// decides per source what changed (unchanged / appended / rewritten / gone),
// extracts only that, and writes it with its bookkeeping atomically per batch.
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessId } from '../core/types.js';
import { HARNESSES } from '../harnesses/registry.js';
import type { Harness, PathContext, RootSpec, SourceRef } from '../harnesses/types.js';
import { collectSource } from './collect.js';
import { forgetSources, loadSourceBook, writeBatch, type CostFn, type SourceBookRow, type SourceWrite } from '../store/write.js';

export interface IngestOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
  tmpDir: string;
  cost: CostFn;
  /** Called as sources are processed (for a progress bar). */
  progress?: (done: number, total: number) => void;
  /** How many sources are extracted concurrently. */
  concurrency?: number;
}

export interface HarnessScan {
  harness: Harness;
  roots: RootSpec[];
  sources: SourceRef[];
}

export interface IngestResult {
  scans: HarnessScan[];
  unchanged: number;
  appended: number;
  rewritten: number;
  removed: number;
  /** Warnings raised while discovering (unreadable directories...). */
  discoveryWarnings: string[];
}

const TAIL_BYTES = 256;
const BATCH_EVENTS = 50_000;
const BATCH_SOURCES = 500;

interface Stamp {
  size: number;
  ino: string;
  fingerprint: string;
}

async function stampOf(src: SourceRef, extra: string): Promise<Stamp | null> {
  let st;
  try {
    st = await stat(src.path);
  } catch {
    return null;
  }
  const parts = [`${st.size}:${st.mtimeMs}:${st.ino}`];
  for (const c of src.companions ?? []) {
    try {
      const cs = await stat(c);
      parts.push(`${cs.size}:${cs.mtimeMs}`);
    } catch {
      parts.push('-');
    }
  }
  if (extra) parts.push(extra);
  return { size: st.size, ino: `${st.dev}:${st.ino}`, fingerprint: parts.join('|') };
}

async function tailHash(path: string, offset: number): Promise<string | null> {
  if (offset <= 0) return null;
  const start = Math.max(0, offset - TAIL_BYTES);
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(offset - start);
    const { bytesRead } = await fh.read(buf, 0, buf.length, start);
    if (bytesRead !== buf.length) return null;
    return createHash('sha1').update(buf).digest('hex');
  } finally {
    await fh.close();
  }
}

type Plan = { src: SourceRef; harness: Harness; stamp: Stamp; mode: 'full' | 'append'; prev: SourceBookRow | null };

async function planSource(src: SourceRef, harness: Harness, stamp: Stamp, prev: SourceBookRow | undefined): Promise<Plan | null> {
  if (prev && prev.fingerprint === stamp.fingerprint) return null;
  // Append-only JSONL that only grew, same inode, same bytes before the
  // resume point: read just the new bytes.
  if (
    prev &&
    src.kind === 'jsonl' &&
    prev.kind === 'jsonl' &&
    prev.ino === stamp.ino &&
    prev.resume_offset !== null &&
    stamp.size > prev.size &&
    prev.resume_offset <= stamp.size &&
    prev.tail_hash !== null
  ) {
    const h = await tailHash(src.path, prev.resume_offset).catch(() => null);
    if (h === prev.tail_hash) return { src, harness, stamp, mode: 'append', prev };
  }
  return { src, harness, stamp, mode: 'full', prev: prev ?? null };
}

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  });
  await Promise.all(workers);
}

export async function discoverAll(opts: Pick<IngestOptions, 'home' | 'env' | 'rootOverrides'>, warnings: string[]): Promise<HarnessScan[]> {
  return Promise.all(
    HARNESSES.map(async (harness) => {
      const ctx: PathContext = { home: opts.home, env: opts.env, rootOverrides: opts.rootOverrides[harness.id] ?? [] };
      const roots = harness.roots(ctx);
      const sources = await harness.discover(roots, (m, at) => warnings.push(`${at.file}: ${m}`));
      return { harness, roots, sources };
    }),
  );
}

export async function ingest(conn: DuckDBConnection, opts: IngestOptions): Promise<IngestResult> {
  const discoveryWarnings: string[] = [];
  const scans = await discoverAll(opts, discoveryWarnings);
  const book = await loadSourceBook(conn);
  const result: IngestResult = { scans, unchanged: 0, appended: 0, rewritten: 0, removed: 0, discoveryWarnings };

  const seen = new Set<string>();
  for (const s of scans) for (const src of s.sources) seen.add(src.key);
  const gone = [...book.keys()].filter((k) => !seen.has(k));
  await forgetSources(conn, gone);
  result.removed = gone.length;

  // Harnesses that resolve projects from other harnesses' cwds (Cursor) run
  // after the rest, with the projects known by then.
  const phases = [scans.filter((s) => !s.harness.usesKnownProjects), scans.filter((s) => s.harness.usesKnownProjects)];
  const total = scans.reduce((n, s) => n + s.sources.length, 0);
  let done = 0;
  for (const phase of phases) {
    if (!phase.length) continue;
    const known = phase === phases[1] ? await knownProjects(conn) : new Set<string>();
    const extra = phase === phases[1] ? createHash('sha1').update([...known].sort().join('\n')).digest('hex') : '';
    const plans: Plan[] = [];
    for (const s of phase) {
      for (const src of s.sources) {
        const stamp = await stampOf(src, extra);
        const prev = book.get(src.key);
        // A source that cannot even be stat'ed still gets extracted, so its
        // failure is reported as a warning naming it.
        const plan = stamp
          ? await planSource(src, s.harness, stamp, prev)
          : { src, harness: s.harness, stamp: { size: 0, ino: '', fingerprint: `missing:${Date.now()}` }, mode: 'full' as const, prev: prev ?? null };
        if (plan) plans.push(plan);
        else {
          result.unchanged++;
          opts.progress?.(++done, total);
        }
      }
    }
    let pending: SourceWrite[] = [];
    let pendingEvents = 0;
    let writing: Promise<void> = Promise.resolve();
    const flush = () => {
      const b = pending;
      pending = [];
      pendingEvents = 0;
      writing = writing.then(() => writeBatch(conn, b, opts.cost));
      return writing;
    };
    await pool(plans, opts.concurrency ?? 4, async (p) => {
      const resume =
        p.mode === 'append' && p.prev
          ? { offset: p.prev.resume_offset!, lines: p.prev.resume_lines ?? 0, state: p.prev.resume_state ? JSON.parse(p.prev.resume_state) : undefined }
          : null;
      const collected = await collectSource(p.harness, p.src, { resume, tmpDir: opts.tmpDir, knownProjects: known });
      const rp = collected.resume;
      const bookRow: SourceBookRow = {
        source_key: p.src.key,
        harness: p.src.harness,
        path: p.src.path,
        kind: p.src.kind,
        fingerprint: p.stamp.fingerprint,
        size: p.stamp.size,
        ino: p.stamp.ino,
        resume_offset: rp ? rp.offset : null,
        resume_lines: rp ? rp.lines : null,
        resume_state: rp && rp.state !== undefined ? JSON.stringify(rp.state) : null,
        tail_hash: rp && p.src.kind === 'jsonl' ? await tailHash(p.src.path, rp.offset).catch(() => null) : null,
      };
      if (p.mode === 'append') result.appended++;
      else result.rewritten++;
      pending.push({ collected, book: bookRow, mode: p.mode });
      pendingEvents += collected.events.length;
      if (pendingEvents >= BATCH_EVENTS || pending.length >= BATCH_SOURCES) await flush();
      opts.progress?.(++done, total);
    });
    await flush();
  }
  return result;
}

async function knownProjects(conn: DuckDBConnection): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`SELECT DISTINCT project FROM usage_events WHERE project IS NOT NULL`);
  return new Set((r.getRowObjectsJson() as { project: string }[]).map((x) => x.project));
}
