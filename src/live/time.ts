// Instants shown in a report's zone: ISO 8601 with the zone's offset, local
// days and their first instant. One Intl formatter per zone, made once (UTC
// needs none).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * The process's own zone (TZ, else the system's), read from Date's local
 * fields: no Intl formatter to load (its first use costs ~15 ms), which a
 * status line run cannot afford.
 */
export const LOCAL_ZONE = 'local';

/** The zone's offset from UTC at `ms`, in milliseconds (east positive). */
export function zoneOffsetMs(ms: number, tz: string): number {
  if (tz === 'UTC') return 0;
  if (tz === LOCAL_ZONE) return -new Date(ms).getTimezoneOffset() * 60_000;
  const p: Record<string, number> = {};
  for (const x of formatter(tz).formatToParts(new Date(ms))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  // Whole seconds: the formatter drops milliseconds.
  return wall - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The local wall-clock fields of `ms` in `tz` (read from the UTC fields of the shifted instant). */
function wall(ms: number, tz: string): Date {
  return new Date(ms + zoneOffsetMs(ms, tz));
}

/** `2026-03-29T03:00:00+02:00`: the instant in `tz`, with the offset in force then. */
export function isoInZone(ms: number, tz: string): string {
  const off = zoneOffsetMs(ms, tz);
  const w = new Date(ms + off);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off) / 60_000;
  const frac = w.getUTCMilliseconds() ? `.${pad(w.getUTCMilliseconds(), 3)}` : '';
  return (
    `${pad(w.getUTCFullYear(), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}T` +
    `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}${frac}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`
  );
}

/** The local calendar day (YYYY-MM-DD) of `ms` in `tz`. */
export function localDay(ms: number, tz: string): string {
  const w = wall(ms, tz);
  return `${pad(w.getUTCFullYear(), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`;
}

/** `2026-03-29 03:00` in `tz` (for tables). */
export function localMinute(ms: number, tz: string): string {
  const w = wall(ms, tz);
  return `${localDay(ms, tz)} ${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}`;
}

/** `03:00` in `tz`. */
export function localClock(ms: number, tz: string): string {
  const w = wall(ms, tz);
  return `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}`;
}

/**
 * The first instant of local day `day` (YYYY-MM-DD) in `tz`: midnight, or
 * where a zone skips midnight (a DST change at 00:00), the first time that exists.
 */
export function localDayStartMs(day: string, tz: string): number {
  const base = Date.parse(`${day}T00:00:00Z`);
  if (tz === 'UTC') return base;
  // Offsets lie within ±14 h: the answer is base - offset for the offset in
  // force then; two rounds settle it, and a skipped midnight lands after it.
  let t = base - zoneOffsetMs(base, tz);
  t = base - zoneOffsetMs(t, tz);
  if (localDay(t, tz) < day) {
    // Midnight did not exist: the first hour of the day is later.
    while (localDay(t, tz) < day) t += 15 * 60_000;
  }
  return t;
}

/** The day after `day` (YYYY-MM-DD). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** `2h 05m`, `45m`, `3d 4h` for a duration in minutes (rounded down to the minute). */
export function formatMinutes(minutes: number): string {
  const m = Math.max(0, Math.floor(minutes));
  if (m >= 48 * 60) return `${Math.floor(m / 1440)}d ${Math.floor((m % 1440) / 60)}h`;
  if (m >= 60) return `${Math.floor(m / 60)}h ${pad(m % 60)}m`;
  return `${m}m`;
}
