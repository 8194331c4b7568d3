// Issue 34, "Sessions that are missing today": linked folders, pi's own
// session folder and the sessions its extensions write, Claude Desktop's
// Cowork sessions, and usage objects that are not counted but must be named.
// The real CLI runs over homes built by fixtures/missing-sessions.ts; every
// expected figure is added up by hand from the usages the fixture wrote.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildCoworkHome,
  buildLinkedHome,
  buildPiDirsHome,
  buildSilentHome,
  COWORK,
  LINKED,
  PI_DIRS,
  SILENT,
} from '../../fixtures/missing-sessions.js';
import { SKIP_DEBUG_COPY, SKIP_TOOL_DATA } from '../../src/harnesses/pi/extract.js';
import {
  SKIP_PROGRESS_COPY,
  SKIP_TASK_SUMMARY,
  SKIP_USER_RECORD_USAGE,
} from '../../src/harnesses/claude-code/skips.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31', '--tz', 'UTC'];

function sources(env: NodeJS.ProcessEnv): any {
  const r = runCli(['sources', '--format', 'json'], env);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const harnessOf = (s: any, id: string) => s.harnesses.find((h: any) => h.harness === id);
const tokens = (r: any) => ({
  requests: r.requests,
  input_tokens: r.input_tokens,
  cache_read_tokens: r.cache_read_tokens,
  cache_write_tokens: r.cache_write_tokens,
  output_tokens: r.output_tokens,
});

describe('linked project and session folders', () => {
  let fx: ReturnType<typeof buildLinkedHome>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildLinkedHome(tempDir('txu-linked-'));
    env = cleanEnv(fx.home);
  });

  it('counts the sessions in linked folders of every harness, each once', () => {
    const j = reportJson([...RANGE, '--by', 'harness', '--sort', 'name'], env);
    const by = Object.fromEntries(j.rows.map((r: any) => [r.harness, tokens(r)]));
    // Claude Code: L1 (100 in, 10 out) + L2 (200 in, 20 out, 1000 cache read) behind the link,
    // D1 (3 in, 4 out) reachable directly and through an alias link: 3 responses.
    expect(by['claude-code']).toEqual({
      requests: 3,
      input_tokens: 303,
      cache_read_tokens: 1000,
      cache_write_tokens: 0,
      output_tokens: 34,
    });
    // Codex: 1000 input of which 400 cached → 600 uncached; 50 output.
    expect(by.codex).toEqual({
      requests: 1,
      input_tokens: 600,
      cache_read_tokens: 400,
      cache_write_tokens: 0,
      output_tokens: 50,
    });
    // Pi: 10 in, 5 out, 100 cache read; pi recorded $0.50.
    expect(by.pi).toEqual({
      requests: 1,
      input_tokens: 10,
      cache_read_tokens: 100,
      cache_write_tokens: 0,
      output_tokens: 5,
    });
    expect(j.rows.find((r: any) => r.harness === 'pi').recorded_cost_usd).toBe(0.5);
    expect(j.totals.requests).toBe(5);
    expect(j.warnings).toEqual([]);
  });

  it('reads a file reachable twice once, by its direct path, and shows a linked file with its target', () => {
    const s = sources(env);
    const cc = harnessOf(s, 'claude-code');
    expect(cc.files).toBe(2);
    const paths = cc.sources.map((x: any) => x.path).sort();
    const linked = join(fx.home, '.claude', 'projects', '-home-u-linked', `${LINKED.claudeLinked.session}.jsonl`);
    expect(paths).toEqual([fx.claudeDirectFile, linked].sort());
    expect(cc.sources.find((x: any) => x.path === linked).target).toBe(
      join(fx.claudeTarget, `${LINKED.claudeLinked.session}.jsonl`),
    );
    expect(cc.sources.find((x: any) => x.path === fx.claudeDirectFile).target).toBeNull();
    const codex = harnessOf(s, 'codex');
    expect(codex.files).toBe(1);
    expect(codex.sources[0].target.startsWith(fx.codexTarget + '/')).toBe(true);
    const pi = harnessOf(s, 'pi');
    expect(pi.files).toBe(1);
    expect(pi.sources[0].path).toContain(join('.pi', 'agent', 'sessions', '--home-u-synced--'));
    expect(pi.sources[0].target.startsWith(fx.piTarget + '/')).toBe(true);
    const text = runCli(['sources'], env).stdout;
    expect(text).toContain(`${linked} -> ${join(fx.claudeTarget, `${LINKED.claudeLinked.session}.jsonl`)}: 2 events`);
  });

  it('gives the same sources, targets and totals on the next run', () => {
    const first = sources(env);
    const again = sources(env);
    expect(again.harnesses.map((h: any) => h.sources.map((x: any) => [x.path, x.target]))).toEqual(
      first.harnesses.map((h: any) => h.sources.map((x: any) => [x.path, x.target])),
    );
    const j = reportJson([...RANGE, '--by', 'harness'], env);
    expect(j.totals.requests).toBe(5);
  });
});

