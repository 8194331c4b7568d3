// What the HTML page adds to a chart definition's vega-lite spec before it is
// drawn: one fixed colour per harness in every chart (models and token kinds
// draw from other palettes, so a colour never means two things), a daily
// axis that spans the report's whole range (not just the days with usage),
// and responses without a price left out of cost charts, named in a note
// instead of appearing as empty legend entries.
import { HARNESSES } from '../harnesses/registry.js';
import { resolveChart, type ChartData, type ChartDef, type ChartRow } from '../report/charts.js';

/** Models: a palette of their own (none of the harness colours above). */
const MODEL_SCHEME = 'tableau20';
/**
 * Token kinds and cost components, each its own colour, none a harness's: the
 * two cache kinds sit side by side in every bar, so they differ in hue as well
 * as lightness (pale blue for reads, sand for writes), not two near blues.
 */
export const KIND_COLORS: Record<string, string> = {
  'uncached input': '#08519c',
  'cache read': '#9ecae1',
  'cache write': '#e0a458',
  output: '#525252',
  unattributed: '#bdbdbd',
};

type Spec = Record<string, unknown>;
type Encoding = Record<string, Record<string, unknown> | undefined>;

/**
 * The colour scale for a nominal colour field. `drawn`: the values of the
 * field in the rows the chart draws. A fixed mapping (harnesses, token kinds)
 * is cut to them, so the legend lists only what has data in the chart while
 * each keeps its colour.
 */
function colorScale(field: string, drawn: ReadonlySet<unknown>): Record<string, unknown> | null {
  const fixed = (pairs: [string, string][]) => {
    const shown = pairs.filter(([v]) => drawn.has(v));
    return { domain: shown.map(([v]) => v), range: shown.map(([, c]) => c) };
  };
  // One colour per harness (Harness.chartColor), the same in every chart of every report.
  if (field === 'harness') return fixed(HARNESSES.map((h) => [h.id, h.chartColor]));
  if (field === 'model') return { scheme: MODEL_SCHEME };
  if (field === 'kind' || field === 'component') return fixed(Object.entries(KIND_COLORS));
  return null;
}

/** `YYYY-MM-DD` as a vega-lite DateTime at UTC midnight (the daily charts draw days as UTC dates). */
function dateTime(day: string, plusDays = 0): Record<string, unknown> {
  const d = new Date(Date.parse(`${day}T00:00:00Z`) + plusDays * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, date: d.getUTCDate(), hours: 0, utc: true };
}

export interface StyledChart {
  spec: Spec;
  /** Said under the chart: what it leaves out. */
  note: string | null;
}

/**
 * The spec as the page draws it. `range`: the report's first and last day
 * (daily charts span it); `rows`: the chart's data.
 */
