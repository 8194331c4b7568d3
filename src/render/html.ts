// `--format html`: ONE self-contained file. vega, vega-lite and vega-embed are
// read from node_modules at run time and inlined, the data rides along as an
// inert JSON block, and a Content-Security-Policy forbids every fetch and
// allows only the page's own scripts (by hash), so the file opens from
// file:// without any network access. Every string from the data is escaped:
// HTML entities in markup, \u003c etc. inside the JSON block, and vega draws
// labels as SVG text.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ReportOutput } from '../report/output.js';
import type { Cell, Column, Dataset } from './columns.js';
import { grouped, usd } from './format.js';
import { cellTexts, isPartial, restsOnSessionTotals } from './cells.js';
import { cutText } from './table.js';
import { setHtmlRenderer } from './index.js';
import { chartsToDraw } from './chart-style.js';
import { withHomeAsTilde } from './home-path.js';
import { sha256 } from '../core/digest.js';

/** Text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside <script>: nothing in it can close the element or start markup. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const LIBRARIES = [
  ['vega', 'vega.min.js'],
  ['vega-lite', 'vega-lite.min.js'],
  ['vega-embed', 'vega-embed.min.js'],
] as const;

let libraries: string[] | null = null;

/** The three UMD bundles, as inline-safe script text. */
function libraryScripts(): string[] {
  if (!libraries) {
    const req = createRequire(import.meta.url);
    libraries = LIBRARIES.map(([pkg, file]) => {
      // Each package's entry point lives in its build/ folder, beside the UMD bundle.
      const text = readFileSync(join(dirname(req.resolve(pkg)), file), 'utf8');
      return text
        .replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n') // no map to look for
        .replace(/<\/(script)/gi, '<\\/$1'); // cannot end the element early
    });
  }
  return libraries;
}

const COST_SOURCE_TEXT: Record<string, string> = {
  computed: 'computed from the token counts and published prices',
  recorded: 'as recorded by the harness',
  mixed: 'some costs recorded by the harness and some computed',
  partial: 'only the priced responses: some have no price, so the cost is at least this',
  none: 'no costs known: no response could be priced',
};

const isNumeric = (c: Column) => c.kind === 'int' || c.kind === 'usd' || c.kind === 'pct' || c.kind === 'ratio';

/**
 * A key longer than this is shortened on the page (its full value in the
 * cell's title), by the table's rule for the kind of key (render/table.ts
 * cutText: a path keeps its tail, a title its start): a path over three
 * lines pushed the money columns off the page. Ids (keep `ends`) and periods
 * stay whole: they are copied.
 */
const PAGE_KEY_CHARS = 28;
const pageKey = (c: Column, text: string) =>
  c.whole || c.keep === 'ends' ? text : cutText(text, c.flex ? 2 * PAGE_KEY_CHARS : PAGE_KEY_CHARS, c.keep);
/** A `flex` key (a session's title) wraps, on two lines at most, in the room the others leave: this much of it is counted. */
const FLEX_KEY_PX = 110;

/**
 * The width a table may take at a 1280 px window (main 1280 − 2×16 padding −
 * 2×14 card padding − borders = 1218 px), with room to spare; and what a
 * cell's text takes in the table's font (13 px system-ui, measured in
 * Chromium: digits ≈ 8.3 px, punctuation and narrow letters ≈ 4.6, others
 * ≈ 7.6, headings bold) plus
 * its padding.
 */
const PAGE_TABLE_PX = 1175;
const NARROW_CHARS = new Set([..." -.,:;|!()[]'`ilIj"]);
const textPx = (s: string) =>
  [...s].reduce((w, ch) => w + (ch >= '0' && ch <= '9' ? 8.3 : NARROW_CHARS.has(ch) ? 4.6 : 7.6), 0);
const CELL_PAD_PX = 16;

/**
 * The columns the page shows at first: every column while the table fits a
 * 1280 px window; else the others behind "more columns", leaving in this
 * order: those terminal tables never show (`table: false`), then the
 * wide-only text and times (models, first and last activity), then the
 * wide-only numbers by the terminal's order (Column.wideDrop; among those
 * without one, counts before money, then from the right). Keys and the
 * columns of the 80-column table always stay: what a row is and its money
 * stay in view.
 */
