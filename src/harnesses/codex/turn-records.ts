// The records that set what later responses are attributed to (README
// "Attribution"): turn_context (model, project), task_started (context
// window), thread_settings_applied (model, priority tier), and
// thread_rolled_back (which changes no count).
import type { RolloutReader } from './reader.js';

/** turn_context: the model and cwd from here on. `copied`: the record is another thread's (lineage.ts). */
export function onTurnContext(
  r: RolloutReader,
  rec: { model: string | null; cwd: string | null },
  copied: boolean,
): void {
  // A sub-agent's inherited turn_context is its parent's: its cwd is the project the sub-agent's spend goes to.
  if (copied && r.st.subagent && rec.cwd) r.st.parentCwd = rec.cwd;
  if (rec.model) r.useModel(rec.model);
  if (rec.cwd) r.useCwd(rec.cwd);
}

/** task_started: the context window a synthesized overflow total is recognised by. */
export function onTaskStarted(r: RolloutReader, rec: { contextWindow: number | null }): void {
  if (rec.contextWindow !== null) r.st.contextWindow = rec.contextWindow;
}

/** thread_settings_applied: the thread's model and service tier from here on. */
export function onThreadSettings(r: RolloutReader, settings: { model: string | null; priority: boolean } | null): void {
  if (!settings) return;
  if (settings.model) r.useModel(settings.model);
  // The response's own service_tier echo is not read (it reports default/auto).
  r.st.tier = settings.priority ? 'priority' : null;
}

/** thread_rolled_back: rolled-back turns leave the model's context, not the bill. */
export function onRollback(r: RolloutReader, copied: boolean): void {
  if (!copied) r.sink.count('thread_rolled_back (spend kept)');
}
