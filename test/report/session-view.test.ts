// `--by session` over all seven harnesses (issue 25): what each session is and
// did beside its usage, sorted by cost, no all-zero rows (Cursor's chats stay
// in their context section), titles where the harness keeps one.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, TITLE_MARK, type AllHome } from '../../fixtures/all-harnesses.js';
import { GENERATED_TITLE } from '../../fixtures/opencode/builder.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

let fx: AllHome;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  fx = buildAllHome(tempDir('txu-session-view-'));
  env = cleanEnv(fx.home, { XDG_CACHE_HOME: join(fx.home, '.cache-sv') });
});
afterAll(() => fx?.close());

describe('--by session', () => {
  it('rows with billed usage only, sorted by cost, each with the session view fields', () => {
    const r = reportJson([...ALL_RANGE, '--by', 'session'], env);
    expect(r.rows.length).toBeGreaterThan(10);
    // Cursor records no billed usage: its chats are in `context`, not rows of zeros.
    expect(r.rows.some((x: any) => x.harness === 'cursor-agent')).toBe(false);
    expect(r.rows.every((x: any) => x.requests > 0 || x.total_tokens > 0)).toBe(true);
    expect(r.context.length).toBeGreaterThan(0);
    const costs = r.rows.map((x: any) => x.cost_usd ?? -1);
    expect([...costs].sort((a: number, b: number) => b - a)).toEqual(costs);
    for (const x of r.rows) {
      for (const f of [
        'harness',
        'project',
        'title',
        'first_activity',
        'last_activity',
        'models',
        'prompts',
        'turns',
        'tool_calls',
        'subagent_tasks',
        'active_minutes',
      ])
        expect(x, f).toHaveProperty(f);
      expect(x.first_activity <= x.last_activity).toBe(true);
    }
    // Totals are those of every row: no usage was dropped with the zero rows.
    const all = reportJson([...ALL_RANGE, '--by', 'harness'], env);
    expect(r.totals).toEqual(all.totals);
    // Titles where the harness keeps one: Claude Code's ai-title, OpenCode's session title.
    const titles = r.rows.map((x: any) => x.title).filter(Boolean);
    expect(titles.some((t: string) => t.includes(TITLE_MARK))).toBe(true);
    expect(titles).toContain(GENERATED_TITLE);
    expect(r.rows.filter((x: any) => x.harness === 'claude-code').every((x: any) => x.prompts >= 1)).toBe(true);
  });

  it('the 80-column table shows session, harness, project, title, prompts, tools and cost', () => {
    const out = runCli(['report', ...ALL_RANGE, '--by', 'session'], env).stdout;
    const head = out.split('\n').find((l) => l.startsWith('Session'))!;
    for (const label of ['Harness', 'Project', 'Title', 'Prompts', 'Tools', 'Reqs', 'Total', 'Cost'])
      expect(head).toContain(label);
    const table = out.split('\n\n')[0]!.split('\n');
    // Piped, the ids are whole (issue 44): the rest of the table is laid out in 80 columns beside them.
    const ids: string[] = reportJson([...ALL_RANGE, '--by', 'session'], env).rows.map((x: any) => x.session);
    for (const id of ids) expect(out).toContain(id);
    const idWidth = Math.max(...ids.map((s) => s.length));
    expect(Math.max(...table.map((l) => l.length))).toBeLessThanOrEqual(80 + idWidth);
  });
});