export function pageColumns(cols: readonly Column[], texts: string[][]): Set<number> {
  const longest = (t: string, c: Column) => (c.kind === 'text' ? Math.max(...t.split(', ').map(textPx)) : textPx(t));
  const px = cols.map(
    (c, j) =>
      Math.min(
        c.flex ? FLEX_KEY_PX : Infinity,
        Math.max(textPx(c.label) * 1.08, ...texts.map((r) => longest(r[j]!, c))),
      ) + CELL_PAD_PX,
  );
  const tier = (c: Column) => (c.table === false ? 0 : isNumeric(c) ? 2 : 1);
  const money = (c: Column) => (c.kind === 'usd' ? 1 : 0);
  const order = cols
    .map((c, j) => ({ c, j }))
    .filter(({ c }) => !c.narrow && c.kind !== 'key' && c.html !== 'keep')
    .sort(
      (a, b) =>
        tier(a.c) - tier(b.c) ||
        (a.c.wideDrop ?? Infinity) - (b.c.wideDrop ?? Infinity) ||
        money(a.c) - money(b.c) ||
        b.j - a.j,
    );
  const hidden = new Set<number>();
  let width = px.reduce((a, b) => a + b, 0);
  for (const { j } of order) {
    if (width <= PAGE_TABLE_PX) break;
    hidden.add(j);
    width -= px[j]!;
  }
  return hidden;
}

function renderDataset(all: Dataset, i: number): string {
  // Columns for CSV and JSON only (Column.html) are not in the page.
  const d: Dataset = { ...all, columns: all.columns.filter((c) => c.html !== false) };
  const texts = cellTexts(d, d.columns, 'html');
  const shown = (row: string[]) => row.map((t, j) => (d.columns[j]!.kind === 'key' ? pageKey(d.columns[j]!, t) : t));
  texts.rows = texts.rows.map(shown);
  if (texts.totals) texts.totals = shown(texts.totals);
  const hidden = pageColumns(d.columns, texts.totals ? [...texts.rows, texts.totals] : texts.rows);
  const more = (j: number) => (hidden.has(j) ? ' more' : '');
  const head = d.columns
    .map(
      (c, j) =>
        `<th scope="col" class="${isNumeric(c) ? 'num' : 'txt'}${more(j)}" data-type="${isNumeric(c) ? 'num' : 'txt'}"><button type="button" title="Sort by ${escapeHtml(c.field)}">${escapeHtml(c.label)}</button></th>`,
    )
    .join('');
  const cell = (c: Column, j: number, r: Record<string, Cell>, text: string) => {
    const v = r[c.field];
    const raw = v === null || v === undefined ? '' : String(v);
    const cls = isNumeric(c)
      ? 'num'
      : c.kind === 'key'
        ? c.flex
          ? 'key flex'
          : 'key'
        : c.kind === 'time'
          ? 'txt nw'
          : 'txt';
    // Keys never break (shortened above); a list (models) only after its commas, never at a name's hyphens.
    const shownText =
      c.kind === 'text'
        ? text
            .split(', ')
            .map((t) => `<span class="nw">${escapeHtml(t)}</span>`)
            .join(', ')
        : escapeHtml(text);
    const partial = (isPartial(c, r) ? ' partial' : '') + (restsOnSessionTotals(c, r) ? ' session-total' : '');
    return `<td class="${cls}${partial}${more(j)}" data-v="${escapeHtml(raw)}"${c.kind === 'key' ? ` title="${escapeHtml(raw)}"` : ''}>${shownText}</td>`;
  };
  const body = d.rows
    .map((r, k) => `<tr>${d.columns.map((c, j) => cell(c, j, r, texts.rows[k]![j]!)).join('')}</tr>`)
    .join('\n');
  const foot = d.totals
    ? `<tfoot><tr>${d.columns.map((c, j) => cell(c, j, d.totals!, texts.totals![j]!)).join('')}</tr></tfoot>`
    : '';
  const empty = d.rows.length ? '' : `<p class="empty">${escapeHtml(d.empty ?? 'No usage in this period.')}</p>`;
  const notes = (d.notes ?? []).map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('');
  // Columns left out at first: a checkbox shows them (CSS only: the page's script hash stays fixed).
  const names = [...hidden].sort((a, b) => a - b).map((j) => d.columns[j]!.label);
  const toggle = hidden.size
    ? `<input type="checkbox" class="more-cb" id="more-${i}"><label class="more-toggle" for="more-${i}">${escapeHtml(`${names.length} more column${names.length === 1 ? '' : 's'}: ${names.join(', ')}`)}</label>`
    : '';
  return `<section class="dataset" id="table-${i}">
<h2>${escapeHtml(d.title ?? 'Table')}</h2>
${toggle}<div class="scroll"><table class="sortable">
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>${foot}
</table></div>${empty}${notes}
</section>`;
}

