// A shared output (the HTML page) shows no absolute home path: the user's
// home folder is written `~`, in warnings (`~/.claude/projects/…/x.jsonl
// line 3: …`), table cells and chart data alike. The JSON and CSV keep the
// paths as they are: they are the machine-readable record on this machine.
import type { ReportOutput } from '../report/output.js';

/** `text` with every occurrence of `home` as a whole path prefix written `~`. */
export function tildeHome(text: string, home: string | undefined): string {
  const h = home?.replace(/\/+$/, '');
  if (!h || h === '' || !text.includes(h)) return text;
  // The home folder itself, or a path inside it: not /home/me2 for /home/me.
  return text
    .split(h)
    .reduce((acc, part, i) => (i === 0 ? part : acc + (part === '' || /^[/\s:"')\]]/.test(part) ? '~' : h) + part), '');
}

function mapStrings<T>(v: T, f: (s: string) => string): T {
  if (typeof v === 'string') return f(v) as T;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f)) as T;
  if (v && typeof v === 'object' && !(v instanceof Map)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapStrings(x, f);
    return o as T;
  }
  return v;
}

/** The parts of a report the HTML page shows, with the home folder written `~`. */
export function withHomeAsTilde(out: ReportOutput, home: string | undefined): ReportOutput {
  if (!home) return out;
  const f = (s: string) => tildeHome(s, home);
  return {
    ...out,
    warnings: out.warnings.map(f),
    datasets: mapStrings(out.datasets, f),
    charts: out.charts ? mapStrings(out.charts, f) : out.charts,
  };
}
