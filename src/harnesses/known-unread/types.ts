// A harness tx-usage knows of and does not read: its folders are looked for
// so that `tx-usage sources` can name them as found and not counted, with
// why. Not a reader: it is kept apart from the registry (registry.ts), whose
// every harness must produce rows (the privacy canary, the all-harness home).
import type { PathContext, RootSpec } from '../types.js';

export interface KnownUnread {
  /** An id of its own (not a HarnessId: nothing is stored under it). */
  id: string;
  displayName: string;
  /** Where its files live, resolved as a reader's roots are (environment, then default). */
  roots(ctx: PathContext): RootSpec[];
  /** Why its files are not counted: one sentence, shown beside every root found; README.md beside it has the evidence. */
  reason: string;
}
