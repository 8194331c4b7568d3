// Reading Cursor's dashboard usage CSV: the RFC 4180 reader (src/io/csv.ts)
// and the export's rules (src/harnesses/cursor-agent/usage-csv.ts), on
// fixtures written in every header generation with hand-computed totals;
// the bad exports refused at their line and column; Cursor's model names
// priced; imported CSVs and the report horizon.
import { rmSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { badCsvs } from '../../fixtures/cursor-usage/bad.js';
import {
  EXPECTED,
  GENERATIONS,
  ROWS,
  totalsOf,
  usageCsv,
  usageCsvText,
  type Generation,
  type Totals,
} from '../../fixtures/cursor-usage/build.js';
import { parseUsageCsv, usageCsvEvents } from '../../src/harnesses/cursor-agent/usage-csv.js';
import { harnessById } from '../../src/harnesses/registry.js';
import type { SourceKind } from '../../src/harnesses/types.js';
import { usableHorizon } from '../../src/ingest/horizon.js';
import { CsvError, decodeUtf8, parseCsv } from '../../src/io/csv.js';
import { loadPricer } from '../../src/pricing/index.js';
import { candidates } from '../../src/pricing/names.js';
import { cursorModelNames } from '../../src/harnesses/cursor-agent/model-names.js';
import { tempDir } from '../helpers/temp.js';

function caught(f: () => unknown): CsvError {
  try {
    f();
  } catch (e) {
    if (e instanceof CsvError) return e;
    throw e;
  }
  throw new Error('no error thrown');
}

describe('RFC 4180 reader', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and every line end', () => {
    const text = '\uFEFFa,"b,1","say ""hi""",c\r\n"multi\nline",,"",x\rlast,"\r\n",y,z';
    const recs = parseCsv(text);
    expect(recs.map((r) => r.fields)).toEqual([
      ['a', 'b,1', 'say "hi"', 'c'],
      ['multi\nline', '', '', 'x'],
      ['last', '\r\n', 'y', 'z'],
    ]);
    // Lines count the breaks inside quotes; the BOM is not a column.
    expect(recs.map((r) => r.line)).toEqual([1, 2, 4]);
    expect(recs[0]!.at.map((a) => a.column)).toEqual([1, 3, 9, 22]);
    expect(recs[1]!.quoted).toEqual([true, false, true, false]);
  });

  it('refuses what it cannot be sure of, naming line and column', () => {
    expect(caught(() => parseCsv('a,b\nc,d"e\n'))).toMatchObject({
      line: 2,
      column: 4,
      reason: expect.stringMatching(/quote inside an unquoted field/),
    });
    expect(caught(() => parseCsv('a,"b"x,c\n'))).toMatchObject({
      line: 1,
      column: 6,
      reason: expect.stringMatching(/after the closing quote/),
    });
    expect(caught(() => parseCsv('a,b\n1,"open\nstill open'))).toMatchObject({
      line: 2,
      column: 3,
      reason: expect.stringMatching(/never closed/),
    });
  });

  it('names the first byte that is not UTF-8 by line and byte of the line', () => {
    const cases: [number[], number, number][] = [
      [[0x61, 0x0a, 0x62, 0x62, 0xc0, 0x80], 2, 3], // overlong
      [[0x61, 0x2c, 0xed, 0xa0, 0x80], 1, 3], // a UTF-16 surrogate
      [[0x61, 0x0a, 0x0a, 0xe2, 0x82], 3, 1], // cut inside a sequence
      [[0x41, 0xff], 1, 2],
    ];
    for (const [bytes, line, column] of cases)
      expect(caught(() => decodeUtf8(Uint8Array.from(bytes)))).toMatchObject({ line, column });
    expect(decodeUtf8(Buffer.from('Zoë, 日本, 🎉'))).toBe('Zoë, 日本, 🎉');
  });
});

function totalsRead(bytes: Buffer): Totals {
  const csv = parseUsageCsv(bytes);
  const events = usageCsvEvents(csv, '/x.csv');
  const perDay: Record<string, number> = {};
  for (const e of events)
    perDay[new Date(e.ts).toISOString().slice(0, 10)] =
      (perDay[new Date(e.ts).toISOString().slice(0, 10)] ?? 0) + e.requests;
  const costs = events.map((e) => e.recorded_cost_usd).filter((c): c is number => c !== null);
  const units = events.map((e) => e.request_units).filter((c): c is number => c !== null && c !== undefined);
  return {
    billed: events.reduce((n, e) => n + e.requests, 0),
    noUsage: csv.rows.filter((r) => r.noUsage).length,
    cacheWrite: events.reduce((n, e) => n + e.cache_write_tokens, 0),
    input: events.reduce((n, e) => n + e.input_tokens, 0),
    cacheRead: events.reduce((n, e) => n + e.cache_read_tokens, 0),
    output: events.reduce((n, e) => n + e.output_tokens, 0),
    recordedCost: costs.length ? Math.round(costs.reduce((a, b) => a + b, 0) * 1e6) / 1e6 : null,
    requestUnits: units.length ? Math.round(units.reduce((a, b) => a + b, 0) * 1e6) / 1e6 : null,
    perDay,
  };
}

