// `--project TEXT` that no project's path contains: a usage error naming the
// nearest projects, instead of a report that reads "no usage" as if the
// project had been idle (issue 44).
import { LIST, VARCHAR, listValue, type DuckDBConnection } from '../store/duckdb.js';
import { distance } from '../cli/hints.js';
import { UsageError } from './period.js';

/** How many near matches the message names. */
const NEAR = 5;

/**
 * Throws when no stored project of `harnesses` (at any time: a project idle in
 * the window still matches) has a path containing `project`. Asked of
 * event_attrs (one row per combination of source, session and model) and the
 * context rows (Cursor's chats), only when --project is given.
 */
export async function checkProjectFilter(
  conn: DuckDBConnection,
  project: string,
  harnesses: readonly string[],
): Promise<void> {
  if (project === '') return;
  const r = await conn.runAndReadAll(
    `SELECT project FROM event_attrs WHERE project IS NOT NULL AND list_contains($h, harness)
     UNION SELECT project FROM context_rows WHERE project IS NOT NULL AND list_contains($h, harness)`,
    { h: listValue([...harnesses]) },
    { h: LIST(VARCHAR) },
  );
  const projects = (r.getRowObjectsJson() as { project: string }[]).map((x) => x.project);
  if (projects.some((p) => p.includes(project))) return;
  const near = nearProjects(project, projects);
  throw new UsageError(
    `--project ${JSON.stringify(project)}: no project matches (a project matches when its path contains the text)` +
      (near.length
        ? `; near: ${near.join(', ')}`
        : projects.length
          ? '; `tx-usage report --by project` lists them'
          : '; no usage records a project yet'),
  );
}

/** The projects nearest to `typed`: containing it ignoring case, then by the edit distance of their last path component (at most a third of its length). */
export function nearProjects(typed: string, projects: readonly string[]): string[] {
  const t = typed.toLowerCase();
  const scored = projects
    .map((p) => {
      const base = p
        .replace(/[/\\]+$/, '')
        .split(/[/\\]/)
        .pop()!
        .toLowerCase();
      return { p, d: p.toLowerCase().includes(t) ? 0 : distance(t, base) };
    })
    .filter((x) => x.d <= Math.max(1, Math.floor(t.length / 3)))
    .sort((a, b) => a.d - b.d || a.p.localeCompare(b.p));
  return scored.slice(0, NEAR).map((x) => x.p);
}
