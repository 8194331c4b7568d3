// Gemini CLI end to end: the real compiled CLI over generated `.gemini` homes
// holding every trap of src/harnesses/gemini-cli/README.md must report
// exactly what the fixture builders billed, and re-reading after an append
// or a rewrite of a whole file must change nothing already counted.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, Ledger, reportRows, tokenFields } from '../../fixtures/ledger.js';
import {
  buildGeminiHome,
  buildHandSession,
  FLASH,
  PRO,
  PROJECTS,
  type GeminiHome,
} from '../../fixtures/gemini-cli/scenarios.js';
import { GeminiSession, randomTokens, rng } from '../../fixtures/gemini-cli/session.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-06-01', '--until', '2026-07-31'];
const H = ['--harness', 'gemini-cli'];

describe('gemini-cli $set checkpoints (README "$set checkpoints")', () => {
  it('counts a response that exists only inside a $set checkpoint, once, and one written before it once', () => {
    const home = tempDir('txu-gemini-set-');
    const env = cleanEnv(home);
    const s = new GeminiSession({
      tmpDir: join(home, '.gemini', 'tmp'),
      project: '/home/dev/snapshot',
      slug: 'snapshot',
      start: Date.UTC(2026, 6, 2, 12, 0, 0),
      ledger: new Ledger(),
      seed: 31,
    });
    s.user('one');
    s.response({ model: PRO, tokens: { input: 1000, output: 100, cached: 600, thoughts: 50, tool: 0, total: 1150 } });
    // splitrail's test_gemini_cli_jsonl_set_messages_snapshot figures, its message only in the checkpoint.
    s.checkpointOnly({
      model: PRO,
      tokens: { input: 17256, output: 26, cached: 0, thoughts: 133, tool: 0, total: 17415 },
    });
    s.flush();
    // Own line: 400 uncached + 600 cache read, 150 out (50 reasoning). Checkpoint only: 17256 uncached, 26+133 = 159 out (133 reasoning).
    const j = reportJson([...RANGE, ...H, '--project', '/home/dev/snapshot'], env);
    expect(j.totals).toMatchObject({
      requests: 2,
      input_tokens: 17656,
      cache_read_tokens: 600,
      output_tokens: 309,
      reasoning_tokens: 183,
    });
    // Gemini 2.5 Pro: 17656×1.25 + 600×0.125 + 309×10 = 25235 millionths of a dollar.
    expect(j.totals.cost_usd).toBeCloseTo(0.025235, 9);
    const ex = JSON.parse(runCli(['explain', s.path, '--format', 'json'], env).stdout);
    const rules = ex.sources[0].records.filter((r: any) => r.record === 'usage').map((r: any) => [r.rule, r.counted]);
    // The first response, then the checkpoint's copy of it (a repeat) and the response only the checkpoint holds.
    expect(rules).toEqual([
      ['message tokens', true],
      ['$set checkpoints', true],
    ]);
  });
});

