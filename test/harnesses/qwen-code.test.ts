// Qwen Code end to end: the real compiled CLI over generated `.qwen` homes
// holding every trap of src/harnesses/qwen-code/README.md must report exactly
// what the fixture builders billed (each call once, from whichever of its
// two records carries it), and re-reading after an append must change
// nothing already counted.
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, Ledger, reportRows, tokenFields } from '../../fixtures/ledger.js';
import {
  buildHandSession,
  buildQwenHome,
  CODER,
  FLASH,
  GEMINI,
  PROJECTS,
  type QwenHome,
} from '../../fixtures/qwen-code/scenarios.js';
import { QwenSession, randomUsage, rng } from '../../fixtures/qwen-code/session.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-07-01', '--until', '2026-09-30'];
const H = ['--harness', 'qwen-code'];

describe('qwen-code end to end (~/.qwen)', () => {
  let fx: QwenHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-qwen-');
    fx = buildQwenHome(home);
    buildHandSession(fx.qwenDir, fx.ledger);
    env = cleanEnv(home);
  });

  it('counts every call once, by model and day, whichever of its records carries it', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'model,day'], env);
    expect(reportRows(j, ['model', 'day'])).toEqual(fx.ledger.rows(['model', 'day']).sort(byKeys(['model', 'day'])));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // Main 5 (one a side query with no assistant record), old 2, fork 1, fork of fork 1, legacy 2, hand 3.
    expect(j.totals.requests).toBe(14);
  });

  it('credits /branch copies to the original session: a branch has only its own calls', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const req = (id: string) => j.rows.find((r: any) => r.session === id)?.requests;
    expect([
      req(fx.main.sessionId),
      req(fx.old.sessionId),
      req(fx.fork.sessionId),
      req(fx.forkOfFork.sessionId),
    ]).toEqual([5, 2, 1, 1]);
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(reportRows(p, ['project'])).toEqual(fx.ledger.rows(['project']));
    // The legacy conversation names no folder (only a hash of it): its project is unknown.
    expect(p.rows.map((r: any) => r.project).sort()).toEqual(
      [PROJECTS.alpha, PROJECTS.beta, '/home/dev/qw-hand', 'unknown'].sort(),
    );
  });

  it('adds a hand-figured session up as worked out here', () => {
    // Call 1 (OpenAI-style: total 1120 = 1000 + 120, reasoning inside the 120): uncached 1000-700 = 300,
    //   cache read 700, output 120 (reasoning 20). Its api_response and assistant record: once.
    // Side query (title; api_response only): uncached 400, output 10.
    // Call 3 (Gemini-style: total 3260 = 3000 + 200 + 60): uncached 500, cache read 2500, output 260 (reasoning 60);
    //   its assistant record came before its api_response: once.
    const j = reportJson([...RANGE, ...H, '--project', 'qw-hand', '--by', 'model', '--sort', 'name'], env);
    expect(j.totals).toMatchObject({
      requests: 3,
      input_tokens: 1200,
      cache_read_tokens: 3200,
      cache_write_tokens: 0,
      output_tokens: 390,
      reasoning_tokens: 80,
      total_tokens: 4790,
    });
    expect(j.rows.map((r: any) => [r.model, r.requests])).toEqual([
      [GEMINI, 1],
      [FLASH, 1],
      [CODER, 1],
    ]);
    // Gemini 2.5 Flash at Google's prices; the Qwen models at OpenRouter's qwen/ listing, named as a near match.
    expect(j.rows.every((r: any) => r.cost_usd > 0)).toBe(true);
    expect(
      j.warnings.some(
        (w: string) => w.includes(`"${CODER}"`) && w.includes(`qwen/${CODER}`) && w.includes('openrouter'),
      ),
    ).toBe(true);
  });

  it('counts prompts typed by a person, turns and tool calls once, and keeps the title a person set', () => {
    const c = storedCounts(env, 'qwen-code');
    // Main: 2 prompts (injected context, a notification and a slash command are not prompts);
    // tool calls 2 + 1; the manual title wins over the generated one.
    expect(c[fx.main.sessionId]).toMatchObject({ prompts: 2, turns: 2, tool_calls: 3, subagent_tasks: 0 });
    expect(c[fx.main.sessionId]!.title).toMatch(/^Parser work /);
    // The branch's copies of those prompts and tool calls stay with the main session.
    expect(c[fx.fork.sessionId]).toMatchObject({ prompts: 1, turns: 1, tool_calls: 1 });
    expect(c[fx.forkOfFork.sessionId]).toMatchObject({ prompts: 1, turns: 1, tool_calls: 0 });
    expect(c[fx.old.sessionId]).toMatchObject({ prompts: 1, turns: 1 });
  });

  it('lists the root and every session file', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'qwen-code');
    expect(h.roots.map((x: any) => x.path)).toEqual([fx.qwenDir]);
    expect(h.files).toBe(6); // main, old, fork, fork of fork, hand, legacy
  });
});

