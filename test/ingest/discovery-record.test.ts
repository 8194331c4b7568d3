// A recorded discovery is reused only while every file-system answer and
// environment variable it was based on is the same: these tests change one
// thing at a time and expect the record to be refused, and expect a record
// that still holds to give exactly what a fresh discovery gives.
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverAll, discoverRecorded } from '../../src/ingest/discover.js';
import {
  loadRecord,
  replayRecord,
  saveRecord,
  withMeta,
  type DiscoveryRecord,
} from '../../src/ingest/discovery-record.js';
import type { ScanFacts } from '../../src/ingest/stamp.js';
import { tempDir } from '../helpers/temp.js';

const base = tempDir('txu-discrec-');
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A home with Claude Code, Codex and Pi transcripts (contents do not matter to discovery). */
function makeHome(): string {
  const home = join(base, `home${++n}`);
  const p = join(home, '.claude', 'projects', '-home-u-app');
  mkdirSync(join(p, 's1', 'subagents'), { recursive: true });
  writeFileSync(join(p, 's1.jsonl'), '{}\n');
  writeFileSync(join(p, 's1', 'subagents', 'agent-a1.jsonl'), '{}\n');
  const day = join(home, '.codex', 'sessions', '2026', '11', '30');
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, 'rollout-2026-11-30T10-00-00-0199a000-0000-7000-8000-000000000001.jsonl'), '{}\n');
  mkdirSync(join(home, '.pi', 'agent', 'sessions', '--home-u-app--'), { recursive: true });
  writeFileSync(join(home, '.pi', 'agent', 'sessions', '--home-u-app--', '2026-11-30T10-00-00-000Z_p1.jsonl'), '{}\n');
  return home;
}

/** What a scan found, each source with its meta (a replayed source gets it when it is to be read: withMeta). */
function facts(scans: ScanFacts[]) {
  return scans.map((s) => ({ id: s.harness.id, roots: s.roots, sources: s.sources.map(withMeta) }));
}

async function recordOf(home: string, env: NodeJS.ProcessEnv = {}, settleMs?: number): Promise<DiscoveryRecord> {
  const { record } = await discoverRecorded(
    { home, env, rootOverrides: {} },
    [],
    settleMs === undefined ? {} : { settleMs },
  );
  return record();
}

function replay(r: DiscoveryRecord, home: string, env: NodeJS.ProcessEnv = {}) {
  return replayRecord(r, { home, env, rootOverrides: {} });
}