describe('gemini-cli end to end (~/.gemini)', () => {
  let fx: GeminiHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-gemini-');
    fx = buildGeminiHome(home);
    buildHandSession(fx.tmpDir, fx.ledger);
    env = cleanEnv(home);
  });

  it('counts every billed response once, by model and day, with every trap in the files', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'model,day'], env);
    expect(reportRows(j, ['model', 'day'])).toEqual(fx.ledger.rows(['model', 'day']).sort(byKeys(['model', 'day'])));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // 4 in the main session (one hidden by a rewind, one naming no model), 2 of its subagent,
    // 3 of the migrated legacy session, 1 of the hash-dir session, 3 of the rewritten one, 2 by hand.
    expect(j.totals.requests).toBe(15);
    expect(j.warnings).toEqual([]);
  });

  it('credits each session and project once: copies (migrated .json, hash dir, unreadable backup) add nothing', () => {
    const s = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(s, ['session'])).toEqual(fx.ledger.rows(['session']));
    const req = (id: string) => s.rows.find((r: any) => r.session === id)?.requests;
    expect([
      req(fx.main.sessionId),
      req(fx.sub.sessionId),
      req(fx.legacy.sessionId),
      req(fx.hashed.sessionId),
      req(fx.rewritten.sessionId),
    ]).toEqual([4, 2, 3, 1, 3]);
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(reportRows(p, ['project'])).toEqual(fx.ledger.rows(['project']));
    // The hash-named dir's project comes from projects.json, the others' from .project_root.
    expect(p.rows.map((r: any) => r.project).sort()).toEqual([...Object.values(PROJECTS), '/home/dev/hand'].sort());
  });

  it('adds a hand-figured session up as worked out here', () => {
    // Response 1: input 1000 (600 cached), output 100, thoughts 50, tool 0.
    //   uncached 1000-600 = 400; cache read 600; output 100+50 = 150 (reasoning 50).
    // Response 2: input 2000 (1500 cached), output 200, thoughts 0, tool-use prompt 30.
    //   uncached 2000-1500+30 = 530; cache read 1500; output 200.
    const j = reportJson([...RANGE, ...H, '--project', '/home/dev/hand', '--by', 'model'], env);
    expect(j.totals).toMatchObject({
      requests: 2,
      input_tokens: 930,
      cache_read_tokens: 2100,
      cache_write_tokens: 0,
      output_tokens: 350,
      reasoning_tokens: 50,
      total_tokens: 3380,
    });
    // Priced as Google's Gemini 2.5 Pro ($1.25 input, $0.125 cache read, $10 output per million
    // tokens; thoughts at the output rate): 930×1.25 + 2100×0.125 + 350×10 = 4925 millionths of a dollar.
    expect(j.rows).toHaveLength(1);
    expect(j.rows[0]).toMatchObject({ model: PRO, cost_usd: 0.004925, cost_source: 'computed' });
  });

  it('counts prompts, turns, tool calls and subagent tasks once, and keeps the title and the subagent lineage', () => {
    const c = storedCounts(env, 'gemini-cli');
    // Main: 3 typed prompts (injected context and tool answers are user messages, not prompts);
    // tool calls read_file, grep (a message written three times) and write_file.
    expect(c[fx.main.sessionId]).toEqual({
      prompts: 3,
      turns: 3,
      tool_calls: 3,
      subagent_tasks: 0,
      title: 'Parser refactor',
      parent: null,
    });
    expect(c[fx.sub.sessionId]).toEqual({
      prompts: 0,
      turns: 0,
      tool_calls: 1,
      subagent_tasks: 1,
      title: null,
      parent: fx.main.sessionId,
    });
    // The legacy session and its migrated copy: 2 prompts in all (1 copied, 1 new).
    expect(c[fx.legacy.sessionId]).toMatchObject({ prompts: 2, turns: 2 });
  });

  it('lists the root and every session file', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'gemini-cli');
    expect(h.roots.map((x: any) => x.path)).toEqual([fx.tmpDir]);
    // main, subagent, legacy .json + its .jsonl, hash dir + its copy, rewritten + its backup, hand.
    expect(h.files).toBe(9);
  });
});

describe('gemini-cli incremental reads', () => {
  it('an append is read from where the last read stopped, and changes nothing already counted', () => {
    const home = tempDir('txu-gemini-append-');
    const fx = buildGeminiHome(home);
    const env = cleanEnv(home);
    expect(reportJson([...RANGE, ...H], env).totals.requests).toBe(13);
    const r = rng(99);
    const m = fx.main;
    // The same message again (its tool calls merged in), a checkpoint, a new prompt and response.
    m.user('one more');
    m.response({ model: FLASH, tokens: randomTokens(r), tokensLate: true, toolCalls: ['ls'] });
    m.checkpoint();
    m.flush();
    const ing = runCli(['ingest'], env);
    expect(ing.status).toBe(0);
    expect(ing.stdout + ing.stderr).toMatch(/\b1 appended/);
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    // A store that read everything at once agrees.
    const whole = reportJson(
      [...RANGE, ...H, '--by', 'session,model'],
      cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-whole') }),
    );
    expect(reportRows(whole, ['session', 'model'])).toEqual(reportRows(j, ['session', 'model']));
    expect(storedCounts(env, 'gemini-cli')[m.sessionId]).toMatchObject({ prompts: 4, tool_calls: 4 });
  });

  it('a session written again whole (a new file in its place) keeps what its old version counted', () => {
    const home = tempDir('txu-gemini-rewrite-');
    const fx = buildGeminiHome(home);
    const env = cleanEnv(home);
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    // The main session had a response hidden by a rewind; Gemini CLI fails to load it and
    // writes it again from memory (without that response), keeping the old file aside.
    fx.main.rewriteAfterUnreadable();
    fx.main.user('after the rewrite');
    fx.main.response({ model: PRO, tokens: randomTokens(rng(7)) });
    fx.main.flush();
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const main = (x: any) => x.rows.find((r: any) => r.session === fx.main.sessionId).requests;
    expect(main(j)).toBe(main(before) + 1);
  });

  it('a legacy .json rewritten whole is read again whole: its responses stay counted once', () => {
    const home = tempDir('txu-gemini-json-');
    const tmpDir = join(home, '.gemini', 'tmp');
    const ledger = new Ledger();
    const s = new GeminiSession({
      tmpDir,
      project: '/home/dev/json',
      slug: 'json',
      start: Date.UTC(2026, 5, 20, 9),
      ledger,
      seed: 70,
      legacy: true,
    });
    const r = rng(70);
    s.user('a');
    s.response({ model: PRO, tokens: randomTokens(r) });
    s.flush();
    const env = cleanEnv(home);
    expect(tokenFields(reportJson([...RANGE, ...H], env).totals)).toEqual(tokenFields(ledger.totals()));
    s.user('b');
    s.response({ model: PRO, tokens: randomTokens(r) });
    s.flush();
    const j = reportJson([...RANGE, ...H], env);
    expect(tokenFields(j.totals)).toEqual(tokenFields(ledger.totals()));
    expect(j.totals.requests).toBe(2);
  });
});

