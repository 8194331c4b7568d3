// Money as integers of 1e-10 USD, so that sums never drift.
import { COST_SCALE } from '../store/schema.js';

const FRACTION_DIGITS = 10;

/** '12.34' | 12.34 → 123400000000n. Extra fractional digits are rounded half-up. */
export function usdToE10(v: string | number): bigint {
  const s = typeof v === 'number' ? v.toFixed(FRACTION_DIGITS + 1) : v.trim();
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(s);
  if (!m) throw new Error(`not a decimal amount: ${s}`);
  if (m[4]) return usdToE10(Number(s).toFixed(FRACTION_DIGITS + 1));
  const neg = m[1] === '-';
  const int = m[2] || '0';
  const frac = (m[3] ?? '').padEnd(FRACTION_DIGITS + 1, '0');
  let units = BigInt(int) * BigInt(COST_SCALE) + BigInt(frac.slice(0, FRACTION_DIGITS));
  if (Number(frac[FRACTION_DIGITS]) >= 5) units += 1n;
  return neg ? -units : units;
}

/** Exact decimal string of an e10 amount (from DuckDB: string, bigint or number). */
export function e10ToDecimal(v: string | bigint | number): string {
  let b = BigInt(v);
  const neg = b < 0n;
  if (neg) b = -b;
  const scale = BigInt(COST_SCALE);
  const frac = (b % scale).toString().padStart(FRACTION_DIGITS, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${b / scale}${frac ? '.' + frac : ''}`;
}

/** A JSON-friendly number for an e10 amount (rounded to 1e-10, i.e. exact within double precision for realistic sums). */
export function e10ToUsd(v: string | bigint | number | null | undefined): number | null {
  if (v === null || v === undefined) return null;
  return Number(e10ToDecimal(v));
}
