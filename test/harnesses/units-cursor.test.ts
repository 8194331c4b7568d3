// Cursor units of work (issue 27): Cursor bills nothing locally, but its
// chats' turns and tool calls are there. From the blob graph of the latest
// root: a person's prompts (not simulated messages, not shell turns), turn
// ends (completed_at_ms), tool-call steps (told by their first bytes), a
// subagent's task, and a /fork copying every blob. Expected counts are
// derived by hand from the plan below (comments).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeConversation, type ConvPlan } from '../../fixtures/cursor-agent/conversation.js';
import { md5, T0 } from '../../fixtures/cursor-agent/home.js';
import { ChatStore } from '../../fixtures/cursor-agent/store.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const CHAT = '0c0c0c0c-0000-4000-8000-00000000aa01';
const FORK = '0c0c0c0c-0000-4000-8000-00000000aa02';
const at = (min: number) => T0 + min * 60_000;

const PLAN: ConvPlan = {
  startedMs: at(0),
  max: 200_000,
  initial: 'empty',
  turns: [
    { at: at(1), durationMs: 30_000, usedMid: 5_000, usedEnd: 9_000, tools: 2 }, //       prompt 1, turn 1, 2 tool calls
    { kind: 'shell', at: at(2), durationMs: 1_000, usedMid: null, usedEnd: 9_000 }, //   a shell turn: nothing
    { at: at(3), durationMs: 20_000, usedMid: null, usedEnd: 12_000, tools: 1, simulated: true }, // turn 2, 1 tool call; not a prompt
    { at: at(4), durationMs: 10_000, usedMid: null, usedEnd: 13_000, incomplete: true }, // prompt 2, no turn end yet
  ],
  subagents: {
    fromTurn: 1,
    inline: {
      sub1: {
        conv: {
          startedMs: at(1),
          max: 200_000,
          initial: 'empty',
          turns: [{ at: at(1) + 5_000, durationMs: 8_000, usedMid: null, usedEnd: 3_000, tools: 1 }],
        },
        createdMs: at(1),
        lastUsedMs: at(1) + 13_000,
        model: 'example-model',
      },
    }, // its task (subagent task 1), turn 1, 1 tool call
  },
};

describe('Cursor units of work', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-units-cursor-');
    const chats = join(home, '.cursor', 'chats', md5('/home/user/cursor-units'));
    const store = new ChatStore();
    const built = writeConversation(store, PLAN);
    const meta = (agentId: string, name: string) => ({
      agentId,
      latestRootBlobId: built.latestId,
      name,
      createdAt: at(0),
      mode: 'default',
      isRunEverything: false,
      lastUsedModel: 'example-model',
    });
    store.write(join(chats, CHAT, 'store.db'), meta(CHAT, 'Units chat'), 'rollback');
    // /fork copies every blob into a new chat named '<name> (forked)': its copies lose to the original.
    store.write(join(chats, FORK, 'store.db'), meta(FORK, 'Units chat (forked)'), 'rollback');
    env = cleanEnv(home);
  });

  it('counts each chat and subagent as derived by hand', () => {
    expect(runCli(['ingest'], env).status).toBe(0);
    expect(storedCounts(env, 'cursor-agent')).toEqual({
      [CHAT]: { prompts: 2, turns: 2, tool_calls: 3, subagent_tasks: 0, title: 'Units chat', parent: null },
      [`${CHAT}/sub1`]: { prompts: 0, turns: 1, tool_calls: 1, subagent_tasks: 1, title: null, parent: CHAT },
      [FORK]: { prompts: 0, turns: 0, tool_calls: 0, subagent_tasks: 0, title: 'Units chat (forked)', parent: null },
      [`${FORK}/sub1`]: { prompts: 0, turns: 0, tool_calls: 0, subagent_tasks: 0, title: null, parent: FORK },
    });
  });
});
