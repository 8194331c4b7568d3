// Number formatting for humans.

export function abbreviate(n: number): string {
  const a = Math.abs(n);
  if (a < 1000) return String(Math.round(n));
  const units: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [v, s] of units) {
    if (a >= v) {
      const x = n / v;
      return (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)) + s;
    }
  }
  return String(n);
}

// grouped() and usd() give what toLocaleString('en-US') gives, written out:
// the first use of Intl costs ~15 ms here (ICU loads its data), which a
// table report in UTC otherwise never pays (report/period.ts).

/** "1234567" → "1,234,567". */
function withCommas(digits: string): string {
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

export function grouped(n: number): string {
  const r = Math.round(n);
  if (!Number.isSafeInteger(r) || Object.is(r, -0)) return r.toLocaleString('en-US');
  return r < 0 ? `-${withCommas(String(-r))}` : withCommas(String(r));
}

/**
 * `a` (≥ 0, finite) with `d` decimals and commas. Like ICU, it rounds the
 * shortest decimal form of the double half away from zero (1.005 → "1.01",
 * which toFixed gives as "1.00").
 */
function fixedDecimals(a: number, d: number): string {
  const text = String(a);
  if (!/^\d+(\.\d+)?$/.test(text)) return a.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const [whole, frac = ''] = text.split('.') as [string, string?];
  let units = BigInt(whole + frac.slice(0, d).padEnd(d, '0'));
  if (frac.length > d && frac[d]! >= '5') units += 1n;
  const digits = units.toString().padStart(d + 1, '0');
  return d === 0 ? withCommas(digits) : `${withCommas(digits.slice(0, -d))}.${digits.slice(-d)}`;
}

const twoDecimals = (a: number) => fixedDecimals(a, 2);

/** Most decimals a money column shows (the store keeps 1e-10 USD). */
const MAX_DECIMALS = 10;

/**
 * One precision for a column of dollar amounts: cents when any amount is $1
 * or more, else four significant digits of the largest. With `distinct`,
 * more decimals until different amounts read differently.
 */
export function usdDecimals(values: readonly number[], distinct = false): number {
  const abs = values.filter((v) => Number.isFinite(v) && v !== 0).map(Math.abs);
  if (!abs.length) return 2;
  const max = Math.max(...abs);
  let d = max >= 1 ? 2 : Math.min(MAX_DECIMALS, Math.max(2, 3 - Math.floor(Math.log10(max))));
  if (distinct) {
    const uniq = [...new Set(abs)];
    while (d < MAX_DECIMALS && new Set(uniq.map((v) => fixedDecimals(v, d))).size < uniq.length) d++;
  }
  return d;
}

/** `n` in dollars with `decimals` decimals; a cents column (2) reads as usd(). */
export function usdWith(n: number, decimals: number, wide: boolean): string {
  if (decimals <= 2) return usd(n, wide);
  const sign = n < 0 ? '-' : '';
  return `${sign}$${fixedDecimals(Math.abs(n), decimals)}`;
}

export function usd(n: number | null | undefined, wide: boolean): string {
  if (n === null || n === undefined) return '—';
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(n);
  if (!wide && a >= 10000) return `${sign}$${abbreviate(a)}`;
  if (a > 0 && a < 0.01) return `${sign ? '>-' : '<'}$0.01`;
  return `${sign}$${twoDecimals(a)}`;
}

export function pct(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return (n * 100).toFixed(1) + '%';
}