interface Totals {
  requests?: number;
  total_tokens?: number;
  input_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  output_tokens?: number;
  cost_usd?: number | null;
  cost_source?: string;
  unpriced_requests?: number;
  unpriced_tokens?: number;
}

/** The first and last day the report covers (monthly: to `through`, the requested end, not its month's end). */
function reportRange(out: ReportOutput): { first: string; last: string } | null {
  const j = out.json as { since?: string; until?: string; through?: string };
  const last = j.through ?? j.until;
  return j.since && last ? { first: j.since, last } : null;
}

function renderHeader(out: ReportOutput): string {
  const j = out.json as { timezone?: string; totals?: Totals };
  const range = reportRange(out);
  const t = j.totals ?? {};
  const card = (label: string, value: string, detail = '') =>
    `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div>${detail ? `<div class="detail">${escapeHtml(detail)}</div>` : ''}</div>`;
  const src = t.cost_source ?? 'none';
  const known = t.cost_usd !== null && t.cost_usd !== undefined;
  const unpriced = t.unpriced_requests
    ? ` ${grouped(t.unpriced_requests)} response${t.unpriced_requests === 1 ? '' : 's'} (${grouped(t.unpriced_tokens ?? 0)} tokens) without a price are not in it.`
    : '';
  const cards = [
    card(
      'Cost',
      !known ? 'unknown' : `${src === 'partial' ? '≥' : ''}${usd(t.cost_usd!, true)}`,
      `cost source: ${src} — ${COST_SOURCE_TEXT[src] ?? src}.${unpriced}`,
    ),
    card('Requests', grouped(t.requests ?? 0)),
    card(
      'Tokens',
      grouped(t.total_tokens ?? 0),
      `input ${grouped(t.input_tokens ?? 0)} · cache read ${grouped(t.cache_read_tokens ?? 0)} · cache write ${grouped(t.cache_write_tokens ?? 0)} · output ${grouped(t.output_tokens ?? 0)}`,
    ),
  ];
  return `<header>
<p class="brand">tx-usage${out.demo ? ' · <span class="demo">demo: generated sample data</span>' : ''}</p>
<h1>${escapeHtml(out.definition.title)}</h1>
<p class="period">${escapeHtml(`${range?.first ?? ''} – ${range?.last ?? ''}`)} <span class="tz">(${escapeHtml(j.timezone ?? '')})</span></p>
<div class="cards">${cards.join('')}</div>
</header>`;
}

