// Plain-text rendering of Pricer.describe() for `tx-usage prices show MODEL`.

type Price = string | { base: string; tiers: { start: number; price: string }[] };

function priceText(p: Price): string {
  if (typeof p === 'string') return p;
  return [p.base, ...p.tiers.map((t) => `over ${t.start} input tokens: ${t.price}`)].join('; ');
}

function priceLines(prices: Record<string, Price> | null | undefined, indent: string): string[] {
  if (!prices) return [`${indent}(none)`];
  const w = Math.max(...Object.keys(prices).map((k) => k.length));
  return Object.entries(prices).map(([k, v]) => `${indent}${k.padEnd(w)}  ${priceText(v)}`);
}

export function renderDescription(model: string, d: any): string {
  if (!d)
    return `${model}: no price found (neither in the price data nor in a --prices file); its cost is reported as unknown, not $0\n`;
  const out: string[] = [];
  out.push(`${d.model}${d.provider ? ` (provider ${d.provider})` : ''} at ${d.at}`);
  if (d.error) {
    out.push(`  error: ${d.error}`);
    return out.join('\n') + '\n';
  }
  if (d.source === 'override') {
    out.push(`  matched: override entry "${d.matched.entry}" in ${d.matched.file}`);
  } else {
    const m = d.matched;
    out.push(
      `  matched: ${m.provider_id} / ${m.model_id} "${m.model_name}" (looked up as ${m.looked_up_as.model}${m.looked_up_as.provider ? ` under ${m.looked_up_as.provider}` : ''}: ${m.looked_up_as.why})`,
    );
    // In the words of the report's warning (cli/pricing.ts nearMatchWarnings), which sends the user here.
    if (m.near_match)
      out.push(
        `  near match: "${d.model}" has no price entry of its own: it is priced as "${m.model_id}" (${m.provider_id}, the nearest entry); price it with --prices FILE (LiteLLM format) if that is not its price`,
      );
    out.push(`  data: ${d.data}`);
  }
  out.push('  USD per million tokens (*_kcount: per 1000 requests or searches):');
  out.push(...priceLines(d.prices_usd_per_mtok, '    '));
  if (Array.isArray(d.price_periods)) {
    out.push('  price periods:');
    for (const p of d.price_periods) {
      const c = p.constraint;
      const when = !c ? 'default' : c.start_date ? `from ${c.start_date}` : `daily ${c.start_time}–${c.end_time}`;
      out.push(`    ${when}:`);
      out.push(
        ...(typeof p.prices_usd_per_mtok === 'string'
          ? [`      ${p.prices_usd_per_mtok}`]
          : priceLines(p.prices_usd_per_mtok, '      ')),
      );
    }
  }
  if (d.notes?.length) {
    out.push('  notes:');
    for (const n of d.notes) out.push(`    - ${n}`);
  }
  return out.join('\n') + '\n';
}