export function styleChart(
  def: ChartDef,
  spec: Spec,
  rows: readonly ChartRow[],
  range: { first: string; last: string } | null,
): StyledChart {
  const encoding: Encoding = { ...((spec.encoding as Encoding | undefined) ?? {}) };
  const out: Spec = { ...spec, encoding };
  // The rows drawn: a cost chart leaves out those without a cost (below).
  const drawnRows =
    def.needs && JSON.stringify(spec).includes(`"field":"${def.needs}"`)
      ? rows.filter((r) => r[def.needs!] !== null && r[def.needs!] !== undefined)
      : rows;
  // A value with data in the chart: a row of it with a measure other than 0 (a bar of 0 draws nothing).
  const measures = (['x', 'y'] as const)
    .map((a) => encoding[a])
    .filter((e) => e?.type === 'quantitative' && typeof e.field === 'string')
    .map((e) => e!.field as string);
  const values = (field: string, legend = true) =>
    new Set(
      drawnRows
        .filter((r) => !legend || !measures.length || measures.some((m) => Number(r[m] ?? 0) !== 0))
        .map((r) => r[field]),
    );
  // The nominal field a bar is named by: its colour, else its category axis.
  const color = encoding.color;
  if (color && typeof color.field === 'string') {
    const scale = colorScale(color.field, values(color.field, color.legend !== null));
    if (scale) encoding.color = { ...color, scale: { ...((color.scale as object | undefined) ?? {}), ...scale } };
  } else {
    // One bar per harness without a colour field of its own: coloured as its harness anyway.
    for (const axis of ['x', 'y'] as const) {
      if (encoding[axis]?.field === 'harness')
        encoding.color = {
          field: 'harness',
          type: 'nominal',
          legend: null,
          scale: colorScale('harness', values('harness', false)),
        };
    }
  }
  for (const axis of ['x', 'y'] as const) {
    const e = encoding[axis];
    if (range && e?.field === 'day' && e.type === 'temporal') {
      encoding[axis] = {
        ...e,
        scale: { ...((e.scale as object | undefined) ?? {}), domain: [dateTime(range.first), dateTime(range.last, 1)] },
      };
    }
  }
  let note: string | null = null;
  // A cost chart drawn as written (some costs known): rows without a cost are left out, by name.
  const measure = def.needs;
  const drawsMeasure = measure && JSON.stringify(spec).includes(`"field":"${measure}"`);
  if (measure && drawsMeasure && rows.some((r) => r[measure] === null || r[measure] === undefined)) {
    out.transform = [
      { filter: `isValid(datum[${JSON.stringify(measure)}])` },
      ...((spec.transform as unknown[] | undefined) ?? []),
    ];
    const nameField = [color?.field, encoding.y?.field, encoding.x?.field].find(
      (f): f is string => typeof f === 'string' && f !== measure && rows.some((r) => typeof r[f] === 'string'),
    );
    if (nameField) {
      const priced = new Set(
        rows.filter((r) => r[measure] !== null && r[measure] !== undefined).map((r) => r[nameField]),
      );
      const left = [...new Set(rows.filter((r) => !priced.has(r[nameField])).map((r) => String(r[nameField])))].sort();
      if (left.length) note = `Not drawn, no price known: ${left.join(', ')}.`;
    }
  }
  return { spec: out, note };
}

/**
 * A `height: {step}` becomes step × the number of bars: vega-lite warns about
 * a step height beside a container width ("Dropping fit-y") though it draws it.
 */
function fixedHeight(spec: Record<string, unknown>, rows: readonly ChartRow[]): Record<string, unknown> {
  const h = spec.height as { step?: number } | undefined;
  const y = (spec.encoding as { y?: { field?: string } } | undefined)?.y?.field;
  if (!h || typeof h !== 'object' || typeof h.step !== 'number' || !y) return spec;
  const bars = new Set(rows.map((r) => r[y])).size;
  return { ...spec, height: Math.max(1, bars) * h.step };
}

/** One chart as a page draws it: the styled vega-lite spec (without data), the data set it draws, its title and note. */
export interface ChartToDraw {
  id: string;
  title: string;
  data: string;
  spec: Spec;
  note: string | null;
}

/**
 * The charts of a definition as a page draws them (the HTML report, the
 * dashboard): each resolved against its data (as written, its fallback, or
 * left out: `skipped`), styled, with the data sets they use.
 */
export function chartsToDraw(
  defs: readonly ChartDef[],
  sets: ChartData | undefined,
  range: { first: string; last: string } | null,
): { charts: ChartToDraw[]; data: ChartData; skipped: string[] } {
  const charts: ChartToDraw[] = [];
  const skipped: string[] = [];
  const data: ChartData = {};
  for (const def of defs) {
    const rows = sets?.[def.data];
    const chart = resolveChart(def, rows);
    if (!chart) {
      skipped.push(def.title);
      continue;
    }
    const styled = styleChart(def, chart.spec, rows!, range);
    charts.push({
      id: def.id,
      title: chart.title,
      data: def.data,
      spec: fixedHeight(styled.spec, rows!),
      note: styled.note,
    });
    data[def.data] = rows!;
  }
  return { charts, data, skipped };
}
