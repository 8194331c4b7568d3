// Pi end to end: the real compiled CLI over generated Pi homes must report
// exactly the totals the fixture builders added up.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildDefaultHome,
  buildEnvLayouts,
  groupLedger,
  GPT,
  PROJECTS,
  SONNET,
  totalsOf,
  type GroupKey,
  type Totals,
} from '../../fixtures/pi/scenarios.js';
import { randomUsage, rng, type LedgerRow } from '../../fixtures/pi/session.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2025-12-01', '--until', '2026-03-31'];
const METRICS: (keyof Totals)[] = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
];

const metrics = (r: any): Totals => Object.fromEntries(METRICS.map((m) => [m, r[m]])) as unknown as Totals;

/** The report's rows as key → metrics, for comparison with the ledger regardless of row order. */
function reportGroups(j: any, keys: GroupKey[]): Map<string, Totals> {
  return new Map(j.rows.map((r: any) => [keys.map((k) => String(r[k])).join('\u0000'), metrics(r)]));
}

function expectReportMatches(j: any, rows: readonly LedgerRow[], keys: GroupKey[], tz = 'UTC') {
  expect(reportGroups(j, keys)).toEqual(groupLedger(rows, keys, tz));
  expect(metrics(j.totals)).toEqual(totalsOf(rows));
  expect(j.group_by).toEqual(keys);
}

describe('pi end to end (default ~/.pi/agent)', () => {
  let fx: ReturnType<typeof buildDefaultHome>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-pi-e2e-');
    fx = buildDefaultHome(home);
    env = cleanEnv(home);
  });

  it('matches the ledger exactly by model and day', () => {
    const j = reportJson([...RANGE, '--harness', 'pi', '--by', 'model,day', '--tz', 'UTC'], env);
    expectReportMatches(j, fx.ledger.rows, ['model', 'day']);
    expect(j.totals.cost_source).toBe('recorded');
    // fixture sanity: branches on both models, usage entries, v1 and shared-id sessions are in
    expect(new Set(j.rows.map((r: any) => r.model))).toEqual(
      new Set([SONNET[0], GPT[0], 'qwen/qwen3-coder', 'claude-3-5-sonnet']),
    );
  });

  it('credits fork, clone and forkFrom copies to the original session and project', () => {
    const j = reportJson([...RANGE, '--harness', 'pi', '--by', 'session'], env);
    expectReportMatches(j, fx.ledger.rows, ['session']);
    const own = (id: string) => fx.ledger.rows.filter((r) => r.session === id).length;
    for (const copy of [fx.tree.fork, fx.tree.clone, fx.tree.moved]) {
      expect(j.rows.find((r: any) => r.session === copy.sessionId).requests).toBe(own(copy.sessionId));
    }
    const p = reportJson([...RANGE, '--harness', 'pi', '--by', 'project'], env);
    expectReportMatches(p, fx.ledger.rows, ['project']);
    expect(p.rows.find((r: any) => r.project === PROJECTS.beta).requests).toBe(own(fx.tree.moved.sessionId));
  });

  it('matches by week, month and project,model, and in another time zone', () => {
    for (const keys of [['week'], ['month'], ['project', 'model']] as GroupKey[][]) {
      expectReportMatches(reportJson([...RANGE, '--harness', 'pi', '--by', keys.join(',')], env), fx.ledger.rows, keys);
    }
    const tz = 'America/Los_Angeles';
    expectReportMatches(
      reportJson([...RANGE, '--harness', 'pi', '--by', 'day', '--tz', tz], env),
      fx.ledger.rows,
      ['day'],
      tz,
    );
  });

  it('a narrower range keeps only the responses inside it', () => {
    const j = reportJson(['--since', '2026-01-06', '--until', '2026-01-06', '--harness', 'pi', '--by', 'model'], env);
    const inDay = fx.ledger.rows.filter((r) => new Date(r.ts).toISOString().startsWith('2026-01-06'));
    expect(inDay.length).toBeGreaterThan(0);
    expectReportMatches(j, inDay, ['model']);
  });

  it('picks up appended branches and a new fork on the next run (incremental ingest)', () => {
    reportJson([...RANGE, '--harness', 'pi'], env);
    const s = fx.tree.main;
    const r = rng(500);
    // A new branch from the compaction line, and a compaction whose model comes from the tree.
    s.branch(fx.tree.ids.compaction!);
    s.user('One more thing');
    s.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
    s.branch(fx.tree.ids.userB!);
    s.compaction({ usage: randomUsage(r) });
    s.flush();
    const fork = s.branchedCopy(s.leafId!, { dir: join(s.path, '..'), seed: 501, start: Date.UTC(2026, 0, 9) });
    fork.assistant({ provider: GPT[1], model: GPT[0], usage: randomUsage(r) });
    fork.write();
    expect(fx.ledger.rows.at(-2)!.model).toBe(GPT[0]);
    // The grown file is resumed (its ResumePoint.state carries the entry tree), the new fork read whole.
    const ing = runCli(['ingest'], env);
    expect(ing.status).toBe(0);
    expect(ing.stdout + ing.stderr).toMatch(/1 read, 1 appended/);
    const j = reportJson([...RANGE, '--harness', 'pi', '--by', 'model,session'], env);
    expectReportMatches(j, fx.ledger.rows, ['model', 'session']);
  });

  it('reports bad lines as warnings naming file and line, without their content', () => {
    const home = tempDir('txu-pi-e2e-bad-');
    const b = buildDefaultHome(home);
    appendFileSync(b.tree.main.path, '{"type":"message","usage": top secret prompt\n');
    const j = reportJson([...RANGE, '--harness', 'pi'], cleanEnv(home));
    expect(metrics(j.totals)).toEqual(totalsOf(b.ledger.rows));
    expect(j.warnings.some((w: string) => w.startsWith(`${b.tree.main.path}:`) && /1 unparsable line/.test(w))).toBe(
      true,
    );
    expect(j.warnings.join('\n')).not.toContain('secret');
  });

  it('lists the pi sources', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'pi');
    expect(h.files).toBe(7 + 1); // tree (4 files), v1, two shared-id sessions, the fork added above
  });
});

