// The Cline family: task folders of Cline, Roo Code and Kilo Code with every
// trap (fixtures/cline/home.ts), read by the real harnesses in-process and by
// the CLI; totals derived by hand below. Whole-document rewrites (a request
// filled in, a checkpoint restore deleting requests, a file caught mid-write)
// change nothing already counted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORK_UNIT_KINDS, type HarnessId, type UsageEvent } from '../../src/core/types.js';
import { collectSource } from '../../src/ingest/collect.js';
import { harnessById } from '../../src/harnesses/registry.js';
import { editorUserDirs } from '../../src/harnesses/cline/paths.js';
import type { Harness, ResumePoint } from '../../src/harnesses/types.js';
import { buildClineHome, GPT, SONNET, type ClineHome } from '../../fixtures/cline/home.js';
import type { ClineBilled } from '../../fixtures/cline/task.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storeView } from '../helpers/pi-support.js';

const RANGE = ['--since', '2025-01-01', '--until', '2026-12-31'];

/**
 * By hand from fixtures/cline/home.ts (billed figures as the provider billed
 * them; sums of deleted requests and subagent sums are 0 requests).
 */
const HAND: Record<
  'cline' | 'cline-tasks' | 'cline-sdk' | 'roo-code' | 'kilo-tasks',
  { requests: number; input: number; cacheRead: number; cacheWrite: number; output: number }
