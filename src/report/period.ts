// --since / --until: inclusive calendar days in the report's time zone.

export class UsageError extends Error {}

/** The period and zone a report covers, as its title line says it: `2026-11-04 – 2026-12-04 (UTC)`. */
export function periodLabel(since: string, until: string, tz: string): string {
  return `${since} – ${until} (${tz})`;
}

// UTC is answered without Intl, whose first use costs ~15 ms here (ICU loads
// its data): a report in UTC (TZ=UTC, as on most servers, or --tz UTC) never
// needs it (render/format.ts formats numbers without it too).

/** An instant (ISO 8601) as `YYYY-MM-DD HH:MM` on the clock of `tz`. */
export function localDateTime(iso: string, tz: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  if (tz === 'UTC') return d.toISOString().slice(0, 16).replace('T', ' ');
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** Today's date (YYYY-MM-DD) in `tz`. */
export function todayIn(tz: string, now = new Date()): string {
  if (tz === 'UTC') return now.toISOString().slice(0, 10);
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function shiftDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

function shiftMonths(day: string, months: number): string {
  const [y, m, dd] = day.split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) - months;
  const ny = Math.floor(total / 12);
  const nm = (total % 12) + 1;
  const last = new Date(Date.UTC(ny, nm, 0)).getUTCDate();
  return `${String(ny).padStart(4, '0')}-${String(nm).padStart(2, '0')}-${String(Math.min(dd, last)).padStart(2, '0')}`;
}

/**
 * `30d`, `2w`, `3m` (back from today), or an ISO date `YYYY-MM-DD`. As the
 * first day of a window (`span`: --since), N days are N calendar days ending
 * today, today included (`1d` is today, `30d` the 30 days to today, `1m` the
 * day after this day a month ago to today; `0d` is today too); as a last day
 * (--until), N back from today (`1d` is yesterday).
 */
export function parseDay(value: string, flag: string, today: string, span = false): string {
  const v = value.trim();
  const rel = /^(\d+)([dwm])$/.exec(v);
  if (rel && rel[1].length > 5)
    throw new UsageError(`${flag} ${JSON.stringify(value)}: out of range (N${rel[2]} takes N from 0 to 99999)`);
  if (rel) {
    const n = Number(rel[1]);
    // A span of N days ending today starts N - 1 days back.
    const last = span && n > 0 ? 1 : 0;
    if (rel[2] === 'd') return shiftDays(today, n - last);
    if (rel[2] === 'w') return shiftDays(today, 7 * n - last);
    return shiftDays(shiftMonths(today, n), -last);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    if (isRealDate(v)) return v;
    throw new UsageError(`${flag} ${JSON.stringify(value)}: not a calendar date`);
  }
  // ccusage's form, YYYYMMDD (its docs/guide/cli-options.md: `--since 20260101`): a date
  // only when it is a real calendar day; any other 8-digit number stays an error.
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (compact) {
    const day = `${compact[1]}-${compact[2]}-${compact[3]}`;
    if (isRealDate(day)) return day;
    throw new UsageError(`${flag} ${JSON.stringify(value)}: not a calendar date (YYYYMMDD)`);
  }
  throw new UsageError(
    `${flag} ${JSON.stringify(value)}: expected Nd, Nw, Nm (days/weeks/months back from today) or a date YYYY-MM-DD`,
  );
}

/**
 * A report's first and last day from --since and --until as typed (undefined:
 * not typed). Without --since the window is `defaultSince` (30d) ending at
 * --until, so that `--until` alone moves the window instead of cutting it
 * to nothing; --since after --until is a usage error naming both.
 */
export function reportWindow(
  since: string | undefined,
  until: string | undefined,
  today: string,
  defaultSince = '30d',
): { since: string; until: string } {
  const last = until === undefined ? today : parseDay(until, '--until', today);
  const first =
    since === undefined ? parseDay(defaultSince, '--since', last, true) : parseDay(since, '--since', today, true);
  if (first > last) throw new UsageError(`--since ${first} is after --until ${last}`);
  return { since: first, until: last };
}

/**
 * The window widened to whole weeks (ISO, Monday to Sunday) and months when a
 * report groups by them (`by`), so that no row is a period cut by the window
 * and shown as if whole (issue 44: November's row read $14.87 of its $23.50
 * under a 30-day window). The first day goes back to its period's first; a
 * last day before today goes on to its period's last, or to today when that
 * comes first (a period still under way is whole so far).
 */
export function wholePeriods(
  w: { since: string; until: string },
  by: readonly string[],
  today: string,
): { since: string; until: string } {
  let { since, until } = w;
  const weekday = (day: string) => (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  for (const k of by) {
    if (k === 'week') {
      since = minDay(since, shiftDays(w.since, weekday(w.since)));
      if (w.until < today) until = maxDay(until, minDay(shiftDays(w.until, weekday(w.until) - 6), today));
    } else if (k === 'month') {
      since = minDay(since, `${w.since.slice(0, 8)}01`);
      if (w.until < today)
        until = maxDay(until, minDay(shiftDays(shiftMonths(`${w.until.slice(0, 8)}01`, -1), 1), today));
    }
  }
  return { since, until };
}

const minDay = (a: string, b: string) => (a < b ? a : b);
const maxDay = (a: string, b: string) => (a > b ? a : b);

export function isValidTimeZone(tz: string): boolean {
  if (tz === 'UTC') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The system zone when it is known without Intl: TZ=UTC (what Intl resolves it to), else undefined. */
export function systemZoneWithoutIntl(): string | undefined {
  return process.env.TZ === 'UTC' ? 'UTC' : undefined;
}

export function systemTimeZone(): string {
  const known = systemZoneWithoutIntl();
  if (known !== undefined) return known;
  // TZ empty or naming no zone: Intl answers "Etc/Unknown" (or nothing),
  // which is no zone at all. Days are then UTC days, said once on stderr.
  const z = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (z && z !== 'Etc/Unknown' && isValidTimeZone(z)) return z;
  if (!zoneNoticeGiven) {
    zoneNoticeGiven = true;
    const tz = process.env.TZ;
    process.stderr.write(
      `tx-usage: the system time zone is unknown (${tz === undefined ? '/etc/localtime' : `TZ=${JSON.stringify(tz)}`}); days are UTC days. Set TZ to an IANA zone (e.g. Europe/Berlin) or pass --tz.\n`,
    );
  }
  return 'UTC';
}

let zoneNoticeGiven = false;

/** How far back a report reads, from its definition (reports/*.json `reads_from`). */
export type ReadsFrom = 'since' | 'month-before-since' | 'all';

/**
 * The first local day a report's queries read: its first day, or for one
 * that compares each month with the one before (monthly), the first day of
 * the month before the first day's month.
 */
export function firstDayRead(readsFrom: ReadsFrom | undefined, since: string): string {
  // 'all': a report whose rows depend on what came before its range (5-hour blocks chain back to the last long gap).
  if (readsFrom === 'all') return '1970-01-01';
  if (readsFrom !== 'month-before-since') return since;
  const [y, m] = since.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
}
