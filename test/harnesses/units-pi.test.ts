// Pi units of work (issue 27) per session, read from the edges of lines that
// are never parsed: prompts (each also a turn: pi records no turn ends), the
// tool calls of responses, and the session's name. The fixture holds an
// extension message, a user shell command, a compaction, a /fork copy and a
// version-1 file; expected counts are derived by hand (comments).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionsDir, SONNET } from '../../fixtures/pi/scenarios.js';
import { Ledger, PiSession, randomUsage, rng } from '../../fixtures/pi/session.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

describe('Pi units of work', () => {
  let env: NodeJS.ProcessEnv;
  let whole: NodeJS.ProcessEnv;
  let ids: { s1: string; s2: string; s3: string };
  beforeAll(() => {
    const home = tempDir('txu-units-pi-');
    const agentDir = join(home, '.pi', 'agent');
    const dir = sessionsDir(agentDir, '/home/dev/pi-units');
    const ledger = new Ledger();
    const r = rng(3);
    const ai = (toolCalls = 0) => ({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r), toolCalls });

    const s1 = new PiSession({
      dir,
      cwd: '/home/dev/pi-units',
      start: Date.UTC(2026, 1, 3, 9, 0, 0),
      ledger,
      seed: 11,
    });
    s1.modelChange(SONNET[1], SONNET[0]);
    s1.user('Refactor the store'); //                     prompt 1 (and turn 1)
    s1.assistant(ai(2)); //                               2 tool calls
    s1.toolResult();
    s1.toolResult();
    s1.assistant(ai()); //                                answer
    s1.write();
    env = cleanEnv(home);
    expect(runCli(['ingest'], env).status).toBe(0);
    expect(storedCounts(env, 'pi')[s1.sessionId]).toMatchObject({ prompts: 1, turns: 1, tool_calls: 2 });

    s1.customMessage('extension context'); //             injected by an extension: no
    s1.bash('ls -la'); //                                 a shell command the user ran: not a model tool call
    s1.compaction({ usage: randomUsage(r) }); //          no
    s1.user('Now the tests', 300_000); //                 prompt 2 (a long line with an image: read from its edges)
    s1.assistant(ai(1)); //                               1 tool call
    s1.toolResult();
    s1.sessionInfo('store refactor');
    s1.sessionInfo('Store refactor, part 2'); //          the latest name wins
    s1.assistant(ai());
    s1.flush();

    // /fork: the path is copied with its ids (copies lose to s1), then the fork's own prompt.
    const s2 = s1.branchedCopy(s1.leafId!, { dir, seed: 12, start: Date.UTC(2026, 1, 3, 12, 0, 0) });
    s2.user('Try another way'); //                        prompt 1 of s2
    s2.assistant(ai(1)); //                               1 tool call
    s2.write();

    // A version-1 (linear, id-less) file.
    const s3 = new PiSession({
      dir,
      cwd: '/home/dev/pi-units',
      start: Date.UTC(2026, 1, 4, 9, 0, 0),
      ledger,
      seed: 13,
      version: 1,
    });
    s3.user('old format'); //                             prompt 1
    s3.assistant(ai());
    s3.write();
    ids = { s1: s1.sessionId, s2: s2.sessionId, s3: s3.sessionId };
    whole = cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-whole') });
  });

  it('counts each session as derived by hand, read in two parts or at once', () => {
    const expected = {
      [ids.s1]: {
        prompts: 2,
        turns: 2,
        tool_calls: 3,
        subagent_tasks: 0,
        title: 'Store refactor, part 2',
        parent: null,
      },
      // The copied session_info entries name the fork too.
      [ids.s2]: {
        prompts: 1,
        turns: 1,
        tool_calls: 1,
        subagent_tasks: 0,
        title: 'Store refactor, part 2',
        parent: null,
      },
      [ids.s3]: { prompts: 1, turns: 1, tool_calls: 0, subagent_tasks: 0, title: null, parent: null },
    };
    expect(storedCounts(env, 'pi')).toEqual(expected);
    expect(storedCounts(whole, 'pi')).toEqual(expected);
  });
});