describe("pi's own session folder (settings.json sessionDir) and extension sessions", () => {
  let fx: ReturnType<typeof buildPiDirsHome>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildPiDirsHome(tempDir('txu-pi-dirs-'));
    env = cleanEnv(fx.home);
  });

  it('counts the settings folders, the nested subagent session and the fork, never the debug copies', () => {
    const j = reportJson([...RANGE, '--harness', 'pi', '--by', 'session'], env);
    const P = PI_DIRS;
    // A (11/1, $0.125) + B (22/2, $0.25) + C (33/3, $0.50) + D (44/4, $1) + F (55/5, $2);
    // the fork's copy of C and both debug copies (D; D and F again) add nothing.
    expect(tokens(j.totals)).toEqual({
      requests: 5,
      input_tokens: 165,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 15,
    });
    expect(j.totals.recorded_cost_usd).toBe(3.875);
    const row = (id: string) => j.rows.find((r: any) => r.session === id);
    expect(tokens(row(fx.flat.sessionId))).toMatchObject({ requests: 1, input_tokens: P.A.input });
    expect(tokens(row(fx.projectSession.sessionId))).toMatchObject({ requests: 1, input_tokens: P.B.input });
    expect(tokens(row(fx.parent.sessionId))).toMatchObject({ requests: 1, input_tokens: P.C.input });
    expect(tokens(row(P.subSession))).toMatchObject({ requests: 1, input_tokens: P.D.input });
    expect(tokens(row(fx.fork.sessionId))).toMatchObject({ requests: 1, input_tokens: P.F.input });
    // The subagent's user message is its parent agent's task, not a person's prompt.
    expect(row(P.subSession).prompts).toBe(0);
    expect(row(fx.parent.sessionId).prompts).toBe(1);
    const p = reportJson([...RANGE, '--harness', 'pi', '--by', 'project', '--sort', 'name'], env);
    expect(p.rows.map((r: any) => [r.project, r.requests])).toEqual(
      [
        [P.alpha, 3],
        [P.flatCwd, 1],
        [fx.project, 1],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
  });

  it('lists the settings folders as roots, and names every usage line it did not count', () => {
    const s = harnessOf(sources(env), 'pi');
    const roots = s.roots.map((r: any) => [r.path, r.origin, r.exists]);
    expect(roots).toContainEqual([
      join(fx.home, 'pi-sessions'),
      `sessionDir in ${join(fx.home, '.pi', 'agent', 'settings.json')}`,
      true,
    ]);
    expect(roots).toContainEqual([
      join(fx.project, '.pi', 'sessions'),
      `sessionDir in ${join(fx.project, '.pi', 'settings.json')}`,
      true,
    ]);
    for (const d of fx.debugCopies) {
      const src = s.sources.find((x: any) => x.path === d.path);
      expect(src.events).toBe(0);
      expect(src.skipped).toEqual([{ reason: SKIP_DEBUG_COPY, count: d.usageLines, first: `${d.path}:2` }]);
      expect(src.warnings).toEqual([]);
    }
    const parent = s.sources.find((x: any) => x.path === fx.parent.path);
    expect(parent.skipped.map((k: any) => [k.reason, k.count])).toEqual([[SKIP_TOOL_DATA, 1]]);
    expect(s.warnings).toEqual([]);
  });

  it('warns, naming the file, when a settings file is not JSON, and still reads the rest', () => {
    const base = tempDir('txu-pi-dirs-bad-');
    const bad = buildPiDirsHome(base);
    const settings = join(bad.project, '.pi', 'settings.json');
    writeFileSync(settings, '{"sessionDir": ".pi/sessions",');
    const r = runCli(['report', ...RANGE, '--harness', 'pi', '--format', 'json'], cleanEnv(bad.home));
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.warnings.some((w: string) => w.startsWith(`${settings}: not valid JSON`))).toBe(true);
    // B's folder is no longer known: A, C, D and F remain.
    expect(j.totals.requests).toBe(4);
    expect(readFileSync(settings, 'utf8')).toBe('{"sessionDir": ".pi/sessions",');
  });
});

