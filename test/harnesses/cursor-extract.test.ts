// Cursor Agent extractor, rule by rule, through collectSource on real
// store.db files built by fixtures/cursor-agent from DDL at test time.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCursorHome,
  md5,
  PROJECT_A,
  type CursorFixture,
  type FixtureChat,
} from '../../fixtures/cursor-agent/home.js';
import { cursorAgent } from '../../src/harnesses/cursor-agent/index.js';
import { harnessById } from '../../src/harnesses/registry.js';
import type { SourceRef } from '../../src/harnesses/types.js';
import { collectSource, type Collected } from '../../src/ingest/collect.js';
import { tempDir } from '../helpers/temp.js';

let home: string;
let work: string;
let fx: CursorFixture;
let sources: SourceRef[];

function ctx(env: NodeJS.ProcessEnv = {}, rootOverrides: string[] = []) {
  return { home, env, rootOverrides };
}

async function collect(chat: FixtureChat, known: Iterable<string> = fx.knownProjects): Promise<Collected> {
  const src = sources.find((s) => s.path === chat.dbPath);
  if (!src) throw new Error(`not discovered: ${chat.dbPath}`);
  return collectSource(cursorAgent, src, { resume: null, tmpDir: work, knownProjects: new Set(known) });
}

const chat = (name: string) => fx.chats.find((c) => c.name === name)!;
/** Row order carries no meaning: compare by session. */
const bySession = <T extends { session: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.session < b.session ? -1 : a.session > b.session ? 1 : 0));

