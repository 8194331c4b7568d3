// The `watch` screen, as text lines for a terminal `width` columns wide:
// the active block (a bar of its elapsed time, tokens, cost, burn rate,
// projection, plan limits), today's cost per harness, the sessions active in
// the last minutes, the plan limits, the budgets. Tables go through the
// shared table renderer; the block's lines are cut to the width.
import type { Dataset } from '../render/columns.js';
import { abbreviate, usd } from '../render/format.js';
import { COST_PARTIAL } from '../render/columns.js';
import { renderTable } from '../render/table.js';
import type { LiveMetrics } from './blocks.js';
import type { BudgetResult } from './budgets.js';
import { budgetDataset } from './budget-view.js';
import type { LimitWindow } from './limits.js';
import { currentUsedPercent, windowLabel } from './limits.js';
import { formatMinutes, localClock, localMinute } from './time.js';
import type { LiveView } from './view.js';
import { counted } from '../core/plural.js';
import { printable } from '../render/terminal-text.js';

export interface ScreenInput {
  view: LiveView;
  limits: LimitWindow[];
  budgets: BudgetResult[];
  width: number;
  height: number;
  color: boolean;
  /** The footer: when the figures were last brought up to date, and how. */
  status: string;
  /** A live screen that reads keys (`q quits` in the header); false for --once, which has nothing to quit. */
  interactive?: boolean;
}

const BLOCK_MINUTES = 300;

/** Cuts a plain line to `width` characters. */
function fit(s: string, width: number): string {
  return s.length <= width ? s : s.slice(0, Math.max(0, width - 1)) + '…';
}

const money = (m: LiveMetrics) =>
  m.cost_usd === null ? (m.requests ? '$?' : '$0.00') : `${m.unpriced_requests ? '≥' : ''}${usd(m.cost_usd, true)}`;

export function renderScreen(s: ScreenInput): string[] {
  const { view, width, color } = s;
  const bold = (t: string) => (color ? `\x1b[1m${t}\x1b[22m` : t);
  const out: string[] = [];
  const head =
    `tx-usage watch  ${localMinute(view.now, view.tz)} ${view.tz === 'local' ? '' : `(${view.tz})`}`.trimEnd();
  const quit = s.interactive === false ? '' : 'q quits';
  out.push(
    bold(
      fit(
        quit && head.length + quit.length + 2 <= width
          ? head + ' '.repeat(width - head.length - quit.length) + quit
          : head,
        width,
      ),
    ),
  );
  out.push('');
  for (const b of view.blocks) {
    const a = b.active;
    if (!a) {
      out.push(bold(fit(`No active ${b.harness} block`, width)));
      continue;
    }
    const start = Date.parse(a.start);
    const end = Date.parse(a.end);
    out.push(bold(fit(`Active ${b.harness} block  ${localClock(start, view.tz)}–${localClock(end, view.tz)}`, width)));
    const elapsed = a.elapsed_minutes ?? 0;
    const label = ` ${formatMinutes(elapsed)} elapsed, ${formatMinutes(a.remaining_minutes ?? 0)} left`;
    const barWidth = Math.max(10, Math.min(40, width - label.length - 4));
    const filled = Math.min(barWidth, Math.round((elapsed / BLOCK_MINUTES) * barWidth));
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}]`;
    out.push(fit(`  ${bar}${label}`, width));
    out.push(fit(`  ${abbreviate(a.total_tokens)} tokens, ${money(a)}, ${counted(a.requests, 'request')}`, width));
    const burn =
      a.cost_usd_per_hour_30m === null
        ? 'cost unknown'
        : `${a.cost_per_hour_30m_partial ? '≥' : ''}${usd(a.cost_usd_per_hour_30m, true, { perUnit: true })}/h`;
    out.push(fit(`  burn ${abbreviate(a.tokens_per_minute_30m ?? 0)} tokens/min, ${burn} (last 30 min)`, width));
    const proj =
      a.projected_cost_usd === null
        ? 'cost unknown'
        : (a.cost_per_hour_block_partial ? '≥' : '') + usd(a.projected_cost_usd, true);
    out.push(
      fit(
        `  projected ${abbreviate(a.projected_total_tokens ?? 0)} tokens, ${proj} by ${localClock(end, view.tz)}`,
        width,
      ),
    );
    const lim = s.limits.filter((l) => l.harness === b.harness && l.resets_at > view.now);
    if (lim.length)
      out.push(
        fit(
          `  limits ${lim.map((l) => `${windowLabel(l.window_minutes)} ${Math.round(l.used_percent ?? 0)}%`).join(', ')}`,
          width,
        ),
      );
  }
  const table = (d: Dataset) => {
    out.push('');
    for (const l of renderTable(d, { width, color }).trimEnd().split('\n')) out.push(l);
  };
  table({
    title: `Today (${view.today})`,
    columns: [
      { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
      { field: 'requests', label: 'Reqs', kind: 'int', narrow: true },
      { field: 'total_tokens', label: 'Tokens', kind: 'int', narrow: true },
      { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL },
    ],
    rows: view.todayByHarness.map((h) => ({ harness: h.harness, ...h.metrics })),
    totals: view.todayByHarness.length > 1 ? { ...view.todayTotal } : undefined,
  });
  table({
    title: 'Sessions active in the last 10 minutes',
    columns: [
      { field: 'session', label: 'Session', kind: 'key', narrow: true, keep: 'ends' },
      { field: 'harness', label: 'Harness', kind: 'text', narrow: true },
      { field: 'project', label: 'Project', kind: 'key', narrow: true },
      { field: 'last', label: 'Last', kind: 'text', narrow: true },
      { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL },
    ],
    rows: view.recent.map((r) => ({
      session: r.session.slice(0, 8),
      harness: r.harness,
      project: r.project,
      last: localClock(r.last_ts, view.tz),
      ...r.metrics,
    })),
    empty: 'none',
  });
  // Every current limit (currentLimits: the set `limits` shows), each window once, with its use now.
  const limits = s.limits;
  if (limits.length) {
    table({
      title: 'Plan limits',
      columns: [
        { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
        { field: 'window', label: 'Window', kind: 'text', narrow: true },
        { field: 'used', label: 'Used', kind: 'pct', narrow: true },
        { field: 'resets', label: 'Resets', kind: 'text', narrow: true },
      ],
      rows: limits.map((l) => {
        const used = currentUsedPercent(l, view.now);
        return {
          harness: l.harness,
          window: windowLabel(l.window_minutes),
          used: used === null ? null : used / 100,
          resets:
            l.resets_at <= view.now
              ? `reset at ${localMinute(l.resets_at, view.tz)}`
              : localMinute(l.resets_at, view.tz),
        };
      }),
    });
  }
  if (s.budgets.length) table(budgetDataset(s.budgets, color));
  out.push('');
  out.push(fit(printable(s.status), width));
  return out.slice(0, Math.max(1, s.height));
}
