// Files pi extensions write below a session's folder (README "Sessions that
// extensions write"): discovered as nested sources; one with a session header
// is a session like any other (its user messages are subagent tasks), one
// without is a debug copy whose usage lines are named, never counted — also
// when it is read in two parts (the verdict rides in the resume state).
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger, PiSession } from '../../fixtures/pi/session.js';
import { SKIP_DEBUG_COPY } from '../../src/harnesses/pi/extract.js';
import { collect, discover } from '../helpers/pi-support.js';
import { tempDir } from '../helpers/cli.js';

const model = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
const assistantLine = (input: number) =>
  JSON.stringify({
    version: 1,
    recordType: 'message',
    runId: 'r1',
    agent: 'worker',
    cwd: '/home/u/a',
    timestamp: '2026-10-15T10:00:05.000Z',
    role: 'assistant',
    message: {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      usage: { input, output: 1, cacheRead: 0, cacheWrite: 0 },
    },
  });

describe('pi nested files', () => {
  it('counts a nested session with a header, its user messages as subagent tasks', async () => {
    const agent = join(tempDir('txu-pi-nested-'), 'agent');
    const folder = join(agent, 'sessions', '--home-u-a--', '2026-10-15T09-00-00-000Z_parent', 'e1', 'run-0');
    const s = new PiSession({
      dir: folder,
      fileName: 'session.jsonl',
      cwd: '/home/u/a',
      start: Date.UTC(2026, 9, 15, 9),
      ledger: new Ledger(),
      seed: 7,
      sessionId: 'child-1',
    });
    s.user('the task');
    s.assistant({ ...model, usage: { input: 9, output: 2, cacheRead: 0, cacheWrite: 0 } });
    s.write();
    const [src] = await discover(agent, {}, [agent]);
    expect(src!.meta).toMatchObject({ nested: '1', sessionId: 'session' });
    const c = await collect(src!);
    expect(c.events.map((e) => [e.session_id, e.project, e.input_tokens])).toEqual([['child-1', '/home/u/a', 9]]);
    expect(c.units.length).toBe(1);
    expect(c.units.kind(0)).toBe('subagent_task');
    expect(c.warnings).toEqual([]);
  });

  it('names the usage lines of a headerless copy, also across an append, and counts nothing', async () => {
    const agent = join(tempDir('txu-pi-debug-'), 'agent');
    const dir = join(agent, 'sessions', '--home-u-a--', 'subagent-artifacts');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'r1_worker_0_transcript.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({
          version: 1,
          recordType: 'message',
          role: 'user',
          message: { role: 'user', content: 'brief' },
        }),
        assistantLine(5),
      ].join('\n') + '\n',
    );
    const [src] = await discover(agent, {}, [agent]);
    const a = await collect(src!);
    expect(a.events).toEqual([]);
    expect(a.skips).toEqual([{ reason: SKIP_DEBUG_COPY, count: 1, first: `${file}:2` }]);
    appendFileSync(file, assistantLine(6) + '\n' + assistantLine(7) + '\n');
    const b = await collect(src!, JSON.parse(JSON.stringify(a.resume)));
    expect(b.events).toEqual([]);
    expect(b.skips).toEqual([{ reason: SKIP_DEBUG_COPY, count: 2, first: `${file}:3` }]);
    expect([...a.warnings, ...b.warnings]).toEqual([]);
  });

  it('still reads a top-level session without a header (old files), with a warning', async () => {
    const agent = join(tempDir('txu-pi-old-'), 'agent');
    const dir = join(agent, 'sessions', '--home-u-a--');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, '2026-10-15T09-00-00-000Z_old.jsonl');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'message',
        id: 'a1',
        parentId: null,
        timestamp: '2026-10-15T09:00:00.000Z',
        message: {
          role: 'assistant',
          ...model,
          usage: { input: 3, output: 1, cacheRead: 0, cacheWrite: 0 },
          timestamp: 1792054800000,
        },
      }) + '\n',
    );
    const [src] = await discover(agent, {}, [agent]);
    expect(src!.meta).toEqual({ sessionId: 'old', dirKey: '--home-u-a--' });
    const c = await collect(src!);
    expect(c.events.map((e) => e.input_tokens)).toEqual([3]);
    expect(c.warnings.some((w) => w.includes('no session header'))).toBe(true);
  });
});
