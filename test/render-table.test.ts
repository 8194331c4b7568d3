// Terminal table details: which end of a long key survives, and signed money.
import { expect, it } from 'vitest';
import { renderTable } from '../src/render/table.js';
import { usd } from '../src/render/format.js';

it('keeps the end of a path and the start of a model name when shortening keys', () => {
  const out = renderTable(
    {
      columns: [
        { field: 'project', label: 'Project', kind: 'key', narrow: true },
        { field: 'model', label: 'Model', kind: 'key', narrow: true },
        { field: 'n', label: 'N', kind: 'int', narrow: true },
      ],
      rows: [{ project: '/home/someone/src/a-very-long-project-name/webshop', model: 'claude-sonnet-5-5-20261001-with-a-suffix', n: 1 }],
    },
    { width: 40, color: false },
  );
  const row = out.split('\n')[2]!;
  expect(row).toMatch(/^…\S*webshop\s/);
  expect(row).toMatch(/\sclaude-\S*…\s/);
  for (const l of out.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(40);
});

it('writes the sign before the dollar', () => {
  expect(usd(-12.65, false)).toBe('-$12.65');
  expect(usd(12.65, false)).toBe('$12.65');
  expect(usd(-0.001, false)).toBe('>-$0.01');
  expect(usd(-25000, false)).toBe('-$25.0k');
});
