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
  if (!/^\d+(\.\d+)?$/.test(text))
    return a.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const [whole, frac = ''] = text.split('.') as [string, string?];
  let units = BigInt(whole + frac.slice(0, d).padEnd(d, '0'));
  if (frac.length > d && frac[d]! >= '5') units += 1n;
  const digits = units.toString().padStart(d + 1, '0');
  return d === 0 ? withCommas(digits) : `${withCommas(digits.slice(0, -d))}.${digits.slice(-d)}`;
}

/** Significant digits of a figure per unit of work under $1 (a request's cost: $0.05940). */
const UNIT_DIGITS = 4;
/** Most decimals a dollar figure shows (the store keeps 1e-10 USD). */
const MAX_DECIMALS = 10;

export interface MoneyStyle {
  /** A figure per unit of work (per request, prompt, record, hour, 1 % of a limit): under $1, four significant digits. */
  perUnit?: boolean;
  /** A change: a positive one says `+`. */
  signed?: boolean;
}

/**
 * THE rule for dollar figures, in every table, HTML page, compare and live
 * view (README "Money"): an amount shows cents ($1,234.56), `<$0.01` when it
 * is not zero but under a cent; a figure per unit of work under $1 shows four
 * significant digits ($0.05940, $0.3508, $0.0001400), cents from $1 up. The
 * same value reads the same wherever it is shown. Unknown is `—`.
 */
/** `wide` false: the 80-column table, where $10,000 and more read abbreviated ($12.3k). */
export function usd(n: number | null | undefined, wide = true, style: MoneyStyle = {}): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  const sign = n < 0 ? '-' : style.signed && n > 0 ? '+' : '';
  const a = Math.abs(n);
  if (!wide && a >= 10000) return `${sign}$${abbreviate(a)}`;
  if (style.perUnit && a > 0 && a < 1) {
    const d = Math.min(MAX_DECIMALS, UNIT_DIGITS - 1 - Math.floor(Math.log10(a)));
    // Rounding may carry into one more digit (0.99996 → 1.000): cents then, as from $1 up.
    const text = fixedDecimals(a, d);
    if (Number(text) < 1) return `${sign}$${text}`;
  }
  if (a > 0 && a < 0.01) return `${n < 0 ? '>-' : '<'}$0.01`;
  return `${sign}$${fixedDecimals(a, 2)}`;
}

/**
 * A dollar amount in CSV: the number with at most 10 decimals (the store's
 * 1e-10 USD), trailing zeros dropped, so float arithmetic's noise
 * (`6.200000000000003`) is not written; exact to every fraction a price has.
 */
export function csvUsd(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const t = n.toFixed(MAX_DECIMALS).replace(/\.?0+$/, '');
  return t === '-0' ? '0' : t;
}

/** `signed`: a change, a positive one with its `+`. */
export function pct(n: number | null | undefined, signed = false): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const text = (n * 100).toFixed(1) + '%';
  return signed && n > 0 && text !== '0.0%' ? `+${text}` : text;
}