describe('gemini-cli roots and bad input', () => {
  it('GEMINI_CLI_HOME replaces the home folder; --root takes a .gemini or tmp folder', () => {
    const base = tempDir('txu-gemini-roots-');
    const other = join(base, 'other-home');
    const fx = buildGeminiHome(other);
    const home = join(base, 'home');
    buildGeminiHome(home, Date.UTC(2026, 6, 20)); // not searched when GEMINI_CLI_HOME is set
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, { GEMINI_CLI_HOME: other, XDG_CACHE_HOME: join(base, 'c1') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(tokenFields(fx.ledger.totals()));
    for (const [i, root] of [fx.geminiDir, fx.tmpDir].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--root', `gemini-cli=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 2}`) }),
      );
      expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    }
  });

  it('reads a header whatever key leads it (builds that wrote `kind` first)', () => {
    const home = tempDir('txu-gemini-header-');
    const chats = join(home, '.gemini', 'tmp', 'hdr', 'chats');
    mkdirSync(chats, { recursive: true });
    const id = '0b5e55ed-0000-4000-8000-00000000b0b0';
    writeFileSync(
      join(chats, 'session-2026-06-20T09-00-0b5e55ed.jsonl'),
      [
        {
          kind: 'main',
          sessionId: id,
          projectHash: 'x',
          startTime: '2026-06-20T09:00:00.000Z',
          lastUpdated: '2026-06-20T09:00:00.000Z',
        },
        {
          id: 'm1',
          timestamp: '2026-06-20T09:00:05.000Z',
          type: 'gemini',
          content: 'ok',
          model: PRO,
          tokens: { input: 10, output: 2, cached: 0, thoughts: 0, tool: 0, total: 12 },
        },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    const j = reportJson([...RANGE, ...H, '--by', 'session'], cleanEnv(home));
    expect(j.rows.map((r: any) => [r.session, r.requests])).toEqual([[id, 1]]);
    expect(j.warnings).toEqual([]);
  });

  it('names the file and line of a bad line or a broken legacy document, never their text', () => {
    const home = tempDir('txu-gemini-bad-');
    const fx = buildGeminiHome(home);
    appendFileSync(fx.main.path, '{"id":"x","type":"gemini","tokens":{ secret prompt text\n');
    appendFileSync(
      fx.sub.path,
      `{"id":"y","timestamp":"2026-06-10T10:00:00.000Z","type":"gemini","model":"${PRO}","tokens":{"input":"many","output":5,"cached":0,"total":5}}\n`,
    );
    const broken = join(fx.tmpDir, 'gem-beta', 'chats', 'session-broken.json');
    writeFileSync(broken, '{"sessionId":"b","messages":[{"id":"secret prompt text');
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    // The bad-typed field counts as 0: one more request, its 5 output tokens.
    expect(j.totals.requests).toBe(fx.ledger.totals().requests + 1);
    expect(j.totals.output_tokens).toBe(fx.ledger.totals().output_tokens + 5);
    const w: string[] = j.warnings;
    expect(w.some((x) => x.startsWith(`${fx.main.path}:`) && /1 unparsable line/.test(x))).toBe(true);
    expect(
      w.some(
        (x) => x.startsWith(`${fx.sub.path}:`) && /invalid token field\(s\) counted as 0: input not a number/.test(x),
      ),
    ).toBe(true);
    expect(w.some((x) => x.startsWith(`${broken}:1: not a JSON document (cut off)`))).toBe(true);
    expect(w.join('\n')).not.toContain('secret');
  });
});
