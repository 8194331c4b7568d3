// What the store counted as units of work per session (work_units, deduped)
// and the session facts, read through the real CLI's `sql` command.
import { runCli } from './cli.js';

export interface SessionCounts {
  prompts: number;
  turns: number;
  tool_calls: number;
  subagent_tasks: number;
  title: string | null;
  parent: string | null;
}

const QUERY = `
  WITH u AS (
    SELECT harness, session_id,
           coalesce(sum(n) FILTER (WHERE kind = 'prompt'), 0)::INTEGER AS prompts,
           coalesce(sum(n) FILTER (WHERE kind = 'turn'), 0)::INTEGER AS turns,
           coalesce(sum(n) FILTER (WHERE kind = 'tool_call'), 0)::INTEGER AS tool_calls,
           coalesce(sum(n) FILTER (WHERE kind = 'subagent_task'), 0)::INTEGER AS subagent_tasks
    FROM work_units GROUP BY ALL
  )
  SELECT coalesce(u.harness, f.harness) AS harness, coalesce(u.session_id, f.session_id) AS session_id,
         coalesce(prompts, 0) AS prompts, coalesce(turns, 0) AS turns, coalesce(tool_calls, 0) AS tool_calls,
         coalesce(subagent_tasks, 0) AS subagent_tasks, f.title, f.parent_session_id AS parent
  FROM u FULL JOIN session_facts f ON u.harness = f.harness AND u.session_id = f.session_id
  ORDER BY 1, 2`;

/** Per `harness/session`: the counts and facts the store holds (ingesting first). */
export function storedCounts(env: NodeJS.ProcessEnv, harness?: string): Record<string, SessionCounts> {
  const r = runCli(['sql', QUERY, '--format', 'json'], env);
  if (r.status !== 0) throw new Error(`tx-usage sql exited ${r.status}: ${r.stderr}`);
  const out: Record<string, SessionCounts> = {};
  for (const x of JSON.parse(r.stdout) as any[]) {
    if (harness && x.harness !== harness) continue;
    out[harness ? x.session_id : `${x.harness}/${x.session_id}`] = {
      prompts: x.prompts,
      turns: x.turns,
      tool_calls: x.tool_calls,
      subagent_tasks: x.subagent_tasks,
      title: x.title,
      parent: x.parent,
    };
  }
  return out;
}
