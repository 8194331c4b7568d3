// OpenClaw: a state dir with every trap (fixtures/openclaw/home.ts) read by
// the real harness in-process and by the CLI, totals derived by hand below;
// appends, a /reset rename and a backup written later change nothing counted.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORK_UNIT_KINDS, type UsageEvent } from '../../src/core/types.js';
import { collectSource } from '../../src/ingest/collect.js';
import { openclaw } from '../../src/harnesses/openclaw/index.js';
import { transcriptName } from '../../src/harnesses/openclaw/paths.js';
import { agentSessions, buildOpenclawHome, GPT, idlessLine, OPUS, type OcHome } from '../../fixtures/openclaw/home.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storeView } from '../helpers/pi-support.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-12-31'];

/** Billed responses of the fixture, by hand (fixtures/openclaw/home.ts: every billed response, none of the copies or non-billed messages). */
const HAND = {
  requests: 4 + 1 + 1 + 1 + 1 + 1 + 2, // A: 3 responses + compaction; B, C, D, E, F: one each; G: two (one of them written twice)
  input_tokens: 1200 + 40 + 7000 + 300 + 10 + 11 + 5 + 100 + 1 + 1 + 2,
  output_tokens: 300 + 90 + 400 + 20 + 20 + 22 + 6 + 200 + 2 + 1 + 3,
  cache_read_tokens: 5000 + 6000 + 0 + 1000 + 30 + 33 + 7 + 0 + 3,
  cache_write_tokens: 800 + 0 + 0 + 0 + 40 + 0 + 8 + 0 + 4,
  // cost.total as recorded; A's last response recorded 0 for billed tokens (no price): not a recorded cost.
  recorded: 0.125 + 0.0625 + 0.03125 + 0.0078125 + 0.015625 + 0.00390625 + 0.25 + 0.001953125,
};

async function readAll(
  home: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ events: UsageEvent[]; skips: string[]; units: number[] }> {
  const warnings: string[] = [];
  const sources = await openclaw.discover(openclaw.roots({ home, env, rootOverrides: [] }), (m) => warnings.push(m));
  expect(warnings).toEqual([]);
  const events: UsageEvent[] = [];
  const skips: string[] = [];
  const units = [0, 0, 0, 0];
  for (const s of sources) {
    const c = await collectSource(openclaw, s, { resume: null, tmpDir: tmpdir(), knownProjects: new Set() });
    events.push(...c.events);
    for (const t of c.skips) for (let i = 0; i < t.count; i++) skips.push(t.reason);
    expect(c.warnings).toEqual([]);
    for (const u of c.units.toJSON()) if (u.dedupe_rank === 0) units[WORK_UNIT_KINDS.indexOf(u.kind)]! += u.count;
  }
  return { events, skips, units };
}

let fx: OcHome;
let home: string;

beforeAll(() => {
  home = tempDir('txu-openclaw-');
  fx = buildOpenclawHome(home);
});

describe('OpenClaw file names (openclaw src/config/sessions/artifacts.ts)', () => {
  it('tells transcripts, renamed archives and copies apart, and skips what is not a transcript', () => {
    expect(transcriptName('abc.jsonl')).toEqual({ role: 'active', sessionId: 'abc' });
    expect(transcriptName('abc-topic-7.jsonl')).toEqual({ role: 'active', sessionId: 'abc-topic-7' });
    expect(transcriptName('abc.jsonl.reset.2026-03-20T06-34-44.520Z')).toEqual({ role: 'archive', sessionId: 'abc' });
    expect(transcriptName('abc.jsonl.deleted.1700000000000')).toEqual({ role: 'archive', sessionId: 'abc' });
    expect(transcriptName('abc.jsonl.deleted.2026-03-20T06-34-44Z.zst')).toEqual({ role: 'archive', sessionId: 'abc' });
    expect(transcriptName('abc.jsonl.bak.2026-03-20T06-34-44.520Z')).toEqual({ role: 'copy', sessionId: 'abc' });
    expect(transcriptName('abc.jsonl.full.bak')).toEqual({ role: 'copy', sessionId: 'abc' });
    expect(transcriptName('abc.checkpoint.0f0e0d0c-0b0a-4909-8808-070605040302.jsonl')).toEqual({
      role: 'copy',
      sessionId: 'abc',
    });
    for (const n of [
      'sessions.json',
      'abc.trajectory.jsonl',
      'abc.jsonl.lock',
      'abc.jsonl.tmp',
      '.usage-cost-cache.json',
    ])
      expect(transcriptName(n), n).toBeNull();
  });
});

