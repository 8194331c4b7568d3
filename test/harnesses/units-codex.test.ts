// Codex units of work (issue 27) per thread, counted from the first bytes of
// rollout lines: a paginated thread (display items repeating tool calls and
// messages), a compressed legacy thread, a legacy fork copying it, and a
// sub-agent inheriting its parent's context. Expected counts are derived by
// hand from the fixture (comments), never from the extractor.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { id, rolloutName, sessionsPath, T0, zstdCompress } from '../../fixtures/codex/home.js';
import { Ledger } from '../../fixtures/codex/ledger.js';
import { randomUsage, rng, RolloutWriter } from '../../fixtures/codex/rollout.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const T1 = id(0x111);
const T2 = id(0x222);
const T3 = id(0x333);
const T4 = id(0x444);

function place(codexHome: string, w: RolloutWriter, zst = false): string {
  const path = sessionsPath(codexHome, w.o.start, rolloutName(w.o.start, w.o.threadId) + (zst ? '.zst' : ''));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, zst ? zstdCompress(w.text()) : w.text());
  return path;
}

describe('Codex units of work', () => {
  let env: NodeJS.ProcessEnv;
  let whole: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-units-codex-');
    const codexHome = join(home, '.codex');
    const ledger = new Ledger();
    const r = rng(5);
    const u = () => randomUsage(r);

    // T1, paginated: its first turn is ingested before the rest is appended (a resumed read).
    const t1 = new RolloutWriter({ threadId: T1, start: T0, paginated: true, label: 't1', project: '/proj/u', ledger });
    t1.sessionMeta().turn('gpt-5-codex', '/proj/u'); //               prompt 1 (item_completed UserMessage; its response_item copy is not one)
    t1.toolCall('function_call', 'call_1'); //                          tool 1 (+ output, + display item: no)
    t1.toolCall('custom_tool_call', 'call_2'); //                       tool 2
    t1.response(u()).endTurn(); //                                      turn 1
    const t1Path = place(codexHome, t1);
    env = cleanEnv(home);
    expect(runCli(['ingest'], env).status).toBe(0);
    expect(storedCounts(env, 'codex')[T1]).toMatchObject({ prompts: 1, turns: 1, tool_calls: 2 });
    t1.turn('gpt-5-codex', '/proj/u'); //                               prompt 2
    t1.toolCall('web_search_call', 'ws_1'); //                          tool 3
    t1.imageLine(2000); //                                              tool 4 (image_generation_call)
    t1.toolOutputMentioningUsage(); //                                  tool 5: a function_call named token_count (a marked line); its output: no
    t1.response(u()).abortTurn(); //                                    turn 2 (aborted)
    const inheritable = t1.lines.slice();
    writeFileSync(t1Path, t1.text());

    // T2, legacy and compressed: user_message events, a local shell call.
    const t2 = new RolloutWriter({
      threadId: T2,
      start: T0 + 3_600_000,
      paginated: false,
      label: 't2',
      project: '/proj/v',
      ledger,
      cacheWriteField: false,
    });
    t2.sessionMeta().turn('gpt-5', '/proj/v'); //                       prompt 1 (user_message)
    t2.toolCall('local_shell_call', 'call_3'); //                       tool 1
    t2.response(u()).endTurn(); //                                      turn 1
    place(codexHome, t2, true);

    // T3, a legacy fork of T2: T2's lines copied with their own (earlier) times add nothing.
    const t3 = new RolloutWriter({
      threadId: T3,
      start: t2.clock + 3_600_000,
      paginated: false,
      label: 't3',
      project: '/proj/v',
      ledger,
      cacheWriteField: false,
      startTotal: t2.total,
    });
    t3.sessionMeta({ forked_from_id: T2 });
    t3.copyLines(t2.lines); //                                          copies: nothing
    t3.turn('gpt-5', '/proj/v'); //                                     prompt 1
    t3.toolCall('function_call', 'call_4'); //                          tool 1
    t3.response(u()).endTurn(); //                                      turn 1
    place(codexHome, t3);

    // T4, a sub-agent of T1: the inherited parent context adds nothing; its own user message is a subagent task.
    const t4 = new RolloutWriter({
      threadId: T4,
      start: t1.clock + 60_000,
      paginated: true,
      label: 't4',
      project: '/proj/u',
      ledger,
    });
    t4.sessionMeta({
      source: {
        subagent: { thread_spawn: { parent_thread_id: T1, depth: 1, agent_nickname: 'scout', agent_role: 'explorer' } },
      },
      thread_source: 'subagent',
      parent_thread_id: T1,
      subagent_history_start_ordinal: inheritable.length, // all of T1's lines but its session_meta, after this one
    });
    t4.inheritLines(inheritable); //                                    inherited: nothing
    t4.turn('gpt-5-mini', '/proj/u/.worktrees/scout'); //               subagent task 1
    t4.toolCall('function_call', 'call_5'); //                          tool 1
    t4.response(u()).endTurn(); //                                      turn 1
    place(codexHome, t4);

    // Thread names: the last entry per id wins.
    const names = [
      { id: T1, thread_name: 'first name', updated_at: '2026-01-10T09:00:00Z' },
      { id: T2, thread_name: 'legacy work', updated_at: '2026-01-10T10:00:00Z' },
      { id: T1, thread_name: 'Fix the flaky test', updated_at: '2026-01-10T11:00:00Z' },
    ];
    writeFileSync(join(codexHome, 'session_index.jsonl'), names.map((n) => JSON.stringify(n) + '\n').join(''));
    whole = cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-whole') });
  });

  const EXPECTED = {
    [T1]: { prompts: 2, turns: 2, tool_calls: 5, subagent_tasks: 0, title: 'Fix the flaky test', parent: null },
    [T2]: { prompts: 1, turns: 1, tool_calls: 1, subagent_tasks: 0, title: 'legacy work', parent: null },
    [T3]: { prompts: 1, turns: 1, tool_calls: 1, subagent_tasks: 0, title: null, parent: null },
    [T4]: { prompts: 0, turns: 1, tool_calls: 1, subagent_tasks: 1, title: null, parent: T1 },
  };

  it('counts each thread as derived by hand, read in two parts or at once', () => {
    expect(storedCounts(env, 'codex')).toEqual(EXPECTED);
    expect(storedCounts(whole, 'codex')).toEqual(EXPECTED);
  });
});
