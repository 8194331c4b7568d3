// "Now" for the live views. TX_USAGE_NOW (an ISO 8601 instant) pins it, so
// that a test or a reproduction sees the same active block, time left and
// burn rate on every run; unset, it is the system clock.
import { UsageError } from '../report/period.js';

export function nowMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.TX_USAGE_NOW;
  if (v === undefined || v === '') return Date.now();
  const t = Date.parse(v);
  if (!Number.isFinite(t))
    throw new UsageError(`TX_USAGE_NOW ${JSON.stringify(v)}: expected an ISO 8601 instant (e.g. 2026-11-02T10:30:00Z)`);
  return t;
}