describe('OpenClaw extraction', () => {
  it('counts every billed response once: archives count, backups and checkpoint twins do not add, mirrors and CLI turns are skipped', async () => {
    const { events, skips, units } = await readAll(home);
    const billed = storeView(events);
    // The copies were read (their events exist) but add nothing.
    expect(events.length).toBeGreaterThan(billed.length);
    const sum = (k: keyof UsageEvent) => billed.reduce((n, e) => n + (e[k] as number), 0);
    expect(billed.length).toBe(HAND.requests);
    expect(sum('requests')).toBe(HAND.requests);
    expect(sum('input_tokens')).toBe(HAND.input_tokens);
    expect(sum('output_tokens')).toBe(HAND.output_tokens);
    expect(sum('cache_read_tokens')).toBe(HAND.cache_read_tokens);
    expect(sum('cache_write_tokens')).toBe(HAND.cache_write_tokens);
    expect(billed.reduce((n, e) => n + (e.recorded_cost_usd ?? 0), 0)).toBeCloseTo(HAND.recorded, 12);
    expect(billed.filter((e) => e.recorded_cost_usd === null).length).toBe(1 + 2); // A's cost 0 for tokens; G records none
    // G: a line written twice is one response (README "Entries without an id"), a distinct one in the same file another.
    const g = events.filter((e) => e.source_file === fx.files.repeated);
    expect(g.map((e) => [e.source_line, e.rule])).toEqual([
      [2, 'Entries without an id'],
      [3, 'Entries without an id'],
      [4, 'Entries without an id'],
    ]);
    expect(new Set(g.map((e) => e.dedupe_key)).size).toBe(2);
    // The builder's ledger agrees row for row (sessions, projects, models, times).
    const key = (r: { session: string; ts: number; model: string | null }) => `${r.session}|${r.ts}|${r.model}`;
    expect(billed.map((e) => key({ session: e.session_id, ts: e.ts, model: e.model })).sort()).toEqual(
      fx.ledger.rows.map(key).sort(),
    );
    // The compaction after the model-snapshot is gpt-5's, not the mirror's or the CLI's.
    const compaction = billed.find((e) => e.rule === 'compaction')!;
    expect([compaction.model, compaction.provider]).toEqual([GPT[1], GPT[0]]);
    expect(billed.filter((e) => e.model === OPUS[1]).length).toBe(5);
    // Backups and the twin lose ties to the transcript itself.
    expect(billed.every((e) => e.dedupe_rank === 0)).toBe(true);
    expect(new Set(billed.map((e) => e.source_file))).not.toContain(fx.files.bak);
    expect(skips.filter((s) => s.startsWith('delivery mirror')).length).toBe(3); // the transcript and its two full backups
    expect(skips.filter((s) => s.startsWith('CLI backend turn')).length).toBe(3);
    // Prompts and tool calls of originals (copies carry rank 1).
    expect(units[0]).toBe(fx.ledger.prompts);
    expect(units[2]).toBe(fx.ledger.toolCalls);
    expect(fx.ledger.prompts).toBe(7);
  });

  it('OPENCLAW_STATE_DIR replaces the default dirs; OPENCLAW_HOME moves them', async () => {
    const only = await readAll(home, { OPENCLAW_STATE_DIR: fx.stateDir });
    expect(new Set(only.events.map((e) => e.session_id))).not.toContain('f0000000-0000-4000-8000-00000000000f');
    const moved = await readAll('/nonexistent', { OPENCLAW_HOME: home });
    expect(storeView(moved.events).length).toBe(HAND.requests);
  });
});

describe('OpenClaw: the same line written twice', () => {
  it("counts ccusage's deduplicates_repeated_openclaw_records file once (no header, no id, the line twice)", async () => {
    const h = tempDir('txu-openclaw-twice-');
    const dir = agentSessions(join(h, '.openclaw'), 'main');
    mkdirSync(dir, { recursive: true });
    const line = idlessLine(1769753935279, { input: 1, output: 1 });
    writeFileSync(join(dir, 'session.jsonl'), `${line}\n${line}\n`);
    const [src] = await openclaw.discover(openclaw.roots({ home: h, env: {}, rootOverrides: [] }), () => {});
    const c = await collectSource(openclaw, src!, { resume: null, tmpDir: tmpdir(), knownProjects: new Set() });
    expect(c.events).toHaveLength(2);
    expect(storeView(c.events).map((e) => [e.requests, e.input_tokens, e.output_tokens, e.source_line])).toEqual([
      [1, 1, 1, 1],
    ]);
    // Only the missing header is said (the session id comes from the file name).
    expect(c.warnings).toEqual([expect.stringContaining('no session header')]);
  });
});

describe('OpenClaw through the CLI', () => {
  it('report totals, sources, and nothing counted twice after an append, a /reset rename and a new backup', () => {
    const env = cleanEnv(home);
    const first = reportJson([...RANGE, '--by', 'harness'], env);
    const t = first.totals;
    expect(first.rows.map((r: any) => r.harness)).toEqual(['openclaw']);
    expect([t.requests, t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens]).toEqual([
      HAND.requests,
      HAND.input_tokens,
      HAND.output_tokens,
      HAND.cache_read_tokens,
      HAND.cache_write_tokens,
    ]);
    expect(t.recorded_cost_usd).toBeCloseTo(HAND.recorded, 9);

    const src = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout);
    const oc = src.harnesses.find((h: any) => h.harness === 'openclaw');
    expect(oc.roots.map((r: any) => [r.path, r.exists])).toEqual([
      [join(home, '.openclaw'), true],
      [join(home, '.clawdbot'), true],
      [join(home, '.moltbot'), false],
      [join(home, '.moldbot'), false],
    ]);
    expect(oc.sources.map((s: any) => s.path).sort()).toEqual(Object.values(fx.files).sort());

    // An appended response: exactly it is added.
    fx.main.user('more').assistant(...OPUS, { input: 70, output: 80, cacheRead: 90, cacheWrite: 0, cost: 0.5 });
    fx.main.write();
    const appended = reportJson([...RANGE, '--by', 'harness'], env).totals;
    expect([appended.requests, appended.input_tokens, appended.output_tokens]).toEqual([
      HAND.requests + 1,
      HAND.input_tokens + 70,
      HAND.output_tokens + 80,
    ]);
    expect(appended.recorded_cost_usd).toBeCloseTo(HAND.recorded + 0.5, 9);

    // /reset renames the transcript; a later backup repeats it: nothing moves.
    renameSync(fx.files.main!, `${fx.files.main}.reset.2026-06-02T00-00-00.000Z`);
    fx.main.write(`${fx.main.sessionId}.jsonl.bak.2026-06-02T00-00-01.000Z`);
    const after = reportJson([...RANGE, '--by', 'harness'], env).totals;
    expect(after).toEqual(appended);
    expect(readFileSync(`${fx.files.main}.reset.2026-06-02T00-00-00.000Z`, 'utf8')).toContain('"more"');
  });
});
