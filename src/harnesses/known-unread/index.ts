// The harnesses tx-usage knows and does not read, one declaration each
// (README.md beside this file: why, with the evidence).
import { codebuff } from './codebuff.js';
import { crush } from './crush.js';
import type { KnownUnread } from './types.js';

export type { KnownUnread };
export const KNOWN_UNREAD: readonly KnownUnread[] = [codebuff, crush];
