// Read-only proof for Cursor stores: store.db, -wal and meta.json keep their
// bytes and mtimes, no file is created beside them, private copies are
// removed; only an existing -shm (the wal-index every reader updates) may change.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBadCursorHome } from '../../fixtures/cursor-agent/bad.js';
import { buildCursorHome, type CursorFixture } from '../../fixtures/cursor-agent/home.js';
import { cursorAgent } from '../../src/harnesses/cursor-agent/index.js';
import { collectSource } from '../../src/ingest/collect.js';
import { tempDir } from '../helpers/temp.js';

let home: string;
let work: string;
let fx: CursorFixture;

interface Snap {
  listing: string[];
  files: Record<string, { sha: string; mtimeMs: number; size: number } | null>;
}

function snap(dbPath: string): Snap {
  const dir = dirname(dbPath);
  const files: Snap['files'] = {};
  for (const f of [dbPath, dbPath + '-wal', join(dir, 'meta.json')]) {
    if (!existsSync(f)) {
      files[f] = null;
      continue;
    }
    const st = statSync(f);
    files[f] = { sha: createHash('sha256').update(readFileSync(f)).digest('hex'), mtimeMs: st.mtimeMs, size: st.size };
  }
  return { listing: readdirSync(dir).sort(), files };
}

beforeAll(() => {
  home = tempDir('txu-cursor-ro-');
  work = tempDir('txu-cursor-row-');
  fx = buildCursorHome(home);
  buildBadCursorHome(home); // damaged stores must not be touched either
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('cursor-agent is read-only on user data', () => {
  it('covers every on-disk mode: WAL with and without -shm, clean WAL, rollback', () => {
    expect(new Set(fx.chats.map((c) => c.mode))).toEqual(
      new Set(['wal-with-shm', 'wal-without-shm', 'wal-clean', 'rollback']),
    );
    const live = fx.chats.find((c) => c.mode === 'wal-with-shm')!.dbPath;
    const noShm = fx.chats.find((c) => c.mode === 'wal-without-shm')!.dbPath;
    expect([existsSync(live + '-wal'), existsSync(live + '-shm')]).toEqual([true, true]);
    expect([existsSync(noShm + '-wal'), existsSync(noShm + '-shm')]).toEqual([true, false]);
    // The WAL really holds committed content (the last turn and the final meta).
    expect(statSync(live + '-wal').size).toBeGreaterThan(0);
    expect(statSync(noShm + '-wal').size).toBeGreaterThan(0);
  });

  it('leaves store.db, -wal and meta.json byte- and mtime-identical and creates no file beside them', async () => {
    const sources = await cursorAgent.discover(cursorAgent.roots({ home, env: {}, rootOverrides: [] }), () => {});
    expect(sources.length).toBeGreaterThan(fx.chats.length);
    const before = new Map(sources.map((s) => [s.path, snap(s.path)]));
    const shmBefore = new Map(sources.map((s) => [s.path, existsSync(s.path + '-shm')]));
    // Let any mtime change become visible.
    await new Promise((r) => setTimeout(r, 20));
    for (let round = 0; round < 2; round++) {
      for (const s of sources) {
        const got = await collectSource(cursorAgent, s, { resume: null, tmpDir: work, knownProjects: new Set() });
        expect(got.failed, s.path).toBe(false);
      }
    }
    for (const s of sources) {
      expect(snap(s.path), s.path).toEqual(before.get(s.path));
      expect(existsSync(s.path + '-shm'), s.path).toBe(shmBefore.get(s.path));
    }
    // Private copies (the no-shm and clean-WAL stores) are gone again.
    expect(readdirSync(work)).toEqual([]);
  });
});
