// Amp end to end: the real CLI over a generated `~/.local/share/amp` whose
// legacy thread files hold every trap of src/harnesses/amp/README.md reports
// exactly what the builder billed; stubs are named in `sources` as what
// current Amp leaves on disk; a rewritten thread changes only what it added.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildAmpHome, GPT, type AmpHome } from '../../fixtures/amp/threads.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-02-01', '--until', '2026-02-28'];
const H = ['--harness', 'amp'];

describe('amp end to end (~/.local/share/amp/threads)', () => {
  let fx: AmpHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-amp-');
    fx = buildAmpHome(home);
    env = cleanEnv(home);
  });

  it('counts each inference once: ledger events with their message cache split, message usage no event accounts for', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    expect(j.warnings).toEqual([]);
    // Prompts: one in each of the ledger and messages threads (a tool result is not one); a stub is not read.
    const c = storedCounts(env, 'amp');
    expect([c[fx.ids.ledger]?.prompts, c[fx.ids.messages]?.prompts, c[fx.ids.empty]?.prompts]).toEqual([
      1,
      1,
      undefined,
    ]);
    // By hand: ledger thread 2 (zero event skipped), messages thread 3, partial ledger 1 event + 1 message = 7.
    // fresh 12+5 + 10+18621+7 + 40+3 = 18698; output 34+600 + 178+90+8 + 50+4 = 964;
    // cache read 78+9000 + 11372+100 + 70+500 = 21120; cache write 56 + 986 + 60 = 1102 (the gpt thread's 18621 is input).
    expect(tokenFields(j.totals)).toEqual({
      requests: 7,
      input_tokens: 18698,
      cache_read_tokens: 21120,
      cache_write_tokens: 1102,
      output_tokens: 964,
      reasoning_tokens: 0,
      total_tokens: 18698 + 21120 + 1102 + 964,
    });
    const gpt = reportJson([...RANGE, ...H, '--by', 'model'], env).rows.find((r: any) => r.model === GPT);
    expect(tokenFields(gpt)).toMatchObject({ input_tokens: 18621, cache_write_tokens: 0 });
  });

  it('sources: the stubs named as what current Amp leaves, the debug logs found and not read', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'amp');
    expect(h.files).toBe(5);
    const reasons = h.skipped.map((s: any) => `${s.count} ${s.reason}`).sort();
    expect(reasons).toEqual([
      '1 ledger event with no tokens',
      '2 thread without usage (a stub: current Amp keeps threads on its servers, not on disk)',
    ]);
    expect(h.roots.map((x: any) => x.unread ?? null)).toEqual([null, expect.stringMatching(/debug logs/)]);
    expect(runCli(['sources'], env).stdout).toMatch(/keeps threads on its servers/);
  });

  it('explain marks a time taken from the thread, not the record', () => {
    const ex = JSON.parse(runCli(['explain', fx.ids.messages, '--format', 'json'], env).stdout);
    const rules = ex.sources
      .flatMap((s: any) => s.records.filter((x: any) => x.counted).map((x: any) => x.rule))
      .sort();
    expect(rules).toEqual([
      'assistant message usage (not in the ledger)',
      'assistant message usage (not in the ledger)',
      'assistant message usage (not in the ledger); time from the thread created',
    ]);
  });

  it('a thread rewritten whole with one more inference adds it and moves nothing else', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    fx.rewriteWithOneMore();
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
    expect(j.totals.requests).toBe(before.totals.requests + 1);
  });

  it('a thread that is not JSON is named by file and line; nothing else is lost', () => {
    const bad = join(fx.threadsDir, 'T-0a0a0000-0000-4000-8000-0000000000ff.json');
    writeFileSync(bad, '{\n  "id": "T-0a0a0000-0000-4000-8000-0000000000ff",\n  "messages": [');
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(j.warnings.some((w: string) => w.includes(bad) && /not a JSON document \(cut off\)/.test(w))).toBe(true);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
  });
});

describe('amp roots and read-only', () => {
  it('AMP_DATA_DIR and --root (the data folder or threads/) find the threads; no file changes', () => {
    const base = tempDir('txu-amp-roots-');
    const fx = buildAmpHome(join(base, 'h'));
    const files = [...fx.canaryFiles, join(fx.threadsDir, `${fx.ids.partial}.json`)];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')]);
    const elsewhere = join(base, 'empty-home');
    const total = tokenFields(fx.ledger.totals());
    expect(
      tokenFields(
        reportJson(
          [...RANGE, ...H],
          cleanEnv(elsewhere, { AMP_DATA_DIR: `${join(base, 'none')},${fx.data}`, XDG_CACHE_HOME: join(base, 'c0') }),
        ).totals,
      ),
    ).toEqual(total);
    for (const [i, root] of [fx.data, fx.threadsDir].entries()) {
      expect(
        tokenFields(
          reportJson(
            [...RANGE, ...H, '--root', `amp=${root}`],
            cleanEnv(elsewhere, { XDG_CACHE_HOME: join(base, `c${i + 1}`) }),
          ).totals,
        ),
        root,
      ).toEqual(total);
    }
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')])).toEqual(before);
  });
});