beforeAll(async () => {
  home = tempDir('txu-cursor-home-');
  work = tempDir('txu-cursor-work-');
  fx = buildCursorHome(home);
  sources = await cursorAgent.discover(cursorAgent.roots(ctx()), () => {});
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('cursor-agent discovery', () => {
  it('is registered between claude-code and the later harnesses', () => {
    expect(harnessById('cursor-agent')).toBe(cursorAgent);
  });

  it('finds every chat store and ACP session as a sqlite source with -wal and meta.json companions', () => {
    expect(sources.map((s) => s.path).sort()).toEqual(fx.chats.map((c) => c.dbPath).sort());
    for (const s of sources) {
      expect(s.kind).toBe('sqlite');
      // Not the -shm: reading bumps its mtime, which would make every run re-read the chat.
      expect(s.companions).toEqual([s.path + '-wal', join(s.path, '..', 'meta.json')]);
    }
  });

  it('roots: --root, then CURSOR_CONFIG_DIR, else ~/.cursor and $XDG_CONFIG_HOME/cursor', () => {
    expect(cursorAgent.roots(ctx()).map((r) => r.path)).toEqual([join(home, '.cursor')]);
    expect(cursorAgent.roots(ctx({ XDG_CONFIG_HOME: '/x/cfg' })).map((r) => [r.path, r.origin])).toEqual([
      [join(home, '.cursor'), 'default'],
      ['/x/cfg/cursor', 'XDG_CONFIG_HOME'],
    ]);
    expect(
      cursorAgent.roots(ctx({ CURSOR_CONFIG_DIR: '/c/dir', XDG_CONFIG_HOME: '/x/cfg' })).map((r) => r.path),
    ).toEqual(['/c/dir']);
    expect(cursorAgent.roots(ctx({ CURSOR_CONFIG_DIR: '/c/dir' }, ['/flag/dir'])).map((r) => r.path)).toEqual([
      '/flag/dir',
    ]);
  });

  it('finds a config dir under $XDG_CONFIG_HOME/cursor and accepts a chats/ folder as root', async () => {
    const xdgHome = tempDir('txu-cursor-xdg-');
    try {
      const xfx = buildCursorHome(xdgHome, join(xdgHome, 'cfg', 'cursor'));
      const found = await cursorAgent.discover(
        cursorAgent.roots({ home: xdgHome, env: { XDG_CONFIG_HOME: join(xdgHome, 'cfg') }, rootOverrides: [] }),
        () => {},
      );
      expect(found.map((s) => s.path).sort()).toEqual(xfx.chats.map((c) => c.dbPath).sort());
      const viaChats = await cursorAgent.discover(
        cursorAgent.roots({ home: xdgHome, env: {}, rootOverrides: [join(xdgHome, 'cfg', 'cursor', 'chats')] }),
        () => {},
      );
      expect(viaChats.length).toBe(xfx.chats.filter((c) => c.name !== 'acp').length);
    } finally {
      rmSync(xdgHome, { recursive: true, force: true });
    }
  });
});

describe('cursor-agent extraction', () => {
  it('reports every chat exactly as the builder computed, and no billed usage at all', async () => {
    for (const c of fx.chats) {
      const got = await collect(c);
      expect(got.warnings, c.name).toEqual([]);
      expect(got.failed).toBe(false);
      expect(got.events, c.name).toEqual([]);
      expect(got.estimates).toEqual([]);
      expect(bySession(got.contexts), c.name).toEqual(bySession(c.rows));
      expect(got.counts, c.name).toEqual(c.counts);
    }
  });

  it('turns and latest occupancy come from the latest root; the peak from it and the pre-turn roots only', async () => {
    const live = chat('live');
    const [row] = (await collect(live)).contexts;
    // Plan: pre-turn roots 1 500 / 6 000 / 12 000, latest 9 000 after compaction;
    // stale mid-turn checkpoints of 30 000 and a rewound 4-turn root of 150 000.
    expect(row).toMatchObject({ turns: 3, latest_used_tokens: 9_000, max_tokens: 200_000, peak_used_tokens: 12_000 });
    expect(live.counts['stale roots ignored']).toBeGreaterThanOrEqual(3);
  });

  it('reads committed WAL content, with and without -shm', async () => {
    // Both chats have their last turn and final meta only in the -wal.
    const [withShm] = (await collect(chat('live'))).contexts;
    expect(withShm!.turns).toBe(3);
    const [noShm] = (await collect(chat('no-shm'))).contexts;
    expect(noShm!.turns).toBe(2);
    expect(noShm!.latest_used_tokens).toBe(5_200);
  });

  it("lists a chat with latestRootBlobId '' with 0 turns and null occupancy", async () => {
    const [row] = (await collect(chat('no-root'))).contexts;
    expect(row).toMatchObject({
      turns: 0,
      latest_used_tokens: null,
      max_tokens: null,
      peak_used_tokens: null,
      model: null,
    });
    expect(row!.first_ts).toBe(row!.last_ts);
    expect(row!.first_ts).not.toBeNull();
  });

  it('reports subagents (inline and by ref) as <chatId>/<subagentId> with the parent project, never those only in stale roots', async () => {
    const live = chat('live');
    const rows = (await collect(live)).contexts;
    const ids = rows.map((r) => r.session);
    expect(ids.sort()).toEqual([
      live.rows[0]!.session,
      `${live.rows[0]!.session}/sub-inline`,
      `${live.rows[0]!.session}/sub-ref`,
    ]);
    expect(ids.some((i) => i.includes('sub-ghost'))).toBe(false);
    for (const r of rows) expect(r.project).toBe(PROJECT_A);
    expect(rows.find((r) => r.session.endsWith('sub-inline'))!.model).toBe('sub-model');
    expect(rows.find((r) => r.session.endsWith('sub-ref'))!.model).toBeNull();
  });

  it('a subagent with its own store (meta.subagentInfo) is <parentAgentId>/<chatId> and counted as a subagent', async () => {
    const got = await collect(chat('subagent-store'));
    expect(got.contexts[0]!.session).toBe(
      `${chat('live').rows[0]!.session}/${chat('subagent-store').dbPath.split('/').at(-2)}`,
    );
    expect(got.counts).toMatchObject({ chats: 0, subagents: 1 });
  });

  it('project: meta.json cwd, else the folder md5 matched against known cwds, else unknown (<md5>)', async () => {
    const noShm = chat('no-shm');
    expect((await collect(noShm)).contexts[0]!.project).toBe(noShm.rows[0]!.project);
    expect(noShm.rows[0]!.project).toBe('/home/user/project-b');
    const unknown = (await collect(noShm, [])).contexts[0]!.project;
    expect(unknown).toBe(`unknown (${md5('/home/user/project-b')})`);
    expect(bySession((await collect(noShm, [])).contexts)).toEqual(bySession(noShm.rowsWithoutKnown));
    // meta.json cwd wins even when nothing is known.
    expect((await collect(chat('live'), [])).contexts[0]!.project).toBe(PROJECT_A);
    expect((await collect(chat('acp'), [])).contexts[0]!.project).toBe('/home/user/acp-project');
  });

  it('normalises a createdAt in seconds to epoch ms', async () => {
    const noShm = chat('no-shm');
    const [row] = (await collect(noShm)).contexts;
    expect(row!.first_ts).toBe(noShm.rows[0]!.first_ts);
    expect(row!.first_ts! > 1e12).toBe(true);
  });

  it('counts chats, live roots, stale roots ignored and subagents per store', async () => {
    const got = await collect(chat('live'));
    expect(Object.keys(got.counts).sort()).toEqual(['chats', 'live roots', 'stale roots ignored', 'subagents']);
    expect(got.counts).toEqual(chat('live').counts);
    expect(got.counts.subagents).toBe(2);
  });
});
