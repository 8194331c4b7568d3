// The status line starts a detached `statusline --refresh` when it has no
// fresh snapshot; a test file waits for it before removing the home it works in.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Waits (up to a minute) until no refresh holds the live snapshot's lock under `home`'s default cache dir. */
export async function refreshesDone(home: string): Promise<void> {
  const lock = join(home, '.cache', 'tx-usage', 'live', 'refresh.lock');
  for (let i = 0; i < 600 && existsSync(lock); i++) await new Promise((r) => setTimeout(r, 100));
}
