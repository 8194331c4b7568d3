import type { Harness, PathContext, RootSpec } from '../types.js';
import { join } from 'node:path';
import { resolveRoots } from '../roots.js';
import { discoverSdkSessions, discoverTasks, extensionRoots } from './paths.js';
import type { ClassicDialect } from './classic.js';
import { RULE } from './rules.js';

/** VS Code keeps an extension's globalStorage under its lower-cased id. */
export const CLINE_EXTENSION_ID = 'saoudrizwan.claude-dev';

/**
 * Providers whose handler reports OpenAI's prompt_tokens (cache included) as
 * tokensIn together with a cached count (README "Input tokens"; cline
 * apps/vscode/src/core/api/providers/<id>.ts at 864419d8). Every other
 * provider reports the uncached remainder, or no cache at all.
 */
const TOTAL_INPUT_PROVIDERS = new Set([
  'openai',
  'openai-codex',
  'requesty',
  'xai',
  'zai',
  'litellm',
  'fireworks',
  'doubao',
  'qwen',
  'hicap',
  'lmstudio',
  'oca',
]);

export const CLINE_DIALECT: ClassicDialect = {
  harness: 'cline',
  inputIncludesCache: ({ providerId, sum }) => !sum && providerId !== null && TOTAL_INPUT_PROVIDERS.has(providerId),
  models: 'task-metadata',
  folderHeading: '# Current Working Directory (',
  // README "Not billed here: the Claude Code provider": Cline runs `claude -p`, which keeps its own transcript.
  notBilled: (providerId) =>
    providerId === 'claude-code' ? 'Claude Code provider request (billed in Claude Code’s own transcripts)' : null,
};

/**
 * Cline's own data dir (CLI, JetBrains, and Cline 4's SDK sessions):
 * CLINE_DATA_DIR, else CLINE_DIR/data, else ~/.cline/data (cline
 * sdk/packages/shared/src/storage/paths.ts); CLINE_SESSION_DATA_DIR moves
 * only the sessions.
 */
function clineDataDir(ctx: PathContext): RootSpec[] {
  const noFlags = { ...ctx, rootOverrides: [] };
  const sessions = resolveRoots(noFlags, { envVars: ['CLINE_SESSION_DATA_DIR'], defaults: [] });
  const own = resolveRoots(noFlags, { envVars: ['CLINE_DATA_DIR'], defaults: [] });
  const dir = resolveRoots(noFlags, { envVars: ['CLINE_DIR'], defaults: [], mapRoot: (d) => join(d, 'data') });
  const data = own.length ? own : dir.length ? dir : resolveRoots(noFlags, { envVars: [], defaults: ['.cline/data'] });
  return [...data, ...sessions];
}

export const cline: Harness<'cline'> = {
  id: 'cline',
  displayName: 'Cline',
  chartColor: '#17becf',
  // Any provider the user configured; Cline records its provider id where it can.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set CLINE_DATA_DIR or CLINE_DIR (CLI data), VSCODE_PORTABLE, XDG_CONFIG_HOME or APPDATA (editor user dirs), or pass --root cline=PATH (a folder holding tasks/)',
  roots: (ctx) =>
    ctx.rootOverrides.length
      ? extensionRoots(ctx, CLINE_EXTENSION_ID)
      : [...clineDataDir(ctx), ...extensionRoots(ctx, CLINE_EXTENSION_ID)],
  discover: async (roots, warn) => [
    ...(await discoverTasks('cline', roots, ['task_metadata.json', 'api_conversation_history.json'], warn)),
    ...discoverSdkSessions(roots, warn),
  ],
  extract: async (source, sink, opts) =>
    source.meta?.sdk
      ? (await import('./sdk.js')).extractSdkSession(source, sink, opts)
      : (await import('./classic.js')).extractClassicTask(source, sink, opts, CLINE_DIALECT),
};
