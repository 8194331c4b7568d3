// The folder of tx-usage's package.json, whether running from src/ (tests),
// dist/src/ or a bundle in dist/src/cli/ (installed): queries/, reports/ and
// proto/ are found beside it. No imports beyond node: the memo's fast path
// and the status line load it without the rest of the program.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

export function packageRoot(): string {
  if (root !== null) return root;
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json'))) {
    const up = dirname(d);
    if (up === d)
      throw new Error(
        `tx-usage's package root (package.json) not found above ${dirname(fileURLToPath(import.meta.url))}`,
      );
    d = up;
  }
  return (root = d);
}
