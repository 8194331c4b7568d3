// One entry point from a report's output to text in the requested format.
import type { ReportOutput } from '../report/definitions.js';
import { renderCsv } from './csv.js';
import { renderJson } from './json.js';
import { renderTable, type TableOptions } from './table.js';

export const FORMATS = ['table', 'json', 'csv', 'html'] as const;
export type Format = (typeof FORMATS)[number];

export type HtmlRenderer = (out: ReportOutput) => string;
let html: HtmlRenderer | null = null;
/** The HTML renderer registers itself (it is heavy: vega bundles). */
export function setHtmlRenderer(r: HtmlRenderer): void {
  html = r;
}

export function renderOutput(format: Format, out: ReportOutput, table: TableOptions): string {
  switch (format) {
    case 'json':
      return renderJson(out.json);
    case 'csv':
      return renderCsv(out.datasets[0]!);
    case 'table':
      return out.datasets.map((d) => renderTable(d, table)).join('\n');
    case 'html':
      if (!html) throw new Error('the HTML renderer is not available in this build');
      return html(out);
    default:
      return format satisfies never;
  }
}