describe('pi end to end (PI_CODING_AGENT_DIR, PI_CODING_AGENT_SESSION_DIR)', () => {
  it('reads the custom agent dir and the flat session dir, projects from the header cwd', () => {
    const base = tempDir('txu-pi-e2e-env-');
    const home = join(base, 'home');
    buildDefaultHome(home); // replaced by PI_CODING_AGENT_DIR: must not be counted
    const e = buildEnvLayouts(base);
    const env = cleanEnv(home, { PI_CODING_AGENT_DIR: e.agentDir, PI_CODING_AGENT_SESSION_DIR: e.flatDir });
    const j = reportJson([...RANGE, '--harness', 'pi', '--by', 'project,day'], env);
    expectReportMatches(j, e.ledger.rows, ['project', 'day']);
    expect(new Set(j.rows.map((r: any) => r.project))).toEqual(
      new Set([PROJECTS.delta, PROJECTS.epsilon, PROJECTS.zeta]),
    );
  });

  it('--root pi=PATH replaces every other root', () => {
    const base = tempDir('txu-pi-e2e-root-');
    const e = buildEnvLayouts(base);
    const env = cleanEnv(join(base, 'nohome'), { PI_CODING_AGENT_SESSION_DIR: e.flatDir });
    const j = reportJson([...RANGE, '--harness', 'pi', '--root', `pi=${e.agentDir}`, '--by', 'project'], env);
    expectReportMatches(
      j,
      e.ledger.rows.filter((r) => r.project === PROJECTS.delta),
      ['project'],
    );
  });
});
