// Droid's model setting is an alias (README "Model"): `custom:<name>-<index>`
// under bring-your-own-key, or a catalogue id such as `Claude-Sonnet-4-[Anthropic]`.
// Asked of the price data as ccusage normalises it (`normalize_droid_model_name`):
// `custom:` and the trailing index dropped, `[...]` dropped, lower case, `.` → `-`.
import type { PriceName } from '../types.js';

export function droidModelNames(name: string): PriceName[] {
  let m = name.trim();
  const custom = /^custom:/i.test(m);
  if (custom) m = m.replace(/^custom:/i, '').replace(/-\d+$/, '');
  // A name from the transcript's reminder is spelt with spaces (`Claude Sonnet 4.5 [Anthropic]`): as ccusage, a space is a dash.
  m = m
    .replace(/-?\[[^\]]*\]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .replace(/-+$/, '')
    .toLowerCase()
    .replace(/(\d)\.(\d)/g, '$1-$2');
  return m && m !== name ? [{ model: m, how: "Droid's model alias without its provider tag, in lower case" }] : [];
}