> = {
  // SDK sessions: s1's two calls (not the banner), its sub-agent's call, the fork's own call (not its copies).
  'cline-sdk': {
    requests: 4,
    input: 3000 + 100 + 400 + 20,
    cacheRead: 30000 + 5000 + 33000,
    cacheWrite: 2000,
    output: 500 + 50 + 40 + 60,
  },
  cline: { requests: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
  'cline-tasks': {
    requests: 5 + 3 + 1 + 1 + 1, // c1: 2 + cancelled + ollama + retried (not the claude-code one, not the placeholder); c2: 3; c3, c4, c5: 1
    input: 1200 + 500 + 700 + 50 + 900 + 333 + (100 + 200 + 300) + (10 + 300) + 40 + 60,
    cacheRead: 20000 + 8000 + 1000 + 7000 + (1000 + 2000 + 3000) + (100 + 4000) + 400 + 600,
    cacheWrite: 3000 + 100 + 500 + 500 + 40 + 60,
    output: 400 + 200 + 300 + 10 + 100 + 44 + (50 + 60 + 70) + (5 + 250) + 4 + 6,
  },
  'roo-code': {
    requests: 2 + 1 + 1 + 1, // r1: 2 requests + the condense call; r2: 1 (+ a sum); r3: 1
    input: 1000 + 400 + 700 + 80 + 90,
    cacheRead: 9000 + 6000 + 12000 + 800 + 900,
    cacheWrite: 2000 + 1500 + 80,
    output: 500 + 100 + 600 + 8 + 9,
  },
  'kilo-tasks': { requests: 2, input: 250 + 150, cacheRead: 5000 + 1500, cacheWrite: 750, output: 125 + 75 },
};
for (const k of Object.keys(HAND.cline) as (keyof (typeof HAND)['cline'])[])
  HAND.cline[k] = HAND['cline-tasks'][k] + HAND['cline-sdk'][k];

let fx: ClineHome;
let home: string;

beforeAll(() => {
  home = tempDir('txu-cline-');
  fx = buildClineHome(home);
});
afterAll(() => fx?.close());

interface Read {
  events: UsageEvent[];
  skips: string[];
  warnings: string[];
  units: number[];
  resume: Map<string, ResumePoint | null>;
}

async function readHarness(id: HarnessId, prior: Map<string, ResumePoint | null> = new Map()): Promise<Read> {
  const h = harnessById(id) as Harness;
  const warnings: string[] = [];
  const sources = await h.discover(h.roots({ home, env: {}, rootOverrides: [] }), (m) => warnings.push(m));
  const out: Read = { events: [], skips: [], warnings, units: [0, 0, 0, 0], resume: new Map() };
  const seenUnits = new Set<string>();
  for (const s of sources) {
    const c = await collectSource(h, s, {
      resume: null,
      prior: prior.get(s.key)?.state,
      tmpDir: tmpdir(),
      knownProjects: new Set(),
    });
    out.events.push(...c.events);
    out.warnings.push(...c.warnings);
    for (const t of c.skips) for (let i = 0; i < t.count; i++) out.skips.push(t.reason);
    // Units of the task files (kilo.db's are OpenCode's, tested there).
    // (Keyed as the store keys them: a fork's copies are the originals' units.)
    if (s.kind === 'json')
      for (const u of c.units.toJSON()) {
        if (seenUnits.has(`${u.kind}:${u.dedupe_key}`)) continue;
        seenUnits.add(`${u.kind}:${u.dedupe_key}`);
        out.units[WORK_UNIT_KINDS.indexOf(u.kind)]! += u.count;
      }
    out.resume.set(s.key, c.resume);
  }
  return out;
}

const asBilled = (e: UsageEvent) => ({
  session: e.session_id,
  project: e.project,
  model: e.model,
  provider: e.provider,
  ts: e.ts,
  requests: e.requests,
  input: e.input_tokens,
  cacheRead: e.cache_read_tokens,
  cacheWrite: e.cache_write_tokens,
  output: e.output_tokens,
  cost: e.recorded_cost_usd,
});
const fromLedger = ({ harness: _h, ...r }: ClineBilled) => r;
const order = <T extends { session: string; ts: number }>(l: T[]) =>
  [...l].sort((a, b) => a.session.localeCompare(b.session) || a.ts - b.ts);

function sums(rows: { requests: number; input: number; cacheRead: number; cacheWrite: number; output: number }[]) {
  const t = { requests: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
  for (const r of rows) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += r[k];
  return t;
}

describe('where the Cline family keeps tasks', () => {
  it('editor user dirs on Linux, macOS and Windows (VS Code, Insiders, Cursor, VSCodium, Windsurf)', () => {
    const ctx = { home: '/h', env: {}, rootOverrides: [] };
    expect(editorUserDirs(ctx, 'linux').map((d) => d.path)).toEqual([
      '/h/.config/Code/User',
      '/h/.config/Code - Insiders/User',
      '/h/.config/Cursor/User',
      '/h/.config/VSCodium/User',
      '/h/.config/Windsurf/User',
      '/h/.vscode-server/data/User',
      '/h/.cursor-server/data/User',
    ]);
    expect(editorUserDirs(ctx, 'darwin').map((d) => d.path)[0]).toBe('/h/Library/Application Support/Code/User');
    expect(
      editorUserDirs({ ...ctx, env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' } }, 'win32').map((d) => d.path)[3],
    ).toMatch(/Roaming.VSCodium.User$/);
    expect(editorUserDirs({ ...ctx, env: { VSCODE_PORTABLE: '/p' } }, 'linux')[0]).toEqual({
      path: '/p/user-data/User',
      origin: 'VSCODE_PORTABLE',
    });
    const roots = harnessById('cline')!.roots({ home: '/h', env: { CLINE_DIR: '/c' }, rootOverrides: [] });
    expect(roots[0]!.path).toBe('/c/data');
    expect(roots[1]!.path).toBe('/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev');
    expect(harnessById('kilo-code')!.roots({ home: '/h', env: {}, rootOverrides: [] })[0]!.path).toBe(
      '/h/.local/share/kilo',
    );
  });
});

describe('Cline-family extraction', () => {
  it('Cline: every request once, in its billed figures, with its model and folder', async () => {
    const r = await readHarness('cline');
    expect(r.warnings).toEqual([]);
    const billed = storeView(r.events);
    // The fork's copies were read, and lose to the originals.
    expect(r.events.length - billed.length).toBe(2);
    expect(order(billed.map(asBilled))).toEqual(
      order(fx.ledger.rows.filter((x) => x.harness === 'cline').map(fromLedger)),
    );
    expect(sums(billed.map(asBilled))).toEqual(HAND.cline);
    expect(sums(billed.filter((e) => e.rule === 'sdk model call').map(asBilled))).toEqual(HAND['cline-sdk']);
    expect(r.skips.filter((s) => s.startsWith('display-only message')).length).toBe(2); // the session and its fork
    // The request without modelInfo took task_metadata.json's model; the sums are 0 requests.
    expect(r.events.find((e) => e.session_id === '1772355600000' && e.rule === 'api request')!.model).toBe(SONNET);
    expect(
      r.events
        .filter((e) => e.requests === 0)
        .map((e) => e.rule)
        .sort(),
    ).toEqual(['deleted requests (sum)', 'subagent usage (sum)']);
    // 0 recorded for billed tokens is no price, not free; a retry's first figures are gone.
    expect(r.events.find((e) => e.model === 'qwen3:8b')!.recorded_cost_usd).toBeNull();
    expect(r.events.some((e) => e.input_tokens === 1)).toBe(false);
    expect(r.skips.filter((s) => s.startsWith('Claude Code provider request')).length).toBe(1);
    expect(r.skips.filter((s) => s.startsWith('request without usage yet')).length).toBe(1);
    // A stream that failed before any usage (all zeros, cancelReason streaming_failed) is no request (README "What counts").
    expect(r.skips.filter((s) => s === 'failed request without usage (streaming_failed: not billed)').length).toBe(1);
    expect(
      r.events.some(
        (e) => e.requests === 1 && e.input_tokens + e.output_tokens + e.cache_read_tokens + e.cache_write_tokens === 0,
      ),
    ).toBe(false);
  });

  it('Roo Code and Kilo Code: tokensIn read by protocol and release date; condense calls; a subtask', async () => {
    const roo = await readHarness('roo-code');
    expect(roo.warnings).toEqual([]);
    expect(order(roo.events.map(asBilled))).toEqual(
      order(fx.ledger.rows.filter((x) => x.harness === 'roo-code').map(fromLedger)),
    );
    expect(sums(roo.events.map(asBilled))).toEqual(HAND['roo-code']);
    // Models from the environment-details stamps: the openai request is gpt-5's, the condense call too.
    expect(
      roo.events
        .filter((e) => e.model === GPT)
        .map((e) => e.rule)
        .sort(),
    ).toEqual(['api request', 'context condense']);
    expect(roo.events.every((e) => e.project !== null)).toBe(true);
    expect(roo.skips.filter((s) => s.startsWith('failed request without usage')).length).toBe(1);

    const kilo = await readHarness('kilo-code');
    const tasks = kilo.events.filter((e) => e.source_file.endsWith('ui_messages.json'));
    expect(order(tasks.map(asBilled))).toEqual(
      order(fx.ledger.rows.filter((x) => x.harness === 'kilo-code').map(fromLedger)),
    );
    expect(sums(tasks.map(asBilled))).toEqual(HAND['kilo-tasks']);
    expect(kilo.skips.filter((s) => s.startsWith('failed request without usage')).length).toBe(1);
    // kilo.db through OpenCode's reader: what OpenCode's own fixture ledger says.
    const db = kilo.events.filter((e) => e.source_file.endsWith('kilo.db'));
    const want = fx.kiloDb.expected();
    expect(db.every((e) => e.harness === 'kilo-code')).toBe(true);
    expect([sums(db.map(asBilled)).requests, sums(db.map(asBilled)).input, sums(db.map(asBilled)).output]).toEqual([
      want.requests,
      want.input_tokens,
      want.output_tokens,
    ]);
  });

  it('units of work: prompts typed by a person, tool calls, a subtask as a subagent task', async () => {
    const all = [await readHarness('cline'), await readHarness('roo-code'), await readHarness('kilo-code')];
    const units = [0, 1, 2, 3].map((k) => all.reduce((n, r) => n + r.units[k]!, 0));
    expect(units[0]).toBe(fx.ledger.prompts);
    expect(units[1]).toBe(fx.ledger.prompts); // no turn ends are recorded: each prompt is a turn
    expect(units[2]).toBe(fx.ledger.toolCalls);
    expect(units[3]).toBe(fx.ledger.subagentTasks);
    expect(fx.ledger.subagentTasks).toBe(2); // Roo's subtask and the SDK sub-agent
  });

  it('a checkpoint restore deleting seen requests, then a file caught mid-write: nothing counted changes', async () => {
    const first = await readHarness('cline');
    const before = sums(storeView(first.events).map(asBilled));
    const c2 = fx.tasks.c2!;
    c2.restore(2); // keeps task, first request and the feedback; deletes two requests
    c2.write();
    // And the SDK session loses its last call (a checkpoint restore truncates the list).
    fx.sdk.messages.splice(fx.sdk.messages.length - 1);
    fx.sdk.write();
    const after = await readHarness('cline', first.resume);
    expect(sums(storeView(after.events).map(asBilled))).toEqual(before);
    const kept = after.events.filter((e) => e.rule === 'kept from an earlier read');
    expect(kept.map((e) => e.input_tokens).sort((a, b) => a - b)).toEqual([100, 200, 300]);
    // The sum adds nothing: its requests are the kept ones.
    expect(after.events.filter((e) => e.session_id === c2.taskId && e.rule === 'deleted requests (sum)')).toEqual([]);
    c2.write({ torn: true });
    const torn = await readHarness('cline', after.resume);
    expect(sums(storeView(torn.events).map(asBilled))).toEqual(before);
    expect(torn.warnings.join('\n')).toMatch(
      /ui_messages\.json: not a complete message list \(incomplete \(ends inside the array\)\); what the last read counted is kept/,
    );
    c2.write();
  });
});

describe('the Cline family through the CLI', () => {
  it('report totals per harness, sources, and re-reads after rewrites', () => {
    // A home of its own: the restore above changed the first one's files.
    const home = tempDir('txu-cline-cli-');
    const fx = buildClineHome(home);
    const env = cleanEnv(home);
    const byHarness = () =>
      Object.fromEntries(reportJson([...RANGE, '--by', 'harness'], env).rows.map((r: any) => [r.harness, r]));
    const rows = byHarness();
    const db = fx.kiloDb.expected();
    const pick = (r: any) => ({
      requests: r.requests,
      input: r.input_tokens,
      cacheRead: r.cache_read_tokens,
      cacheWrite: r.cache_write_tokens,
      output: r.output_tokens,
    });
    expect(pick(rows.cline)).toEqual(HAND.cline);
    expect(pick(rows['roo-code'])).toEqual(HAND['roo-code']);
    const k = HAND['kilo-tasks'];
    expect(pick(rows['kilo-code'])).toEqual({
      requests: k.requests + db.requests,
      input: k.input + db.input_tokens,
      cacheRead: k.cacheRead + db.cache_read_tokens,
      cacheWrite: k.cacheWrite + db.cache_write_tokens,
      output: k.output + db.output_tokens,
    });

    const src = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout);
    const clineSrc = src.harnesses.find((h: any) => h.harness === 'cline');
    expect(clineSrc.roots.filter((r: any) => r.exists).map((r: any) => r.path)).toEqual([
      join(home, '.cline', 'data'),
      join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev'),
      join(home, '.config', 'Cursor', 'User', 'globalStorage', 'saoudrizwan.claude-dev'),
    ]);
    expect(clineSrc.sources.map((s: any) => s.path.split('/').pop()).sort()).toEqual(
      [
        ...Array(5).fill('ui_messages.json'),
        '1784094053271_p8pzo.messages.json',
        '1784094053271_p8pzo__researcher.messages.json',
        '1784094124598_rruoq.messages.json',
      ].sort(),
    );
    expect(clineSrc.sources.every((s: any) => s.kind === 'json')).toBe(true);

    // The in-flight request is filled in (the whole file rewritten): exactly it is added.
    const c1 = fx.tasks.c1!;
    const pending = c1.messages.find((m) => m.say === 'api_req_started' && !String(m.text).includes('tokensIn'))!;
    c1.finish(pending, {
      billing: { uncached: 7, cacheRead: 70, cacheWrite: 0, output: 17, cost: 0.5 },
      model: SONNET,
      provider: 'anthropic',
      inclusive: false,
      modelInfo: true,
    });
    c1.write();
    const filled = byHarness().cline;
    expect(pick(filled)).toEqual({
      ...HAND.cline,
      requests: HAND.cline.requests + 1,
      input: HAND.cline.input + 7,
      cacheRead: HAND.cline.cacheRead + 70,
      output: HAND.cline.output + 17,
    });

    // A checkpoint restore after that read: the same totals, day by day.
    const days = () =>
      reportJson([...RANGE, '--by', 'day', '--harness', 'cline'], env).rows.map((r: any) => [
        r.day,
        r.requests,
        r.input_tokens,
        r.cost_usd,
      ]);
    const daysBefore = days();
    const c2 = fx.tasks.c2!;
    c2.restore(0);
    c2.write();
    expect(pick(byHarness().cline)).toEqual(pick(filled));
    expect(days()).toEqual(daysBefore);
    expect(readFileSync(join(c2.dir, 'ui_messages.json'), 'utf8')).toContain('deleted_api_reqs');
    fx.close();
  });
});
