// OpenClaw state dirs and their session transcripts (README.md "Where").
//   --root openclaw=PATH (repeatable; a state dir holding agents/), else
//   OPENCLAW_STATE_DIR or CLAWDBOT_STATE_DIR (OpenClaw's own override), else
//   OPENCLAW_DIR (comma list; the name peers use), else
//   ~/.openclaw, ~/.clawdbot, ~/.moltbot, ~/.moldbot (home = OPENCLAW_HOME when set).
import { join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { exists } from '../../io/observed-fs.js';
import { listDirWarned, RealPaths, resolveRoots, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

/** openclaw src/config/paths.ts: the new dir first, then the legacy (and misspelt) ones. */
const STATE_DIRS = ['.openclaw', '.clawdbot', '.moltbot', '.moldbot'];

export function openclawRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const own = resolveRoots(ctx, { envVars: ['OPENCLAW_STATE_DIR', 'CLAWDBOT_STATE_DIR'], defaults: [] });
  if (own.length) return own;
  const peers = resolveRoots(ctx, { envVars: ['OPENCLAW_DIR'], listEnv: true, defaults: [] });
  if (peers.length) return peers;
  const home = ctx.env.OPENCLAW_HOME?.trim();
  const base = home ? { ...ctx, home: home } : ctx;
  return resolveRoots(base, { envVars: [], defaults: STATE_DIRS }).map((r) =>
    home ? { ...r, origin: 'OPENCLAW_HOME' } : r,
  );
}

/** How a file in a sessions dir relates to the session (openclaw src/config/sessions/artifacts.ts). */
export type TranscriptRole = 'active' | 'archive' | 'copy';

const ARCHIVE_TS = String.raw`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z`;
/** `<id>.jsonl.reset.<ts>` / `.deleted.<ts>`: the transcript itself, renamed when a session is reset or deleted. */
const ARCHIVE_RE = new RegExp(String.raw`^(.+)\.jsonl\.(?:reset|deleted)\.(?:${ARCHIVE_TS}|\d+)(?:\.zst)?$`);
/** `<id>.jsonl.bak.<ts>`, `<id>.jsonl.full.bak`: backup copies. */
const BACKUP_RE = new RegExp(String.raw`^(.+)\.jsonl\.(?:bak\.(?:${ARCHIVE_TS}|\d+)|full\.bak)(?:\.zst)?$`);
/** `<parent>.checkpoint.<uuid>.jsonl`: the pre-compaction twin older versions wrote beside the transcript. */
const CHECKPOINT_RE = /^(.+)\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** The role of a file name and its session id, or null for what is not a transcript (sessions.json, trajectories, locks, caches). */
export function transcriptName(name: string): { role: TranscriptRole; sessionId: string } | null {
  let m = CHECKPOINT_RE.exec(name);
  if (m) return { role: 'copy', sessionId: m[1]! };
  m = ARCHIVE_RE.exec(name);
  if (m) return { role: 'archive', sessionId: m[1]! };
  m = BACKUP_RE.exec(name);
  if (m) return { role: 'copy', sessionId: m[1]! };
  if (name.endsWith('.jsonl') && !name.endsWith('.trajectory.jsonl'))
    return { role: 'active', sessionId: name.slice(0, -'.jsonl'.length) };
  return null;
}

/** `<root>/agents/<agentId>/sessions/*`: every transcript, archive and copy (a file reached twice is read once). */
export async function discoverOpenclaw(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out: SourceRef[] = [];
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  for (const root of roots) {
    if (!root.exists) continue;
    const agentsDir = join(root.path, 'agents');
    for (const agent of exists(agentsDir) ? (listDirWarned(agentsDir, warn) ?? []) : []) {
      if (agent.kind !== 'dir' && agent.kind !== 'link') continue;
      const dir = join(agentsDir, agent.name, 'sessions');
      const files = await walkFiles(
        dir,
        (name) => transcriptName(name) !== null,
        (p, e) => warn(`cannot read directory: ${e.message}`, { file: p }),
        0,
        realPaths,
      );
      for (const file of files) {
        const t = transcriptName(file.slice(dir.length + 1))!;
        const real = realPaths.of(file);
        if (seen.has(real)) continue;
        seen.add(real);
        out.push({
          harness: 'openclaw',
          key: real,
          path: file,
          kind: file.endsWith('.zst') ? 'jsonl.zst' : 'jsonl',
          meta: { sessionId: t.sessionId, role: t.role, agent: agent.name },
        });
      }
    }
  }
  return out;
}
