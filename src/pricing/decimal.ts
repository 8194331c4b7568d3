// Exact decimals for prices and costs: a bigint coefficient and a power-of-ten
// scale (value = coef / 10^scale). Prices in the data are JS numbers written as
// short decimal literals (3.75, 0.3, 3e-06); their shortest round-trip string
// IS the intended decimal, so parsing String(n) recovers it without float drift.

export interface Dec {
  coef: bigint;
  scale: number;
}

/** Digits after the point in every cost string we produce. */
export const COST_DIGITS = 10;

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  if (n < 0) throw new RangeError(`pow10(${n})`);
  for (let i = POW10.length; i <= n; i++) POW10.push(i === 0 ? 1n : POW10[i - 1]! * 10n);
  return POW10[n]!;
}

/** Parses a finite non-negative number or numeric string ("0.000003", "3e-6", "12") exactly; null when not one. */
export function parseDec(v: unknown): Dec | null {
  let s: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return null;
    s = String(v);
  } else if (typeof v === 'string') {
    s = v.trim();
  } else {
    return null;
  }
  const m = /^\+?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return null;
  const int = m[1] ?? '';
  const frac = m[2] ?? '';
  const exp = m[3] ? Number(m[3]) : 0;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  const coef = BigInt((int + frac).replace(/^0+(?=\d)/, '') || '0');
  let scale = frac.length - exp;
  if (scale < 0) return normalize({ coef: coef * pow10(-scale), scale: 0 });
  return normalize({ coef, scale });
}

/** Drops trailing zero digits so equal values have equal representations. */
export function normalize(d: Dec): Dec {
  let { coef, scale } = d;
  if (coef === 0n) return { coef: 0n, scale: 0 };
  while (scale > 0 && coef % 10n === 0n) {
    coef /= 10n;
    scale--;
  }
  return { coef, scale };
}

/** d × 10^k (k may be negative), exact. */
export function shift(d: Dec, k: number): Dec {
  return k >= 0
    ? d.scale >= k
      ? normalize({ coef: d.coef, scale: d.scale - k })
      : { coef: d.coef * pow10(k - d.scale), scale: 0 }
    : normalize({ coef: d.coef, scale: d.scale - k });
}

/** a × b, exact. */
export function mulDec(a: Dec, b: Dec): Dec {
  return normalize({ coef: a.coef * b.coef, scale: a.scale + b.scale });
}

/** Rescales an amount coef/10^scale to exactly COST_DIGITS fractional digits (half-up; amounts are never negative). */
export function roundToCostUnits(coef: bigint, scale: number): bigint {
  if (scale <= COST_DIGITS) return coef * pow10(COST_DIGITS - scale);
  const div = pow10(scale - COST_DIGITS);
  const q = coef / div;
  return (coef % div) * 2n >= div ? q + 1n : q;
}

/** "0.0518", "12", "0.0000000001": units of 1e-10 as a decimal string without trailing zeros. */
export function formatCostUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const scale = pow10(COST_DIGITS);
  const frac = (abs % scale).toString().padStart(COST_DIGITS, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${abs / scale}${frac ? '.' + frac : ''}`;
}

/** Plain decimal string of a Dec ("3.75", "0.000003"). */
export function formatDec(d: Dec): string {
  const n = normalize(d);
  if (n.scale === 0) return n.coef.toString();
  const s = n.coef.toString().padStart(n.scale + 1, '0');
  return `${s.slice(0, s.length - n.scale)}.${s.slice(s.length - n.scale)}`;
}
