// OpenCode units of work (issue 27) per session, read in SQL: user rows,
// idle rows (turn ends), tool blocks of assistant rows; a synthetic row, a
// subagent's child session, a fork copying rows and a 1.x-only database.
// Expected counts are derived by hand from the fixture (comments).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_TITLE, OpenCodeDb, SESSION_TITLE } from '../../fixtures/opencode/builder.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const GPT = { id: 'gpt-5', providerID: 'openai' };

describe('OpenCode units of work', () => {
  const dbs: OpenCodeDb[] = [];
  let env: NodeJS.ProcessEnv;
  let ids: Record<string, string>;
  beforeAll(() => {
    const home = tempDir('txu-units-oc-');
    const dataDir = join(home, '.local', 'share', 'opencode');
    mkdirSync(dataDir, { recursive: true });
    const db = new OpenCodeDb(join(dataDir, 'opencode.db'), 'v2');
    dbs.push(db);
    const s = db.session({ directory: '/work/oc', model: GPT });
    s.user(); //                                              prompt 1
    s.step({ input: 10, output: 5 }); //                      1 tool block
    s.step({ input: 10, output: 5 }); //                      1 tool block
    s.idle(); //                                              turn 1
    s.rawRow(
      'synthetic',
      JSON.stringify({ text: 'subagent finished', metadata: { source: 'subagent' }, time: { created: db.tick() } }),
    ); // no
    s.user(); //                                              prompt 2
    s.step({ input: 3, output: 1 }); //                       1 tool block
    s.inFlightStep(); //                                      1 tool block (a call in a step still running)
    const end = s.idle(); //                                  turn 2
    s.title({ input: 1, output: 1 }); //                      title: GENERATED_TITLE

    // The subagent tool's child session: its user row is the parent agent's task.
    const child = db.session({ directory: '/work/oc', model: GPT, parentId: s.id });
    child.user(); //                                          subagent task 1
    child.step({ input: 2, output: 2 }); //                   1 tool block
    child.idle(); //                                          turn 1

    // A fork through the second turn: every copied row counts nothing; then its own work.
    const fork = s.fork({ type: 'through', messageID: end });
    fork.user(); //                                           prompt 1
    fork.step({ input: 1, output: 1 }); //                    1 tool block
    fork.idle(); //                                           turn 1

    // A 1.x-only database: user messages (each also a turn) and tool parts.
    const old = new OpenCodeDb(join(dataDir, 'opencode-legacy.db'), 'v1');
    dbs.push(old);
    const v1 = old.v1Session({ directory: '/work/v1', model: GPT });
    v1.user(); //                                             prompt 1
    v1.assistant([{ input: 5, output: 5 }], { tools: 2 }); //  2 tool parts
    ids = { s: s.id, child: child.id, fork: fork.id, v1: v1.id };
    env = cleanEnv(home);
  });
  afterAll(() => dbs.forEach((d) => d.close()));

  it('counts each session as derived by hand', () => {
    expect(runCli(['ingest'], env).status).toBe(0);
    const got = storedCounts(env, 'opencode');
    expect(got[ids.s!]).toEqual({
      prompts: 2,
      turns: 2,
      tool_calls: 4,
      subagent_tasks: 0,
      title: GENERATED_TITLE,
      parent: null,
    });
    expect(got[ids.child!]).toEqual({
      prompts: 0,
      turns: 1,
      tool_calls: 1,
      subagent_tasks: 1,
      title: SESSION_TITLE,
      parent: ids.s,
    });
    expect(got[ids.fork!]).toEqual({
      prompts: 1,
      turns: 1,
      tool_calls: 1,
      subagent_tasks: 0,
      title: 'title (fork #1)',
      parent: null,
    });
    expect(got[ids.v1!]).toEqual({
      prompts: 1,
      turns: 1,
      tool_calls: 2,
      subagent_tasks: 0,
      title: SESSION_TITLE,
      parent: null,
    });
  });
});
