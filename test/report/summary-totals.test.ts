// Summary totals are summed from the grouped rows: exact, and null costs stay null.
import { expect, it } from 'vitest';
import { sumTemplateRows } from '../../src/report/summary.js';

it('sums counts and 1e-10 USD costs exactly, keeping unknown costs null', () => {
  const rows = [
    {
      requests: '2',
      input_tokens: '9007199254740000',
      cache_read_tokens: '0',
      cache_write_tokens: '0',
      output_tokens: '1',
      reasoning_tokens: '0',
      total_tokens: '9007199254740001',
      usage_events: '2',
      priced_events: '1',
      recorded_events: '0',
      cost_e10: '1',
      computed_cost_e10: '1',
      recorded_cost_e10: null,
    },
    {
      requests: '3',
      input_tokens: '991',
      cache_read_tokens: '5',
      cache_write_tokens: '7',
      output_tokens: '2',
      reasoning_tokens: '1',
      total_tokens: '1005',
      usage_events: '3',
      priced_events: '3',
      recorded_events: '3',
      cost_e10: '30000000000000000001',
      computed_cost_e10: null,
      recorded_cost_e10: '30000000000000000001',
    },
  ];
  const t = sumTemplateRows(rows);
  expect(t).toMatchObject({
    requests: '5',
    input_tokens: '9007199254740991',
    total_tokens: '9007199254741006',
    priced_events: '4',
    recorded_events: '3',
  });
  expect(t.cost_e10).toBe('30000000000000000002');
  expect(t.computed_cost_e10).toBe('1');
  expect(sumTemplateRows([]).cost_e10).toBeNull();
  expect(sumTemplateRows([]).requests).toBe('0');
});
