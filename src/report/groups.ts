// The --by keys a user may group by, mapped to SQL in code (never from input).
// Expressions read the columns every report template's `f` CTE provides.

export const GROUP_KEYS = ['day', 'week', 'month', 'model', 'project', 'harness', 'session', 'machine'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export function isGroupKey(s: string): s is GroupKey {
  return (GROUP_KEYS as readonly string[]).includes(s);
}

export function groupExpr(key: GroupKey): string {
  switch (key) {
    case 'day':
      return `strftime(local_ts, '%Y-%m-%d')`;
    case 'week':
      return `strftime(local_ts, '%G-W%V')`;
    case 'month':
      return `strftime(local_ts, '%Y-%m')`;
    case 'model':
      return `coalesce(model, 'unknown')`;
    case 'project':
      return `coalesce(project, 'unknown')`;
    case 'harness':
      return `harness`;
    case 'session':
      return `session_id`;
    case 'machine':
      // The exporting machine in a roll-up (--from); this machine's name on the local store.
      return `machine`;
    default:
      return key satisfies never;
  }
}

/** The `keys` slot: "expr AS key," for each key, in grouping order. */
export function keysSlot(keys: readonly GroupKey[]): string {
  return keys.map((k) => `${groupExpr(k)} AS "${k}", `).join('');
}