describe('qwen-code incremental reads', () => {
  it('an append is read from where the last read stopped (a call split across the two reads included)', () => {
    const home = tempDir('txu-qwen-append-');
    const ledger = new Ledger();
    const qwenDir = join(home, '.qwen');
    const s = new QwenSession({ qwenDir, cwd: '/home/dev/qw-inc', start: Date.UTC(2026, 7, 20, 9), ledger, seed: 80 });
    const r = rng(80);
    s.user('first');
    s.call({ model: CODER, usage: randomUsage(r) });
    s.flush();
    const env = cleanEnv(home);
    expect(tokenFields(reportJson([...RANGE, ...H], env).totals)).toEqual(tokenFields(ledger.totals()));
    // A call whose api_response is read in one run and whose assistant record comes in the next:
    // the pairing state carried across the runs keeps it to one.
    const u = randomUsage(r);
    s.call({ model: CODER, usage: u, toolCalls: 1 });
    const lines = s.records.length;
    s.flush();
    const text = readFileSync(s.path, 'utf8').split('\n');
    writeFileSync(s.path, text.slice(0, lines - 1).join('\n') + '\n');
    expect(runCli(['ingest'], env).status).toBe(0);
    appendFileSync(s.path, text[lines - 1] + '\n');
    s.user('second');
    s.call({ model: FLASH, usage: randomUsage(r), how: 'telemetry-only' });
    s.flush();
    const ing = runCli(['ingest'], env);
    expect(ing.stdout + ing.stderr).toMatch(/\b1 appended/);
    const j = reportJson([...RANGE, ...H, '--by', 'model'], env);
    expect(reportRows(j, ['model'])).toEqual(ledger.rows(['model']));
    const whole = reportJson(
      [...RANGE, ...H, '--by', 'model'],
      cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-whole') }),
    );
    expect(reportRows(whole, ['model'])).toEqual(reportRows(j, ['model']));
    expect(storedCounts(env, 'qwen-code')[s.sessionId]).toMatchObject({ prompts: 2, tool_calls: 1 });
  });

  it("a /branch made after the original was read adds only the branch's own calls", () => {
    const home = tempDir('txu-qwen-branch-');
    const fx = buildQwenHome(home);
    const env = cleanEnv(home);
    const before = reportJson([...RANGE, ...H], env).totals.requests;
    const b = fx.main.branch({ seed: 81, start: Date.UTC(2026, 7, 25) });
    b.call({ model: CODER, usage: randomUsage(rng(81)) });
    b.flush();
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(j.totals.requests).toBe(before + 1);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
  });
});

describe('qwen-code archive and sidecars', () => {
  it('a session moved to chats/archive/ stays counted once; a sidecar .ledger.jsonl is not a session', () => {
    const home = tempDir('txu-qwen-archive-');
    const fx = buildQwenHome(home);
    const env = cleanEnv(home);
    expect(tokenFields(reportJson([...RANGE, ...H], env).totals)).toEqual(tokenFields(fx.ledger.totals()));
    // Qwen Code's archive: the file moves into chats/archive/ (sessionService.ts getArchiveChatsDir).
    const archive = join(dirname(fx.old.path), 'archive');
    mkdirSync(archive);
    renameSync(fx.old.path, join(archive, basename(fx.old.path)));
    // A sidecar beside a session, holding a record that would count if it were read as one.
    writeFileSync(
      fx.main.path.replace(/\.jsonl$/, '.ledger.jsonl'),
      readFileSync(fx.main.path, 'utf8').replace(/"uuid":"/g, '"uuid":"x'),
    );
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const files = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (x: any) => x.harness === 'qwen-code',
    );
    expect(files.files).toBe(5); // main, old (archived), fork, fork of fork, legacy
  });
});

