// `tx-usage statusline`: Claude Code's status-line input read, and one line
// (or a JSON object) made from the live view. The input is Claude Code's
// documented statusLine JSON (https://code.claude.com/docs/en/statusline;
// `rate_limits` since v2.1.80): session_id, transcript_path, cwd, model
// {id, display_name}, workspace {current_dir, project_dir}, version,
// cost {total_cost_usd, ...}, context_window {context_window_size,
// used_percentage, current_usage, ...}, rate_limits {five_hour, seven_day:
// {used_percentage, resets_at}}. Every field may be missing; the line shows
// what it can.
import { usd } from '../render/format.js';
import type { LiveMetrics } from './blocks.js';
import { currentUsedPercent } from './limits.js';
import type { BlockRow } from './block-rows.js';
import { paint, type LiveConfig, type Segment } from './config.js';
import { formatMinutes } from './time.js';
import { printable } from '../render/terminal-text.js';

export interface LimitReading {
  used_percent: number;
  /** epoch ms, null when not given */
  resets_at: number | null;
}

export interface StatusInput {
  session_id: string | null;
  transcript_path: string | null;
  cwd: string | null;
  model: { id: string | null; display_name: string | null } | null;
  version: string | null;
  /** Claude Code's own running estimate of the session's cost. */
  claude_cost_usd: number | null;
  context_used_percent: number | null;
  five_hour: LimitReading | null;
  seven_day: LimitReading | null;
}

export type InputProblem = 'empty' | 'unreadable' | 'not an object';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** resets_at: Unix seconds (what Claude Code writes), or an ISO 8601 string (seen in some write-ups). */
function instant(v: unknown): number | null {
  const n = num(v);
  if (n !== null) return n > 1e12 ? Math.round(n) : Math.round(n * 1000);
  const s = str(v);
  if (s === null) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
}

function limit(v: unknown): LimitReading | null {
  const o = obj(v);
  const used = o ? (num(o.used_percentage) ?? num(o.used_percent)) : null;
  return o && used !== null ? { used_percent: used, resets_at: instant(o.resets_at) } : null;
}

export function parseStatusInput(text: string): { input: StatusInput | null; problem: InputProblem | null } {
  if (!text.trim()) return { input: null, problem: 'empty' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { input: null, problem: 'unreadable' };
  }
  const o = obj(raw);
  if (!o) return { input: null, problem: 'not an object' };
  const model = obj(o.model);
  const cost = obj(o.cost);
  const ctx = obj(o.context_window);
  const rl = obj(o.rate_limits);
  let ctxPct = ctx ? num(ctx.used_percentage) : null;
  if (ctx && ctxPct === null) {
    const size = num(ctx.context_window_size);
    const cur = obj(ctx.current_usage);
    if (size && cur) {
      const used = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'].reduce(
        (n, k) => n + (num(cur[k]) ?? 0),
        0,
      );
      ctxPct = Math.round((used / size) * 1000) / 10;
    }
  }
  return {
    input: {
      session_id: str(o.session_id),
      transcript_path: str(o.transcript_path),
      cwd: str(o.cwd) ?? (obj(o.workspace) ? str(obj(o.workspace)!.current_dir) : null),
      model: model ? { id: str(model.id), display_name: str(model.display_name) } : null,
      version: str(o.version),
      claude_cost_usd: cost ? num(cost.total_cost_usd) : null,
      context_used_percent: ctxPct,
      five_hour: rl ? limit(rl.five_hour) : null,
      seven_day: rl ? limit(rl.seven_day) : null,
    },
    problem: null,
  };
}

export interface BudgetFigure {
  scope: string;
  period: string;
  limit_usd: number;
  spent_usd: number | null;
  projected_usd: number | null;
  share: number | null;
  status: 'ok' | 'warn' | 'over' | 'projected_over';
}

/** The figures a line is made of (also the `--format json` document). */
export interface StatusFigures {
  model: { id: string | null; display_name: string | null } | null;
  session: (LiveMetrics & { id: string; claude_estimate_usd: number | null }) | null;
  today: (LiveMetrics & { day: string; harnesses: string[] }) | null;
  block: BlockRow | null;
  rate_limits: { five_hour: LimitReading | null; seven_day: LimitReading | null } | null;
  context_used_percent: number | null;
  budgets: BudgetFigure[];
  /** The numbers are not current (see stale_reason); the line says so. */
  stale: boolean;
  stale_reason: string | null;
  snapshot_age_seconds: number | null;
  /**
   * The few words the line shows after its age when they need the user
   * (`cache not writable`, `store read-only`); null when the line says only
   * `(stale 2m)` or `(updating)`.
   */
  stale_note: string | null;
}

