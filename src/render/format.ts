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
 * `a` (≥ 0.01, finite) with two decimals and commas. Like ICU, it rounds the
 * shortest decimal form of the double half away from zero (1.005 → "1.01",
 * which toFixed gives as "1.00").
 */
function twoDecimals(a: number): string {
  const text = String(a);
  if (!/^\d+(\.\d+)?$/.test(text)) return a.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const [whole, frac = ''] = text.split('.') as [string, string?];
  let cents = BigInt(whole + frac.slice(0, 2).padEnd(2, '0'));
  if (frac.length > 2 && frac[2]! >= '5') cents += 1n;
  const digits = cents.toString().padStart(3, '0');
  return `${withCommas(digits.slice(0, -2))}.${digits.slice(-2)}`;
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
