// Claude Code units of work (issue 27): prompts, turns, tool calls and
// subagent tasks per session, with every exclusion present in the fixture
// (split lines, a fork, a subagent, tool results, compaction, meta, command,
// interruption, system and peer lines). The expected counts below are
// derived by hand from the fixture, line by line, in the comments.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome, type ClaudeSession } from '../../fixtures/claude-code/build.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const A = 'aaaaaaaa-1111-4000-8000-000000000001';
const B = 'bbbbbbbb-2222-4000-8000-000000000002';
const C = 'cccccccc-3333-4000-8000-000000000003';
const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];

/** Session A up to its second prompt's response (written before a first ingest, to test resumed reads). */
function firstPart(s: ClaudeSession): void {
  s.user('2026-10-20T10:00:00.000Z'); //                                         prompt 1
  s.harnessUser('2026-10-20T10:00:01.000Z', 'meta'); //                          isMeta: no
  // One response split into 4 lines (thinking, text, 2 tool_use): 2 tool calls, stops for tools.
  s.response({
    ts: '2026-10-20T10:00:05.000Z',
    splits: 4,
    toolIds: ['toolu_a1', 'toolu_a2'],
    stop: 'tool_use',
    usage: { input: 10, output: 50 },
  });
  s.harnessUser('2026-10-20T10:00:10.000Z', 'tool', 'toolu_a1'); //              tool result: no
  s.harnessUser('2026-10-20T10:00:11.000Z', 'tool', 'toolu_a2'); //              tool result: no
  s.response({ ts: '2026-10-20T10:00:20.000Z', splits: 2, usage: { input: 5, output: 60 } }); // end_turn: turn 1
  s.turnDuration('2026-10-20T10:00:21.000Z');
  s.harnessUser('2026-10-20T10:05:00.000Z', 'command'); //                       /model echo: no
  s.harnessUser('2026-10-20T10:05:01.000Z', 'stdout'); //                        its output: no
  s.imagePrompt('2026-10-20T10:06:00.000Z'); //                                  prompt 2 (array content)
}

function build() {
  const home = tempDir('txu-units-claude-');
  const claude = new ClaudeHome(join(home, '.claude'));
  const s = claude.session({ cwd: '/home/u/units', sessionId: A });
  firstPart(s);
  return { home, claude, s };
}

/** The rest of session A, its subagent, the fork B and session C. */
function secondPart(claude: ClaudeHome, s: ClaudeSession): void {
  s.response({
    ts: '2026-10-20T10:06:10.000Z',
    splits: 3,
    toolIds: ['toolu_a3'],
    stop: 'tool_use',
    usage: { input: 1, output: 2 },
  }); // 1 tool call
  s.harnessUser('2026-10-20T10:07:00.000Z', 'interrupted'); //                   interruption: no
  s.harnessUser('2026-10-20T10:30:00.000Z', 'compact'); //                       boundary + summary: no
  s.user('2026-10-20T10:31:00.000Z'); //                                         prompt 3
  s.harnessUser('2026-10-20T10:31:30.000Z', 'system'); //                        promptSource system: no
  s.harnessUser('2026-10-20T10:31:40.000Z', 'peer'); //                          another agent: no
  s.response({ ts: '2026-10-20T10:32:10.000Z', usage: { input: 3, output: 4 } }); // turn 2
  s.apiError('2026-10-20T10:32:20.000Z'); //                                     synthetic: nothing
  s.title('ai-title', 'Parser work');
  s.title('ai-title', 'Refactor the parser'); //                                 last ai-title wins
  s.title('ai-title', 'Refactor the parser');

  // Subagent of A: the parent's task prompt (a subagent task), a tool call, an end_turn that is not a turn of A.
  const sub = s.subagent('0123456789abcdef0');
  sub.user('2026-10-20T10:06:30.000Z', 'Find the tests of the parser'); //      subagent task 1
  sub.harnessUser('2026-10-20T10:06:31.000Z', 'meta'); //                        no
  sub.response({
    ts: '2026-10-20T10:06:40.000Z',
    splits: 3,
    toolIds: ['toolu_s1'],
    stop: 'tool_use',
    usage: { input: 1, output: 1 },
  }); // tool call of A
  sub.harnessUser('2026-10-20T10:06:45.000Z', 'tool', 'toolu_s1');
  sub.response({ ts: '2026-10-20T10:06:50.000Z', usage: { input: 1, output: 1 } }); // subagent's end_turn: not a turn

  // /branch of the whole of A into B: every copy (forkedFrom) loses to A; then B's own work.
  const b = s.forkAll(B);
  b.user('2026-10-21T09:00:00.000Z'); //                                         B prompt 1
  b.response({
    ts: '2026-10-21T09:00:10.000Z',
    splits: 3,
    toolIds: ['toolu_b1'],
    stop: 'tool_use',
    usage: { input: 2, output: 2 },
  }); // B tool 1
  b.response({ ts: '2026-10-21T09:00:20.000Z', usage: { input: 2, output: 2 } }); // B turn 1
  b.title('ai-title', 'Generated name');
  b.title('custom-title', 'Fork work'); //                                       a user-set title wins over ai-title
  b.title('ai-title', 'Generated again');

  // C: a queued prompt and a legacy summary title only.
  const c = claude.session({ cwd: '/home/u/other', sessionId: C });
  c.title('summary', 'Old style summary');
  c.user('2026-10-22T08:00:00.000Z'); //                                         C prompt 1
  c.response({ ts: '2026-10-22T08:00:30.000Z', usage: { input: 1, output: 1 } }); // C turn 1
}

/** Hand-derived from the fixture (see the comments there). */
const EXPECTED = {
  [A]: { prompts: 3, turns: 2, tool_calls: 4, subagent_tasks: 1, title: 'Refactor the parser', parent: null },
  [B]: { prompts: 1, turns: 1, tool_calls: 1, subagent_tasks: 0, title: 'Fork work', parent: null },
  [C]: { prompts: 1, turns: 1, tool_calls: 0, subagent_tasks: 0, title: 'Old style summary', parent: null },
};

describe('Claude Code units of work', () => {
  let env: NodeJS.ProcessEnv;
  let whole: NodeJS.ProcessEnv;
  beforeAll(() => {
    // Read in two parts (a resumed read of A) ...
    const { home, claude, s } = build();
    env = cleanEnv(home);
    expect(runCli(['ingest'], env).status).toBe(0);
    expect(storedCounts(env, 'claude-code')[A]).toMatchObject({ prompts: 2, turns: 1, tool_calls: 2 });
    secondPart(claude, s);
    // ... and the same tree read at once, in a store of its own.
    whole = cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-whole') });
  });

  it('counts each session as derived by hand, read in two parts or at once', () => {
    expect(storedCounts(env, 'claude-code')).toEqual(EXPECTED);
    expect(storedCounts(whole, 'claude-code')).toEqual(EXPECTED);
  });

  it('shows prompts, tool calls, active time and titles per session', () => {
    const r = reportJson([...RANGE, '--by', 'session'], env);
    const a = r.rows.find((x: any) => x.session === A);
    expect(a).toMatchObject({
      harness: 'claude-code',
      prompts: 3,
      tool_calls: 4,
      title: 'Refactor the parser',
      project: '/home/u/units',
    });
    // Activity 10:00:00 .. 10:06:50 (gaps under 10 min), then 10:31:00 .. 10:32:10: 6m50s + 1m10s.
    expect(a.active_minutes).toBe(8);
    expect(a.first_activity).toBe('2026-10-20T10:00:00.000Z');
    expect(a.last_activity).toBe('2026-10-20T10:32:10.000Z');
  });
});