describe('qwen-code chat files not named by a session id', () => {
  it('reads chats/*.jsonl whatever its name; the session id comes from the records; a .ledger.jsonl sidecar is still no session', () => {
    const home = tempDir('txu-qwen-named-');
    const ledger = new Ledger();
    const s = new QwenSession({
      qwenDir: join(home, '.qwen'),
      cwd: '/home/dev/named',
      start: Date.UTC(2026, 7, 10, 9, 0, 0),
      ledger,
      seed: 41,
      fileName: 'refactor-notes.jsonl',
    });
    s.user('Rename the module');
    // By hand: 1500 prompt (1200 cached), 90 out; 800 prompt (0 cached), 40 out.
    s.call({
      model: 'qwen3-coder-plus',
      usage: { prompt: 1500, candidates: 90, cached: 1200, thoughts: 0, reasoningInside: true },
    });
    s.call({
      model: 'qwen3-coder-plus',
      usage: { prompt: 800, candidates: 40, cached: 0, thoughts: 0, reasoningInside: true },
    });
    s.flush();
    writeFileSync(
      join(dirname(s.path), 'refactor-notes.ledger.jsonl'),
      readFileSync(s.path, 'utf8').replace(/"uuid":"/g, '"uuid":"x'),
    );
    const j = reportJson([...RANGE, ...H, '--by', 'session'], cleanEnv(home));
    expect(
      j.rows.map((r: any) => [r.session, r.requests, r.input_tokens, r.cache_read_tokens, r.output_tokens]),
    ).toEqual([[s.sessionId, 2, 300 + 800, 1200, 130]]);
  });
});

describe('qwen-code roots and bad input', () => {
  it('reads QWEN_RUNTIME_DIR and QWEN_HOME (or ~/.qwen) both; --root takes a .qwen or projects folder', () => {
    const base = tempDir('txu-qwen-roots-');
    const home = join(base, 'home');
    const ledger = new Ledger();
    const r = rng(82);
    const mk = (dir: string, cwd: string, seed: number) => {
      const s = new QwenSession({ qwenDir: dir, cwd, start: Date.UTC(2026, 7, 10 + seed - 82), ledger, seed });
      s.user('x');
      s.call({ model: CODER, usage: randomUsage(r) });
      s.flush();
    };
    const runtime = join(base, 'runtime');
    const qwenHome = join(base, 'qwen-home');
    mk(runtime, PROJECTS.runtime, 82);
    mk(qwenHome, PROJECTS.alpha, 83);
    const both = reportJson(
      [...RANGE, ...H, '--by', 'project'],
      cleanEnv(home, { QWEN_RUNTIME_DIR: runtime, QWEN_HOME: qwenHome, XDG_CACHE_HOME: join(base, 'c1') }),
    );
    expect(reportRows(both, ['project'])).toEqual(ledger.rows(['project']));
    for (const [i, root] of [runtime, join(runtime, 'projects')].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--by', 'project', '--root', `qwen-code=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 3}`) }),
      );
      expect(j.rows.map((x: any) => x.project)).toEqual([PROJECTS.runtime]);
    }
  });

  it('names the file and line of a bad line, never its text', () => {
    const home = tempDir('txu-qwen-bad-');
    const fx = buildQwenHome(home);
    appendFileSync(fx.main.path, '{"type":"assistant","usageMetadata":{ secret prompt text\n');
    appendFileSync(
      fx.old.path,
      `{"uuid":"bad-1","sessionId":"${fx.old.sessionId}","timestamp":"2026-08-04T10:00:00.000Z","type":"assistant","cwd":"${PROJECTS.beta}","model":"${CODER}","usageMetadata":{"promptTokenCount":"lots","candidatesTokenCount":7}}\n`,
    );
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(j.totals.requests).toBe(fx.ledger.totals().requests + 1);
    expect(j.totals.output_tokens).toBe(fx.ledger.totals().output_tokens + 7);
    const w: string[] = j.warnings;
    expect(w.some((x) => x.startsWith(`${fx.main.path}:`) && /1 unparsable line/.test(x))).toBe(true);
    expect(
      w.some(
        (x) =>
          x.startsWith(`${fx.old.path}:`) &&
          /invalid usage field\(s\) counted as 0: promptTokenCount not a number/.test(x),
      ),
    ).toBe(true);
    expect(w.join('\n')).not.toContain('secret');
  });
});
