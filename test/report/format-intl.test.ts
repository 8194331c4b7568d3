// Numbers and UTC dates are formatted without Intl (render/format.ts,
// report/period.ts) and must read exactly as Intl writes them: Intl is the
// reference here, over ties, carries, large values and every day of years.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { grouped, usd } from '../../src/render/format.js';
import { isValidTimeZone, todayIn } from '../../src/report/period.js';

const intlUsd = (n: number) =>
  `${n < 0 ? '-' : ''}$${Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** A deterministic stream of numbers in [0, 1). */
function* random(seed: number): Generator<number> {
  let x = seed >>> 0;
  for (;;) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    yield x / 2 ** 32;
  }
}

describe('number formats without Intl', () => {
  it('grouped() is toLocaleString of the rounded number', () => {
    const values = [
      0,
      1,
      -1,
      999,
      1000,
      -1000,
      999_999,
      1_000_000,
      123_456_789,
      -987_654_321,
      2 ** 53 - 1,
      -(2 ** 53) + 1,
      2 ** 53 + 2,
      1e21,
      0.4,
      -0.4,
      0.5,
      -0.5,
      1.5,
      -2.5,
      Number.NaN,
      Infinity,
    ];
    const r = random(7);
    for (let i = 0; i < 2000; i++) values.push((r.next().value - 0.5) * 10 ** Math.floor(r.next().value * 16));
    for (const v of values) expect(grouped(v), String(v)).toBe(Math.round(v).toLocaleString('en-US'));
  });

  it('usd() rounds like Intl: the shortest decimal form, half away from zero', () => {
    const values = [
      0,
      -0,
      0.01,
      0.015,
      0.025,
      0.125,
      1.005,
      1.015,
      2.675,
      9.995,
      99.995,
      999.995,
      1234.5,
      9999.994,
      9999.995,
      12_345.675,
      1e15 + 0.5,
      1e20,
      1.23e21,
      -0.015,
      -1.005,
      -9.995,
    ];
    const r = random(11);
    for (let i = 0; i < 3000; i++) {
      const cents = Math.floor(r.next().value * 10 ** (2 + Math.floor(r.next().value * 9)));
      values.push(
        cents / 100,
        (cents + 0.5) / 100,
        -(cents + 0.5) / 100,
        (cents * 10 + 5) / 1000,
        r.next().value * 10 ** Math.floor(r.next().value * 12),
      );
    }
    for (const v of values) {
      if (Math.abs(v) > 0 && Math.abs(v) < 0.01) continue; // shown as <$0.01
      expect(usd(v, true), String(v)).toBe(intlUsd(v));
    }
    expect(usd(0.004, true)).toBe('<$0.01');
    expect(usd(12_345, false)).toBe('$12.3k');
  });
});

describe('UTC without Intl', () => {
  it('todayIn("UTC") is the day Intl gives, at both ends of every day of several years', () => {
    const fmt = (d: Date) => {
      const parts = new Intl.DateTimeFormat('en-CA', {
        timeZone: 'UTC',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      }).formatToParts(d);
      const get = (t: string) => parts.find((p) => p.type === t)!.value;
      return `${get('year')}-${get('month')}-${get('day')}`;
    };
    for (let t = Date.UTC(2016, 0, 1); t < Date.UTC(2031, 0, 1); t += 86_400_000) {
      for (const d of [new Date(t), new Date(t + 86_399_999)]) expect(todayIn('UTC', d)).toBe(fmt(d));
    }
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Not/AZone')).toBe(false);
  });

  it('the system zone under TZ=UTC is what Intl resolves it to', () => {
    const period = pathToFileURL(resolve(__dirname, '../../dist/src/report/period.js')).href;
    const script = `import { systemTimeZone } from ${JSON.stringify(period)}; console.log(JSON.stringify([systemTimeZone(), Intl.DateTimeFormat().resolvedOptions().timeZone]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, TZ: 'UTC' },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    const [ours, intl] = JSON.parse(r.stdout) as [string, string];
    expect(ours).toBe(intl);
  });
});
