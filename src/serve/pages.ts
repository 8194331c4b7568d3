// The dashboard's pages, each a report the CLI makes (cli/answers.ts), drawn
// by the HTML report's renderer (render/html.ts) in its served form: a
// navigation bar with the filters, scripts from the process. Filters live in
// the URL (since, until, tz, harness, project, cost), so a view can be
// bookmarked.
import type { Answers, Asker } from '../cli/answers.js';
import type { Dataset } from '../render/columns.js';
import { limitsDatasets } from '../live/limits-view.js';
import type { ReportArgs } from '../cli/report.js';
import { explainTables } from '../explain/datasets.js';
import type { ExplainDocument } from '../explain/explain.js';
import { escapeHtml, renderHtml } from '../render/html.js';
import type { ReportOutput } from '../report/output.js';

export const PAGES = ['overview', 'sessions', 'compare', 'monthly'] as const;
const FILTERS = ['since', 'until', 'tz', 'harness', 'project', 'model', 'cost'] as const;

/** A page's URL (path and query) with the token and the filters of `q`, and `extra`. */
export function pageUrl(path: string, q: URLSearchParams, extra: Record<string, string> = {}): string {
  const u = new URLSearchParams();
  u.set('token', q.get('token') ?? '');
  for (const k of FILTERS) if (q.get(k)) u.set(k, q.get(k)!);
  for (const [k, v] of Object.entries(extra)) u.set(k, v);
  return `${path}?${u}`;
}

function nav(current: string, q: URLSearchParams): string {
  const links = PAGES.map((p) => {
    const path = p === 'overview' ? '/' : `/${p}`;
    return `<a href="${escapeHtml(pageUrl(path, q))}"${p === current ? ' aria-current="page"' : ''}>${p[0]!.toUpperCase() + p.slice(1)}</a>`;
  }).join(' · ');
  const field = (k: string, label: string, placeholder: string) =>
    `<label>${label} <input name="${k}" value="${escapeHtml(q.get(k) ?? '')}" placeholder="${placeholder}" size="10"></label>`;
  const action = current === 'overview' ? '/' : current === 'session' ? '/sessions' : `/${current}`;
  return `<nav class="dash" style="display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;margin-bottom:1em">
<span>${links}</span>
<form method="get" action="${action}" style="display:flex;flex-wrap:wrap;gap:.5em">
<input type="hidden" name="token" value="${escapeHtml(q.get('token') ?? '')}">
${field('since', 'Since', '30d or 2026-11-01')}${field('until', 'Until', 'today')}${field('harness', 'Harness', 'all')}${field('project', 'Project', 'any')}${field('model', 'Model', 'any')}${field('tz', 'Zone', 'system')}
<button type="submit">Apply</button></form>
<span class="live" id="live" style="color:#667">live</span>
</nav>`;
}

/** The report arguments of the URL's filters. */
function filters(q: URLSearchParams): ReportArgs {
  const a: ReportArgs = {};
  for (const k of FILTERS) {
    const v = q.get(k);
    if (v) (a as Record<string, string>)[k] = v;
  }
  return a;
}

/** The explanation of one session as a report output, so the one renderer draws it. */
function sessionOutput(id: string, doc: ExplainDocument): ReportOutput {
  return {
    definition: {
      name: 'session',
      kind: 'summary',
      title: `Session ${id}: each response, its verdict and cost`,
      description: '',
      query: '',
      default_by: [],
      charts: [],
    },
    json: { since: doc.since, until: doc.until, timezone: doc.timezone, totals: doc.totals },
    datasets: explainTables(doc),
    warnings: doc.warnings,
  };
}

/** The HTML of a page, or null for a path that is not one. `asset` makes an asset's URL. */
export async function renderPage(
  answers: Answers,
  path: string,
  q: URLSearchParams,
  home: string,
  asset: (n: string) => string,
): Promise<string | null> {
  const served = (page: string) => ({ nav: nav(page, q), asset, scripts: ['dashboard.js'] });
  const a = filters(q);
  const report = async (page: string, args: ReportArgs, more: (x: Asker) => Promise<Dataset[]> = async () => []) => {
    const [r, extra] = await answers.ask(async (x) => [await x.reportAnswer(args, true), await more(x)] as const);
    if (!r.out) return renderHtml(emptyOutput(r.noData ?? 'No usage found.', r.p.tz), { home, served: served(page) });
    return renderHtml({ ...r.out, datasets: [...r.out.datasets, ...extra] }, { home, served: served(page) });
  };
  switch (path) {
    case '/':
      // Under the period's figures: the 5-hour blocks of today and yesterday, and the plan limits where known.
      return report('overview', { name: 'summary', by: 'project', ...a }, async (x) => {
        const blocks = await x.reportAnswer({ name: 'blocks', since: '1d', tz: a.tz, harness: a.harness });
        const limits = await x.limits({ tz: a.tz });
        const titled = (prefix: string, ds: Dataset[]) =>
          ds.map((d) => ({ ...d, title: d.title?.startsWith(prefix) ? d.title : `${prefix}: ${d.title ?? ''}` }));
        return [
          ...titled('Current 5-hour blocks', blocks.out?.datasets ?? []),
          ...titled('Plan limits', limitsDatasets(limits)),
        ];
      });
    case '/sessions':
      return report('sessions', { name: 'summary', by: 'session', ...a });
    case '/compare':
      return report('compare', { name: 'compare', ...a });
    case '/monthly':
      return report('monthly', { name: 'monthly', ...a });
    case '/session': {
      const id = q.get('id') ?? '';
      const doc = await answers.ask((x) =>
        x.explain({ paths: [id], since: a.since, until: a.until, tz: a.tz, cost: a.cost }),
      );
      return renderHtml(sessionOutput(id, doc), { home, served: served('session') });
    }
    default:
      return null;
  }
}

function emptyOutput(message: string, tz: string): ReportOutput {
  return {
    definition: {
      name: 'empty',
      kind: 'summary',
      title: 'No usage',
      description: '',
      query: '',
      default_by: [],
      charts: [],
    },
    json: { timezone: tz, totals: {} },
    datasets: [],
    warnings: [message],
  };
}