describe('Cursor usage CSV, every header generation', () => {
  const gens = Object.keys(GENERATIONS) as Generation[];

  it('the hand-computed totals agree with the rows summed by code', () => {
    for (const g of gens) expect(totalsOf(ROWS, g), g).toEqual(EXPECTED[g]);
  });

  for (const g of gens) {
    it(`${g}: ${GENERATIONS[g].join(',').slice(0, 60)}… reads to the hand-computed totals, however it is written`, () => {
      for (const o of [
        {},
        { bom: true },
        { quoteAll: false },
        { eol: '\r\n' as const },
        { eol: '\r' as const, blankLines: true },
        { bom: true, quoteAll: false, eol: '\r\n' as const, blankLines: true },
      ]) {
        expect(totalsRead(usageCsv(g, ROWS, o)), `${g} ${JSON.stringify(o)}`).toEqual(EXPECTED[g]);
      }
    });
  }

  it('keeps Kind, uncached input apart from cache writes, and one request per row', () => {
    const [e] = usageCsvEvents(parseUsageCsv(usageCsv('v3', [ROWS[1]!])), '/x.csv');
    expect(e).toMatchObject({
      harness: 'cursor-agent',
      model: 'claude-4.6-opus-high-thinking',
      ts: Date.parse('2026-11-03T10:00:00.000Z'),
      requests: 1,
      input_tokens: 0,
      cache_write_tokens: 21_865,
      cache_read_tokens: 68_608,
      output_tokens: 3_043,
      recorded_cost_usd: 0.42,
      billing_kind: 'On-Demand',
      session_id: ROWS[1]!.cloudAgent,
      source_line: 2,
    });
  });

  it('a row is the same response in every generation; identical rows of a file are told apart', () => {
    const keys = (g: Generation) =>
      usageCsvEvents(parseUsageCsv(usageCsv(g)), `/${g}.csv`)
        .map((e) => e.dedupe_key)
        .sort();
    const v3 = keys('v3');
    for (const g of ['v1', 'v2', 'user', 'requests'] as Generation[]) expect(keys(g), g).toEqual(v3);
    expect(new Set(v3).size).toBe(5);
    expect(v3.filter((k) => k.includes('claude-4.6-opus')).map((k) => k.slice(-2))).toEqual(['#0', '#1']);
  });

  it('reads the forms of dates, costs and counts Cursor and spreadsheets write', () => {
    const header = 'Date,Kind,Model,Input (w/ Cache Write),Input (w/o Cache Write),Cache Read,Output Tokens,Cost\n';
    const rows = [
      ['2026-11-03T10:00:00Z', '$1,234.56', 1_234.56],
      ['2026-11-03 10:00:00', 'Included', null],
      ['2026-11-03T12:00:00.5+02:00', '-', null],
      ['1793700000000', '', null],
      ['2026-11-03T10:00:00.123456Z', 'free', null],
    ] as const;
    const text = header + rows.map(([d, c]) => `${d},On-Demand,gpt-5,0,"1,000",0,1,"${c}"`).join('\n');
    const csv = parseUsageCsv(Buffer.from(text));
    expect(csv.rows.map((r) => r.ts)).toEqual([
      Date.parse('2026-11-03T10:00:00Z'),
      Date.parse('2026-11-03T10:00:00Z'),
      Date.parse('2026-11-03T10:00:00.500Z'),
      1_793_700_000_000,
      Date.parse('2026-11-03T10:00:00.123Z'),
    ]);
    expect(csv.rows.map((r) => r.cost)).toEqual(rows.map((r) => r[2]));
    expect(csv.rows.every((r) => r.input === 1000)).toBe(true);
  });

  it('an errored row with zero tokens but a charge is billed; one without tokens or charge is not', () => {
    const header =
      'Date,Kind,Model,Input (w/ Cache Write),Input (w/o Cache Write),Cache Read,Output Tokens,Total Tokens,Requests\n';
    const csv = parseUsageCsv(
      Buffer.from(
        header +
          '2026-11-03T10:00:00Z,"Errored, No Charge",gpt-5,0,0,0,0,0,0\n2026-11-03T10:00:01Z,Errored,gpt-5,,,,,,0.5\n',
      ),
    );
    expect(csv.rows.map((r) => r.noUsage)).toEqual([true, false]);
    expect(usageCsvEvents(csv, '/x.csv').map((e) => e.request_units)).toEqual([0.5]);
  });

  it('the token-only export (no Kind, Total or Cost) is read, with no recorded cost', () => {
    const csv = parseUsageCsv(
      Buffer.from(
        'Date,Model,Input (w/ Cache Write),Input (w/o Cache Write),Cache Read,Output Tokens\n2026-11-03T10:00:00.000Z,gpt-5,10,20,30,40\n',
      ),
    );
    expect(usageCsvEvents(csv, '/x.csv')).toMatchObject([
      {
        cache_write_tokens: 10,
        input_tokens: 20,
        cache_read_tokens: 30,
        output_tokens: 40,
        recorded_cost_usd: null,
        billing_kind: null,
      },
    ]);
  });

  it('an export with a header and no rows holds nothing; an empty file is an error', () => {
    expect(parseUsageCsv(Buffer.from(GENERATIONS.v3.join(',') + '\n')).rows).toEqual([]);
    expect(caught(() => parseUsageCsv(Buffer.from('\n\n')))).toMatchObject({
      line: 1,
      reason: expect.stringMatching(/empty/),
    });
  });
});