/** `$1.23`, `≥$1.23` when part of it is unpriced, `$?` when nothing is priced. */
function money(m: LiveMetrics | null): string {
  if (!m) return '$?';
  if (m.cost_usd === null) return m.requests ? '$?' : '$0.00';
  return `${m.unpriced_requests ? '≥' : ''}${usd(m.cost_usd, true)}`;
}

const pctText = (v: number) => `${Math.round(v)}%`;

/** The line, segment by segment in the configured order; colours when `color`. */
export function renderStatusLine(f: StatusFigures, cfg: LiveConfig, color: boolean, now: number): string {
  // Every segment's text goes through here: made printable (a model name from
  // stdin, a project in a budget's scope) before its colour is added.
  const P = (role: Parameters<typeof paint>[1], t: string) => paint(cfg, role, printable(t), color);
  const level = (share: number | null) => (share === null ? null : share >= 1 ? 'over' : share >= 0.8 ? 'warn' : null);
  const parts: string[] = [];
  const seg: Record<Segment, () => string | null> = {
    model: () => (f.model ? P('model', f.model.display_name ?? f.model.id ?? '?') : null),
    session: () => {
      if (!f.session) return null;
      const est = f.session.claude_estimate_usd === null ? '' : ` (Claude ${usd(f.session.claude_estimate_usd, true)})`;
      return P('session', `${money(f.session)} session${est}`);
    },
    today: () => (f.today ? P('today', `${money(f.today)} today`) : null),
    block: () => {
      if (!f.block) return f.today ? P('block', 'no active block') : null;
      return P('block', `${money(f.block)} block, ${formatMinutes(f.block.remaining_minutes ?? 0)} left`);
    },
    burn: () =>
      f.block && f.block.cost_usd_per_hour_30m !== null
        ? P(
            'burn',
            `${f.block.cost_per_hour_30m_partial ? '≥' : ''}${usd(f.block.cost_usd_per_hour_30m, true, { perUnit: true })}/h`,
          )
        : null,
    limits: () => {
      const r = f.rate_limits;
      if (!r || (!r.five_hour && !r.seven_day)) return null;
      const one = (label: string, l: LimitReading | null) => {
        if (!l) return null;
        // Its use now, as `limits` and `watch` give it (0 % once the window has reset).
        const used =
          l.resets_at === null
            ? l.used_percent
            : currentUsedPercent({ used_percent: l.used_percent, resets_at: l.resets_at }, now)!;
        const text = `${label} ${pctText(used)}`;
        const lv = level(used / 100);
        return lv ? P(lv, text) : P('limits', text);
      };
      return [one('5h', r.five_hour), one('7d', r.seven_day)].filter(Boolean).join(' ');
    },
    context: () => (f.context_used_percent === null ? null : P('context', `ctx ${pctText(f.context_used_percent)}`)),
    budget: () => {
      const shown = f.budgets.filter((b) => b.spent_usd !== null);
      if (!shown.length) return null;
      return shown
        .map((b) => {
          const text = `${b.period}${b.scope === 'all' ? '' : ` ${b.scope}`} ${Math.round((b.share ?? 0) * 100)}% of ${usd(b.limit_usd, true)}`;
          const lv =
            b.status === 'over' ? 'over' : b.status === 'warn' || b.status === 'projected_over' ? 'warn' : null;
          return lv ? P(lv, text) : P('budget', text);
        })
        .join(' ');
    },
  };
  for (const s of cfg.segments) {
    const t = seg[s]();
    if (t) parts.push(t);
  }
  let line = parts.join(P('separator', ' | '));
  if (f.stale) {
    const age = f.snapshot_age_seconds;
    const note = f.stale_note ?? null;
    const text =
      age === null
        ? (note ?? 'updating')
        : `stale ${age < 60 ? `${Math.round(age)}s` : formatMinutes(age / 60)}${note ? `, ${note}` : ''}`;
    line += (line ? ' ' : '') + P('stale', `(${text})`);
  }
  return line;
}

/** The short line for input that cannot be read. */
export function problemLine(p: InputProblem): string {
  return p === 'empty' ? 'tx-usage: no status input' : 'tx-usage: unreadable status input';
}
