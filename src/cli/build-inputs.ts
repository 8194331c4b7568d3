// The build a run was made by, as inputs (core/inputs.ts): what the memo and
// the ready row's prices record (a new build may answer otherwise). Its own
// module so that pricing.ts can take it without the memo's imports.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../core/package-root.js';
import { statLine, type Input } from '../core/inputs.js';

/**
 * The build, as files whose stats change with it: the compiled memo module
 * (named relative to this module rather than as it: the bundles hold a copy
 * of this code, and every copy must agree) and package.json.
 */
export function buildInputs(): Input[] {
  return [fileURLToPath(new URL('./memo.js', import.meta.url)), join(packageRoot(), 'package.json')].map((path) => ({
    k: 'file',
    path,
    v: statLine(path),
  }));
}
