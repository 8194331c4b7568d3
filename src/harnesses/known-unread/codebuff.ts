// Codebuff (and Freebuff, the same CLI): README.md beside this file, "Codebuff".
import { join } from 'node:path';
import { resolveRoots } from '../roots.js';
import type { KnownUnread } from './types.js';

export const codebuff: KnownUnread = {
  id: 'codebuff',
  displayName: 'Codebuff',
  // `os.homedir()/.config/manicode` on every OS (no XDG); non-production builds append their channel.
  // CODEBUFF_DATA_DIR is the peers' override (ccusage adapter/codebuff/paths.rs, codeburn), not Codebuff's own.
  roots: (ctx) =>
    resolveRoots(
      { ...ctx, rootOverrides: [] },
      {
        envVars: ['CODEBUFF_DATA_DIR'],
        listEnv: true,
        defaults: ['manicode', 'manicode-dev', 'manicode-staging'].map((d) => join('.config', d)),
      },
    ),
  reason:
    'Codebuff records Codebuff credits per turn only (chat-messages.json `credits`): no token counts and no model, so nothing can be priced or counted per response',
};
