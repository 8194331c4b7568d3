// Cursor's spelling of provider models (its usage CSV), mapped to the
// providers' own names, which the price data knows.

/** Settings Cursor appends to a provider model's name that do not change its per-token price. */
const CURSOR_SETTINGS = /-(?:thinking|max|xhigh|high|medium|low|minimal)$/;

/**
 * The provider's names for a model as Cursor writes it: `claude-4.5-sonnet-thinking`
 * is Anthropic's `claude-sonnet-4-5` (version before family, reasoning and
 * Max Mode as suffixes). Suffixes are peeled one at a time, most specific
 * name first. `-fast` variants are left alone: they are priced apart.
 */
export function cursorModelNames(name: string): string[] {
  const out: string[] = [];
  let n = name.toLowerCase();
  for (;;) {
    const m = /^claude-(\d+)(?:\.(\d+))?-(opus|sonnet|haiku)(-.*)?$/.exec(n);
    if (m) out.push(`claude-${m[3]}-${m[1]}${m[2] ? `-${m[2]}` : ''}${m[4] ?? ''}`);
    const shorter = n.replace(CURSOR_SETTINGS, '');
    if (shorter === n) break;
    out.push(shorter);
    n = shorter;
  }
  return out;
}