const STYLE = `
:root { --fg:#1d2330; --muted:#5b6475; --line:#dde1e8; --bg:#f6f7f9; --card:#fff; --accent:#3b5bdb; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 16px; }
header { margin-bottom: 16px; }
.brand { margin: 0; color: var(--muted); font-size: 13px; letter-spacing: .04em; text-transform: uppercase; }
h1 { margin: 2px 0 4px; font-size: 26px; line-height: 1.2; }
h2 { font-size: 18px; margin: 0 0 8px; }
.period { margin: 0 0 12px; font-size: 16px; }
.tz { color: var(--muted); }
.cards { display: grid; gap: 12px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 240px), 1fr)); }
.card, figure.chart, section.dataset, .notice { background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.card { padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 13px; }
.card .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .detail { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.notice { padding: 10px 14px; margin: 0 0 16px; }
.notice.warn { border-color: #f0c36d; background: #fffaf0; }
.notice ul { margin: 4px 0 0; padding-left: 20px; }
.notice summary { cursor: pointer; }
.notice li { overflow-wrap: anywhere; white-space: pre-wrap; }
.charts { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); margin-bottom: 16px; }
figure.chart { margin: 0; padding: 12px 14px; min-width: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
.vis { width: 100%; min-height: 60px; }
.vis svg { max-width: 100%; }
section.dataset { padding: 12px 14px; margin-bottom: 16px; }
/* A wide or long table scrolls inside its card, its heading row staying in view. */
.scroll { overflow: auto; max-height: min(75vh, 720px); -webkit-overflow-scrolling: touch; overscroll-behavior: contain; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 7px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { position: sticky; top: 0; z-index: 1; background: var(--card); white-space: nowrap; box-shadow: inset 0 -1px 0 var(--line); }
td.partial { color: #8a4b00; }
td.session-total { font-style: italic; }
.demo { color: #b00020; text-transform: none; letter-spacing: 0; font-weight: 600; }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
th[aria-sort="ascending"] button::after { content: " ▲"; font-size: 10px; }
th[aria-sort="descending"] button::after { content: " ▼"; font-size: 10px; }
.num { text-align: right; white-space: nowrap; }
.txt, .key { text-align: left; }
td.key { white-space: nowrap; }
td.key.flex { white-space: normal; min-width: 7em; }
.nw { white-space: nowrap; }
.more { display: none; }
.more-cb { position: absolute; opacity: 0; }
.more-cb:checked ~ .scroll .more { display: table-cell; }
.more-toggle { display: inline-block; margin: 0 0 6px; color: var(--accent); font-size: 13px; cursor: pointer; }
.more-toggle::before { content: "▸ Show "; }
.more-cb:checked + .more-toggle::before { content: "▾ Hide "; }
.more-cb:focus-visible + .more-toggle { outline: 2px solid var(--accent); }
tfoot td { font-weight: 600; border-top: 2px solid var(--line); }
tbody tr:hover { background: #f0f3fa; }
.note, .empty { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
footer { color: var(--muted); font-size: 12px; padding: 8px 0 24px; }
@media (max-width: 600px) {
  main { padding: 10px; }
  h1 { font-size: 22px; }
  .card .value { font-size: 20px; }
  table { font-size: 12px; }
  th, td { padding: 4px 6px; }
}
@media print {
  @page { margin: 12mm; }
  body { background: #fff; font-size: 10pt; }
  main { max-width: none; padding: 0; }
  .card, figure.chart, section.dataset, .notice { border-color: #bbb; }
  .charts { display: block; }
  figure.chart { break-inside: avoid; page-break-inside: avoid; margin-bottom: 10px; }
  .vis svg { max-width: 100% !important; height: auto !important; }
  .scroll { overflow: visible; max-height: none; }
  table { font-size: 8pt; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  th { position: static; }
  th button::after { content: none !important; }
  .more-cb, .more-toggle { display: none; }
  tbody tr:hover { background: none; }
}
`;

/** Draws the charts and makes the tables sortable. Static: no data in it, so its hash never changes. */
const BOOT = `(function () {
  'use strict';
  var payload = JSON.parse(document.getElementById('tx-usage-data').textContent);
  var config = {
    background: null,
    font: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
    axis: { labelFontSize: 11, titleFontSize: 12, labelColor: '#1d2330', titleColor: '#1d2330' },
    // symbolLimit 0: every model and harness in its legend (Vega drops entries past 30 with a console warning).
    legend: { labelFontSize: 11, titleFontSize: 12, symbolLimit: 0 },
    view: { stroke: null }
  };
  payload.charts.forEach(function (c) {
    var el = document.getElementById(c.el);
    var spec = Object.assign({ width: 'container', height: 240 }, c.spec, {
      data: { values: payload.data[c.data] || [] },
      config: config
    });
    // ast: vega-embed's bundled expression interpreter instead of generated
    // code, so the page's Content-Security-Policy can forbid eval.
    vegaEmbed(el, spec, { actions: false, renderer: 'svg', ast: true })
      .then(function () { el.setAttribute('data-rendered', 'true'); })
      .catch(function (e) {
        el.setAttribute('data-rendered', 'error');
        el.textContent = 'This chart could not be drawn: ' + (e && e.message);
        console.error(e);
      });
  });
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var ths = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths, function (th, i) {
      th.querySelector('button').addEventListener('click', function () {
        var dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending' : 'descending';
        Array.prototype.forEach.call(ths, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var numeric = th.getAttribute('data-type') === 'num';
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[i].getAttribute('data-v'), y = b.cells[i].getAttribute('data-v');
          if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1; // unknown last, either way
          var c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
          return dir === 'ascending' ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();`;