describe('discovery record', () => {
  it('replays exactly what a fresh discovery finds, also after a save and load', async () => {
    const home = makeHome();
    const r = await recordOf(home);
    const fresh = await discoverAll({ home, env: {}, rootOverrides: {} }, []);
    expect(fresh.reduce((k, s) => k + s.sources.length, 0)).toBe(4);
    expect(facts(replay(r, home)!.scans)).toEqual(facts(fresh));
    const file = join(base, `rec${n}.json`);
    saveRecord(file, r);
    expect(facts(replay(loadRecord(file)!, home)!.scans)).toEqual(facts(fresh));
  });

  it('keeps names with tabs, newlines, U+001F and backslashes, and gives each source its meta only when asked (issue 37)', async () => {
    const home = makeHome();
    const p = join(home, '.claude', 'projects', '-home-u-app');
    for (const name of ['a\tb.jsonl', 'c\nd.jsonl', 'e\u001ff.jsonl', 'g\\h\\t.jsonl'])
      writeFileSync(join(p, name), '{}\n');
    const r = await recordOf(home);
    const fresh = await discoverAll({ home, env: {}, rootOverrides: {} }, []);
    expect(fresh.reduce((k, s) => k + s.sources.length, 0)).toBe(8);
    const file = join(base, `rec-odd${n}.json`);
    saveRecord(file, r);
    const replayed = replay(loadRecord(file)!, home)!.scans;
    const claude = replayed.find((s) => s.harness.id === 'claude-code')!.sources;
    // Not parsed for a run that only stats the sources (still an accessor); there once a source is to be read.
    const lazy = (s: object) => typeof Object.getOwnPropertyDescriptor(s, 'meta')?.get === 'function';
    expect(claude.every(lazy)).toBe(true);
    expect(withMeta(claude[0]!).meta).toBeDefined();
    expect(claude.some(lazy)).toBe(false);
    expect(facts(replayed)).toEqual(facts(fresh));
  });

  it('gives a replayed source its meta wherever it is read, without withMeta: copies by spread and structured clone included', async () => {
    const home = makeHome();
    const fresh = await discoverAll({ home, env: {}, rootOverrides: {} }, []);
    const file = join(base, `rec-copies${n}.json`);
    saveRecord(file, await recordOf(home));
    const want = fresh.find((s) => s.harness.id === 'claude-code')!.sources.map((x) => x.meta);
    expect(want.some((m) => m !== undefined)).toBe(true);
    // A reader that took the source by a copy once saw no meta at all: Claude Code's resumed reads
    // then counted every response under session "unknown" (test/faults-growing.test.ts).
    for (const copy of [
      (x: object) => ({ ...x }),
      (x: object) => structuredClone(x),
      (x: { meta?: unknown }) => ({ meta: x.meta }),
    ]) {
      const claude = replay(loadRecord(file)!, home)!.scans.find((s) => s.harness.id === 'claude-code')!.sources;
      expect(claude.map((x) => (copy(x) as { meta?: unknown }).meta)).toEqual(want);
    }
  });

  it('is refused once a transcript is added, removed or renamed, or a folder appears', async () => {
    const cases: [string, (home: string) => void][] = [
      ['added', (h) => writeFileSync(join(h, '.claude', 'projects', '-home-u-app', 's2.jsonl'), '{}\n')],
      ['removed', (h) => unlinkSync(join(h, '.claude', 'projects', '-home-u-app', 's1.jsonl'))],
      [
        'renamed',
        (h) =>
          renameSync(
            join(h, '.claude', 'projects', '-home-u-app', 's1.jsonl'),
            join(h, '.claude', 'projects', '-home-u-app', 's9.jsonl'),
          ),
      ],
      ['new day folder', (h) => mkdirSync(join(h, '.codex', 'sessions', '2026', '12', '01'), { recursive: true })],
      [
        'new subagent',
        (h) =>
          writeFileSync(join(h, '.claude', 'projects', '-home-u-app', 's1', 'subagents', 'agent-a2.jsonl'), '{}\n'),
      ],
      ['new root', (h) => mkdirSync(join(h, '.config', 'claude', 'projects'), { recursive: true })],
    ];
    for (const settled of [false, true]) {
      for (const [name, change] of cases) {
        const home = makeHome();
        // settleMs 0 trusts folder timestamps at once: the pause puts the change on a later clock tick.
        const r = await recordOf(home, {}, settled ? 0 : undefined);
        if (settled) {
          expect(r.obs.some((o) => o.op === 'list' && o.r.settled)).toBe(true);
          await sleep(30);
        } else expect(r.obs.some((o) => o.op === 'list' && o.r.settled)).toBe(false);
        expect(replay(r, home), `${name}: unchanged`).not.toBeNull();
        change(home);
        expect(replay(r, home), `${name} (${settled ? 'settled' : 'fresh'} folders)`).toBeNull();
      }
    }
  });

  it('is still valid after a transcript grows (that is what the stamps are for)', async () => {
    const home = makeHome();
    const r = await recordOf(home, {}, 0);
    await sleep(30);
    writeFileSync(join(home, '.claude', 'projects', '-home-u-app', 's1.jsonl'), '{}\n{}\n');
    expect(replay(r, home)).not.toBeNull();
  });

  it('is refused when an environment variable discovery read changes', async () => {
    const home = makeHome();
    const other = join(base, `codex-elsewhere${n}`);
    mkdirSync(other, { recursive: true });
    const r = await recordOf(home, {});
    expect(r.env.map(([k]) => k)).toEqual(expect.arrayContaining(['CLAUDE_CONFIG_DIR', 'CODEX_HOME']));
    expect(replay(r, home, { CODEX_HOME: other })).toBeNull();
    expect(replay(r, home, { UNRELATED: '1' })).not.toBeNull();
    expect(replay(r, join(base, 'another-home'))).toBeNull();
  });

  it('is refused when a linked root points somewhere else', async () => {
    const home = makeHome();
    const a = join(base, `codexA${n}`);
    const b = join(base, `codexB${n}`);
    for (const d of [a, b]) {
      mkdirSync(join(d, 'sessions'), { recursive: true });
      writeFileSync(
        join(d, 'sessions', 'rollout-2026-11-30T10-00-00-0199a000-0000-7000-8000-000000000002.jsonl'),
        '{}\n',
      );
    }
    const link = join(base, `codexLink${n}`);
    symlinkSync(a, link);
    const env = { CODEX_HOME: link };
    const r = await recordOf(home, env, 0);
    expect(replay(r, home, env)).not.toBeNull();
    unlinkSync(link);
    symlinkSync(b, link);
    expect(replay(r, home, env)).toBeNull();
  });

  it('is refused when a linked project folder gains a transcript or points elsewhere', async () => {
    const home = makeHome();
    const a = join(base, `linkedA${n}`);
    const b = join(base, `linkedB${n}`);
    for (const d of [a, b]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 's5.jsonl'), '{}\n');
    }
    const link = join(home, '.claude', 'projects', '-home-u-linked');
    symlinkSync(a, link);
    const r = await recordOf(home, {}, 0);
    expect(
      facts(replay(r, home)!.scans)
        .find((s) => s.id === 'claude-code')!
        .sources.map((x) => x.key),
    ).toContain(join(a, 's5.jsonl'));
    await sleep(30);
    writeFileSync(join(a, 's6.jsonl'), '{}\n');
    expect(replay(r, home)).toBeNull();
    const r2 = await recordOf(home, {}, 0);
    unlinkSync(link);
    symlinkSync(b, link);
    expect(replay(r2, home)).toBeNull();
  });

  it("is refused when pi's settings.json names another session folder", async () => {
    const home = makeHome();
    const settings = join(home, '.pi', 'agent', 'settings.json');
    writeFileSync(settings, JSON.stringify({ sessionDir: '~/pi-a' }));
    const r = await recordOf(home, {}, 0);
    expect(
      facts(replay(r, home)!.scans)
        .find((s) => s.id === 'pi')!
        .roots.map((x) => x.path),
    ).toContain(join(home, 'pi-a'));
    writeFileSync(settings, JSON.stringify({ sessionDir: '~/pi-b' }));
    expect(replay(r, home)).toBeNull();
  });
});