describe("Claude Desktop's Cowork sessions", () => {
  let fx: ReturnType<typeof buildCoworkHome>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildCoworkHome(tempDir('txu-cowork-'));
    env = cleanEnv(fx.home);
  });

  it('reads them as Claude Code transcripts; a message id also in ~/.claude/projects counts once; audit.jsonl never', () => {
    const j = reportJson([...RANGE, '--harness', 'claude-code', '--by', 'session'], env);
    // M1 (7 in, 70 out) in both places, once; M2 (8 in, 80 out). The audit's 5000/10000 never.
    expect(j.rows).toHaveLength(1);
    expect(j.rows[0].session).toBe(COWORK.session);
    expect(tokens(j.totals)).toEqual({
      requests: 2,
      input_tokens: 15,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 150,
    });
    const cc = harnessOf(sources(env), 'claude-code');
    expect(cc.roots).toContainEqual({ path: fx.root, origin: 'Claude Desktop (Cowork)', exists: true });
    expect(cc.sources.map((x: any) => x.path).sort()).toEqual([fx.coworkFile, fx.cliFile].sort());
    expect(cc.billed_events).toBe(2);
  });

  it('is not searched when --root claude-code names the roots', () => {
    // Its own store: a store keeps every source it has read, whichever root found it.
    const db = join(tempDir('txu-cowork-db-'), 'usage.duckdb');
    const j = reportJson(
      [...RANGE, '--db', db, '--harness', 'claude-code', '--root', `claude-code=${join(fx.home, '.claude')}`],
      env,
    );
    expect(tokens(j.totals)).toEqual({
      requests: 1,
      input_tokens: COWORK.M1.input,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: COWORK.M1.output,
    });
  });
});

describe('usage objects that are not counted are named in sources', () => {
  it('names each Claude Code record with a usage object that is not a billed response', () => {
    const fx = buildSilentHome(tempDir('txu-silent-'));
    const env = cleanEnv(fx.home);
    const j = reportJson([...RANGE, '--harness', 'claude-code'], env);
    expect(tokens(j.totals)).toEqual({
      requests: 1,
      input_tokens: SILENT.R.input,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: SILENT.R.output,
    });
    const src = harnessOf(sources(env), 'claude-code').sources[0];
    const lineOf = (n: number) => `${fx.file}:${n}`;
    expect(src.skipped).toEqual(
      expect.arrayContaining([
        {
          reason: 'usage on a "system" record, not an assistant response (only assistant responses are billed)',
          count: 1,
          first: lineOf(2),
        },
        { reason: SKIP_PROGRESS_COPY, count: 1, first: lineOf(3) },
        { reason: SKIP_USER_RECORD_USAGE, count: 1, first: lineOf(4) },
        { reason: SKIP_TASK_SUMMARY, count: 1, first: lineOf(5) },
      ]),
    );
    expect(src.skipped).toHaveLength(4);
  });
});