const cspHash = (s: string) => `'sha256-${sha256(s, 'base64')}'`;

/**
 * A page the dashboard (`tx-usage serve`) serves: the same document, with a
 * navigation bar, and its scripts loaded from the process (`asset(name)`,
 * names as htmlAsset takes them) instead of inline, plus the page's own.
 */
export interface ServedPage {
  nav: string;
  asset: (name: string) => string;
  scripts: string[];
}

/** The scripts a served page loads, by name: the libraries and the chart boot. */
export function htmlAsset(name: string): string | null {
  const i = LIBRARIES.findIndex(([, file]) => file === name);
  if (i >= 0) return libraryScripts()[i]!;
  return name === 'boot.js' ? BOOT : null;
}

export function renderHtml(report: ReportOutput, opts: { home?: string; served?: ServedPage } = {}): string {
  const out = withHomeAsTilde(report, opts.home);
  const range = reportRange(out);
  const drawn = chartsToDraw(out.definition.charts ?? [], out.charts, range);
  const charts = drawn.charts.map((c, i) => ({ el: `chart-${i}`, data: c.data, spec: c.spec }));
  const figures = drawn.charts.map((c, i) => {
    const note = c.note ? `<p class="note">${escapeHtml(c.note)}</p>` : '';
    return `<figure class="chart" data-chart="${escapeHtml(c.id)}"><figcaption>${escapeHtml(c.title)}</figcaption><div class="vis" id="chart-${i}"></div>${note}</figure>`;
  });
  const skipped = drawn.skipped;
  const payload = jsonForScript({ charts, data: drawn.data });

  const warnings = out.warnings.length
    ? // Folded under one line (issue 44: a page opened with a screenful of them); opened, each in full.
      `<section class="notice warn"><details><summary><strong>${out.warnings.length === 1 ? '1 warning' : `${out.warnings.length} warnings`}</strong> about what these figures may leave out</summary><ul>${out.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></details></section>`
    : '';
  const skippedNote = skipped.length
    ? `<p class="note">Not drawn, nothing to show yet: ${escapeHtml(skipped.join(', '))}.</p>`
    : '';
  const served = opts.served;
  const scripts = served ? [] : [...libraryScripts(), BOOT];
  const scriptTags = served
    ? [...LIBRARIES.map(([, f]) => f), 'boot.js', ...served.scripts].map(
        (n) => `<script src="${escapeHtml(served.asset(n))}"></script>`,
      )
    : scripts.map((s) => `<script>${s}</script>`);
  const csp = [
    "default-src 'none'",
    served ? "script-src 'self'" : `script-src ${scripts.map(cspHash).join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    "font-src 'none'",
    served ? "connect-src 'self'" : "connect-src 'none'",
    "base-uri 'none'",
    served ? "form-action 'self'" : "form-action 'none'",
  ].join('; ');
  const title = `${out.definition.title} ${range?.first ?? ''} – ${range?.last ?? ''}${out.demo ? ' (demo data)' : ''} · tx-usage`;
  const demo = out.demo ? ' <strong>Demo: made from generated sample data, not from anyone’s files.</strong>' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${served?.nav ?? ''}
${renderHeader(out)}
${warnings}
${figures.length ? `<section class="charts">\n${figures.join('\n')}\n</section>` : ''}
${skippedNote}
${out.datasets.map(renderDataset).join('\n')}
<footer>Generated by tx-usage from local transcript files and databases: token counts, costs, models, projects, session ids, titles and times only — never prompt text, tool output or file contents; paths in your home folder are written ~. Times are in ${escapeHtml((out.json as { timezone?: string }).timezone ?? 'UTC')}. Click a column heading to sort.${demo}</footer>
</main>
<script type="application/json" id="tx-usage-data">${payload}</script>
${scriptTags.join('\n')}
</body>
</html>
`;
}

setHtmlRenderer(renderHtml);