describe('Cursor usage CSV, bad input', () => {
  for (const b of badCsvs()) {
    it(`${b.name}: refused at line ${b.line}, column ${b.column}`, () => {
      const e = caught(() => parseUsageCsv(b.bytes));
      expect({ line: e.line, column: e.column }).toEqual({ line: b.line, column: b.column });
      expect(e.reason).toMatch(b.message);
    });
  }
});

describe("Cursor's model names priced as the provider's", () => {
  it('peels reasoning / effort / Max Mode suffixes and reorders claude version and family', () => {
    expect(cursorModelNames('claude-4.5-sonnet-thinking')).toEqual([
      'claude-sonnet-4-5-thinking',
      'claude-4.5-sonnet',
      'claude-sonnet-4-5',
    ]);
    expect(cursorModelNames('claude-4-opus-max')).toEqual(['claude-opus-4-max', 'claude-4-opus', 'claude-opus-4']);
    expect(cursorModelNames('gpt-5-high')).toEqual(['gpt-5']);
    expect(cursorModelNames('gpt-5-fast')).toEqual([]); // priority tier: priced apart, never as gpt-5
    expect(candidates('claude-4.5-sonnet', null, 'claude-code').some((c) => c.model === 'claude-sonnet-4-5')).toBe(
      false,
    );
  });

  it('a usage CSV row of claude-4.5-sonnet-thinking gets the computed cost of claude-sonnet-4-5', async () => {
    const cacheDir = tempDir('txu-pricing-');
    onTestFinished(() => rmSync(cacheDir, { recursive: true, force: true }));
    const pricer = await loadPricer({ cacheDir });
    const at = {
      provider: null,
      ts: Date.parse('2026-11-03T10:00:00Z'),
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      reasoning_tokens: 0,
    };
    const cursor = pricer.cost({
      ...at,
      harness: 'cursor-agent',
      model: 'claude-4.5-sonnet-thinking',
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
    });
    const anthropic = pricer.cost({
      ...at,
      harness: 'claude-code',
      model: 'claude-sonnet-4-5',
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
    });
    expect(anthropic).not.toBeNull();
    expect(cursor).toBe(anthropic);
    expect(
      pricer.cost({ ...at, harness: 'cursor-agent', model: 'composer-1', input_tokens: 10, output_tokens: 10 }),
    ).toBeNull();
  });
});

describe('imported CSVs and the report horizon', () => {
  it('leave the horizon usable (they resolve no projects); a Cursor chat store does not', () => {
    const harness = harnessById('cursor-agent')!;
    const scan = (kind: SourceKind) => [
      { harness, roots: [], sources: [{ harness: 'cursor-agent' as const, key: 'k', path: '/k', kind }] },
    ];
    expect(usableHorizon(scan('csv'), 1_000)).toBe(1_000);
    expect(usableHorizon(scan('sqlite'), 1_000)).toBeNull();
  });
});
