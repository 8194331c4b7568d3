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

export function grouped(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function usd(n: number | null | undefined, wide: boolean): string {
  if (n === null || n === undefined) return '—';
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(n);
  if (!wide && a >= 10000) return `${sign}$${abbreviate(a)}`;
  if (a > 0 && a < 0.01) return `${sign ? '>-' : '<'}$0.01`;
  return `${sign}$${a.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

export function pct(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return (n * 100).toFixed(1) + '%';
}
