// Damaged Cursor stores: every bad reference is a warning naming the db and
// the blob, and everything else in the chat (and the other chats) is still reported.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBadCursorHome, type BadChat } from '../../fixtures/cursor-agent/bad.js';
import { PROJECT_A } from '../../fixtures/cursor-agent/home.js';
import { looksLikeRoot } from '../../src/harnesses/cursor-agent/census.js';
import { cursorAgent } from '../../src/harnesses/cursor-agent/index.js';
import type { SourceRef } from '../../src/harnesses/types.js';
import { collectSource } from '../../src/ingest/collect.js';
import { tempDir } from '../helpers/temp.js';

let home: string;
let work: string;
let chats: BadChat[];
let sources: SourceRef[];

const bySession = <T extends { session: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.session < b.session ? -1 : 1));

async function collect(dbPath: string) {
  const src = sources.find((s) => s.path === dbPath)!;
  return collectSource(cursorAgent, src, { resume: null, tmpDir: work, knownProjects: new Set([PROJECT_A]) });
}

beforeAll(async () => {
  home = tempDir('txu-cursor-bad-');
  work = tempDir('txu-cursor-badw-');
  chats = buildBadCursorHome(home);
  sources = await cursorAgent.discover(cursorAgent.roots({ home, env: {}, rootOverrides: [] }), () => {});
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('cursor-agent damaged stores', () => {
  it('warns once per bad reference, naming the db and the blob, and reports the rest', async () => {
    expect(sources.length).toBe(chats.length);
    for (const c of chats) {
      const got = await collect(c.dbPath);
      expect(got.failed, c.name).toBe(false);
      expect(got.events).toEqual([]);
      expect(bySession(got.contexts), c.name).toEqual(bySession(c.rows));
      for (const w of c.warnings) {
        const hits = got.warnings.filter((g) => g.startsWith(`${c.dbPath} (${w.at}): `) && g.includes(w.says));
        expect(hits, `${c.name}: ${w.says} at ${w.at}\n${got.warnings.join('\n')}`).toHaveLength(1);
      }
      expect(got.warnings.length, `${c.name}:\n${got.warnings.join('\n')}`).toBe(c.warnings.length);
    }
  });

  it('a missing blob, a reference cycle and an undecodable protobuf are each named', async () => {
    const broken = chats.find((c) => c.name === 'broken-references')!;
    const got = await collect(broken.dbPath);
    const says = got.warnings.join('\n');
    expect(says).toMatch(/missing blob \(turn 2 of [0-9a-f]{64}\)/);
    expect(says).toMatch(/reference cycle/);
    expect(says).toMatch(/undecodable ConversationTurnStructure: /);
    // The cycle is reported, not followed forever, and no prompt text leaks into warnings.
    expect(says).not.toContain('Example prompt');
  });

  it('a file that is not a SQLite database is one "cannot read" warning, not a crash', async () => {
    const dir = tempDir('txu-cursor-notdb-');
    try {
      const db = join(dir, 'store.db');
      writeFileSync(db, 'this is not a database, just some text long enough to be a header '.repeat(4));
      const got = await collectSource(
        cursorAgent,
        {
          harness: 'cursor-agent',
          key: db,
          path: db,
          kind: 'sqlite',
          meta: { chatId: 'x', workspace: 'y', store: 'chat' },
        },
        { resume: null, tmpDir: work, knownProjects: new Set() },
      );
      expect(got.failed).toBe(true);
      expect(got.warnings).toHaveLength(1);
      expect(got.warnings[0]).toContain(db);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the stale-root census rejects JSON prompt messages, raw text and other message types', () => {
    expect(looksLikeRoot(Buffer.from('{"role":"system","content":"x"}'))).toBe(false);
    expect(looksLikeRoot(Buffer.from('export const example = 1;\n'))).toBe(false);
    expect(looksLikeRoot(Buffer.from('ZZZ plain text that happens to start with Z'))).toBe(false);
    expect(looksLikeRoot(Buffer.alloc(0))).toBe(false);
  });
});
