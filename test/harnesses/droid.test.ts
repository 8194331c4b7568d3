// Factory Droid end to end: the real CLI over a generated `~/.factory` whose
// sessions hold every trap of src/harnesses/droid/README.md reports exactly
// what the builder billed, one session-grain row per session, marked as such;
// a snapshot rewritten in place replaces its row.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildDroidHome, TRANSCRIPT_MODEL, type DroidFixture } from '../../fixtures/droid/home.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-09-01', '--until', '2026-09-30'];
const H = ['--harness', 'droid'];

describe('droid end to end (~/.factory/sessions/**/<id>.settings.json)', () => {
  let fx: DroidFixture;
  let env: NodeJS.ProcessEnv;
  let home: string;
  beforeAll(() => {
    home = tempDir('txu-droid-');
    fx = buildDroidHome(home);
    env = cleanEnv(home);
  });

  it('one row per session: own tokenUsage (never inclusive), a second file of a session once, .bak and settings.json never', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,project'], env);
    expect(reportRows(j, ['session', 'project'])).toEqual(
      fx.ledger.rows(['session', 'project']).sort(byKeys(['session', 'project'])),
    );
    // By hand: plain 100 + 20 + 10 + 55; parent 910888 + 4831239 + 4380091 + 24594; child 2000 + 7000 + 300; old 444; long 7777.
    expect(j.totals.total_tokens).toBe(185 + 10146812 + 9300 + 444 + 7777);
    expect(j.totals.requests).toBe(0);
    // Only the price data's note on Droid's model alias (priced as claude-sonnet-4-5).
    expect(j.warnings.filter((w: string) => !/has no price entry of its own/.test(w))).toEqual([]);
  });

  it('a session is placed at its last message (never providerLockTimestamp)', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'day'], env);
    expect(j.rows.map((r: any) => [r.day, r.total_tokens])).toEqual([
      ['2026-09-01', 185],
      ['2026-09-02', 10146812 + 9300],
      ['2026-09-03', 444],
      ['2026-09-06', 7777],
    ]);
  });

  it('grain: JSON says how much rests on session totals; the table marks it and says why in one line; CSV carries it', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'day'], env);
    expect(j.totals.session_grain_tokens).toBe(j.totals.total_tokens);
    expect(j.rows.every((r: any) => r.session_grain_tokens === r.total_tokens)).toBe(true);
    const t = runCli(['report', ...RANGE, ...H, '--by', 'day'], env);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/7\.78k†/);
    expect(t.stdout.split('\n').filter((l) => l.includes('† includes'))).toHaveLength(1);
    const c = runCli(['report', ...RANGE, ...H, '--by', 'day', '--format', 'csv'], env);
    const [head, first] = c.stdout.split('\n');
    expect(head).toMatch(/session_grain_tokens/);
    expect(first).toMatch(/185/);
  });

  it('compare counts the session totals in tokens and says so; blocks leave them out', () => {
    const c = runCli(['report', 'compare', ...RANGE, ...H, '--format', 'json'], env);
    expect(c.status, c.stderr).toBe(0);
    const j = JSON.parse(c.stdout);
    expect(j.totals.session_grain_tokens).toBe(j.totals.total_tokens);
    expect(runCli(['report', 'compare', ...RANGE, ...H], env).stdout.replace(/\s+/g, ' ')).toMatch(
      /The figures include [\d,]+ tokens its harnesses record as session totals/,
    );
    const b = runCli(['report', 'blocks', ...RANGE, ...H, '--format', 'json'], env);
    expect(b.status, b.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(b.stdout))).not.toMatch(/"total_tokens":[1-9]/);
  });

  it('compare per prompt: responses only; the prompts of session-total sessions are counted and named, their usage left out', () => {
    const j = JSON.parse(runCli(['report', 'compare', ...RANGE, ...H, '--format', 'json'], env).stdout);
    const d = j.harnesses.find((h: any) => h.harness === 'droid');
    // By hand: prompts plain 2, parent 1, its Task child 1 (with its parent), old 1, long 2, all of session
    // totals; the all-zero desktop session's 1 prompt has no usage at all (unanswered: 0, as before).
    expect([d.prompts, d.session_total_prompts]).toEqual([8, 7]);
    expect([
      d.answered_prompts,
      d.priced_prompts,
      d.tokens_per_prompt_mean,
      d.cost_per_prompt_usd_mean,
      d.requests_per_prompt_mean,
    ]).toEqual([0, 1, 0, 0, 0]);
    const t = runCli(['report', 'compare', ...RANGE, ...H, '--all'], env).stdout.replace(/\s+/g, ' ');
    expect(t).toContain('recorded as a session total (droid 7) count as prompts');
  });

  it('monthly carries the session_grain_* fields as summary does (JSON and CSV) and marks the table', () => {
    const j = reportJson(['monthly', ...RANGE, ...H], env);
    const want = 185 + 10146812 + 9300 + 444 + 7777;
    expect([j.totals.total_tokens, j.totals.session_grain_tokens, j.totals.session_grain_requests]).toEqual([
      want,
      want,
      0,
    ]);
    const sep = j.months.find((m: any) => m.month === '2026-09');
    expect(sep.totals.session_grain_tokens).toBe(want);
    expect(sep.by_harness.find((r: any) => r.harness === 'droid').session_grain_tokens).toBe(want);
    expect(sep.totals.session_grain_cost_usd).toBe(sep.totals.cost_usd);
    const c = runCli(['report', 'monthly', ...RANGE, ...H, '--format', 'csv'], env);
    const [head, ...rows] = c.stdout.trim().split('\n');
    const cols = head!.split(',');
    const total = rows.map((r) => r.split(',')).find((r) => r[0] === '2026-09' && r[1] === 'total')!;
    expect(Number(total[cols.indexOf('session_grain_tokens')])).toBe(want);
    const t = runCli(['report', 'monthly', ...RANGE, ...H], env).stdout;
    expect(t.split('\n').filter((l) => l.includes('† includes'))).toHaveLength(1);
  });

  it('a session without a model setting: its model from the last reminder of its transcript, priced, and explain says so', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    const row = j.rows.find((r: any) => r.session === fx.sessions.old.id);
    expect(row.model).toBe(TRANSCRIPT_MODEL);
    // By hand: 40 input + 400 cache read + 4 output, priced as claude-sonnet-4-5 (as the settings alias of the others).
    expect(row.total_tokens).toBe(444);
    expect(row.cost_usd).toBeGreaterThan(0);
    expect(
      j.warnings.filter((w: string) => w.includes(TRANSCRIPT_MODEL) && !/has no price entry of its own/.test(w)),
    ).toEqual([]);
    const r = runCli(['explain', fx.home.settingsPath(fx.sessions.old), ...RANGE, '--format', 'json'], env);
    const recs = JSON.parse(r.stdout).sources.flatMap((s: any) => s.records);
    expect(recs.find((x: any) => x.counted)).toMatchObject({
      rule: 'inclusiveTokenUsage without children; model from the transcript',
    });
  });

  it('explain names the grain of the row', () => {
    const r = runCli(['explain', fx.home.settingsPath(fx.sessions.long), ...RANGE, '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    const recs = JSON.parse(r.stdout).sources.flatMap((s: any) => s.records);
    expect(recs.find((x: any) => x.grain === 'session')).toMatchObject({
      counted: true,
      counted_as: expect.stringMatching(/^session total of/),
    });
  });

  it('export keeps the grain: a report of the export marks the same session totals (its roll-up keeps them apart)', () => {
    const out = join(home, 'export');
    const e = runCli(['export', '--out', out], env);
    expect(e.status, e.stderr).toBe(0);
    const j = reportJson(['--from', out, ...RANGE, ...H], env);
    expect(j.totals.total_tokens).toBe(185 + 10146812 + 9300 + 444 + 7777);
    expect(j.totals.session_grain_tokens).toBe(j.totals.total_tokens);
    const b = runCli(['report', 'blocks', '--from', out, ...RANGE, ...H, '--format', 'json'], env);
    expect(b.status, b.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(b.stdout))).not.toMatch(/"total_tokens":[1-9]/);
  });

  it('prompts from the transcript as units of work; a Task child keeps its parent', () => {
    const c = storedCounts(env, 'droid');
    expect(c[fx.sessions.plain.id]).toMatchObject({ prompts: 2 });
    expect(c[fx.sessions.child.id]).toMatchObject({ prompts: 1, parent: fx.sessions.parent.id });
  });

  it('a snapshot rewritten in place replaces its row (the second snapshot is the total)', () => {
    const s = fx.sessions.long;
    const grown = {
      ...s,
      usage: { ...s.usage, inputTokens: s.usage.inputTokens + 300, outputTokens: s.usage.outputTokens + 30 },
    };
    fx.home.writeSettings(grown);
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(tokenFields(j.rows.find((r: any) => r.session === s.id))).toMatchObject({
      input_tokens: 1000,
      output_tokens: 100,
      total_tokens: 8107,
    });
    fx.home.writeSettings(s);
  });

  it('DROID_SESSIONS_DIR, FACTORY_DIR and --root find the same sessions', () => {
    const base = tempDir('txu-droid-roots-');
    const other = join(base, 'home');
    const want = tokenFields(fx.ledger.totals());
    for (const [i, extra] of (
      [{ DROID_SESSIONS_DIR: join(home, '.factory', 'sessions') }, { FACTORY_DIR: join(home, '.factory') }] as Record<
        string,
        string
      >[]
    ).entries()) {
      expect(
        tokenFields(
          reportJson([...RANGE, ...H], cleanEnv(other, { ...extra, XDG_CACHE_HOME: join(base, `c${i}`) })).totals,
        ),
      ).toEqual(want);
    }
    const j = reportJson(
      [...RANGE, ...H, '--root', `droid=${join(home, '.factory', 'sessions')}`],
      cleanEnv(other, { XDG_CACHE_HOME: join(base, 'c9') }),
    );
    expect(tokenFields(j.totals)).toEqual(want);
  });
});
