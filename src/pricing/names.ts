// Which (model name, provider id) pairs to ask the price data about, in order,
// for a model name as a harness wrote it.
//
// The library already handles plain ids, dated suffixes (-20250929 and
// -2025-09-29), `claude-opus-5-5`, `gpt-5-codex` (an alias of gpt-5) and
// OpenRouter-style `vendor/model` ids under provider `openrouter`. What it
// does not do is peel the provider prefixes Pi and OpenCode put in front
// (`anthropic/claude-…`, `openrouter/anthropic/claude-…`) or fall back when a
// harness's provider id is not one it knows (`opencode`, a custom gateway).
import type { HarnessId } from '../core/types.js';
import { harnessById } from '../harnesses/registry.js';

export interface Candidate {
  model: string;
  provider: string | undefined;
  /** Why this attempt exists, shown by `prices show`. */
  how: string;
  /** The entry found this way prices another seller's listing of the model: a report names it as a near match. */
  near?: boolean;
}

/** Display-only suffixes some tools append (`claude-opus-4-6[1m]`). */
const BRACKET_SUFFIX = /\[[^\]]*\]$/;

export function candidates(rawModel: string, rawProvider: string | null, harness: HarnessId | null): Candidate[] {
  const model = rawModel.trim();
  const provider = rawProvider?.trim() || undefined;
  // What the harness says of its models (Harness.pricing).
  const pricing = harness === null ? undefined : harnessById(harness)?.pricing;
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (m: string, p: string | undefined, how: string, near?: true) => {
    if (!m) return;
    const key = `${p ?? ''}\u0000${m.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(near ? { model: m, provider: p, how, near } : { model: m, provider: p, how });
  };
  const names = [model];
  const unbracketed = model.replace(BRACKET_SUFFIX, '');
  if (unbracketed !== model) names.push(unbracketed);

  for (const name of names) {
    // 1. Exactly as recorded, with the recorded (or harness-implied) provider.
    if (provider) add(name, provider, `provider ${provider}`);
    const hint = provider ? undefined : (pricing?.providerHint ?? undefined);
    if (hint) add(name, hint, `${harness} talks to ${hint}`);
    // 2. Provider prefixes in the name: `a/b/model` → provider a with `b/model`, then provider b with `model`.
    const parts = name.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      const prefix = parts[i]!;
      const rest = parts.slice(i + 1).join('/');
      if (prefix) add(rest, prefix, `provider prefix ${prefix}/`);
    }
    // 3. Bedrock ids (`us.anthropic.claude-…-v1:0`) under AWS.
    if (/(^|[./])anthropic\.claude/i.test(name)) add(name.split('/').pop()!, 'aws', 'Bedrock model id');
    // 4. The model name alone: the library infers the provider from the name.
    add(name, undefined, 'model name');
    for (let i = 1; i < parts.length; i++)
      add(parts.slice(i).join('/'), undefined, 'model name without provider prefix');
    // 5. The harness's own spellings of the model (Cursor's usage CSV, Qwen's DashScope ids).
    for (const alt of pricing?.modelNames?.(name) ?? []) add(alt.model, alt.provider, alt.how, alt.near);
  }
  return out;
}

/** Names an override entry may be keyed under for this usage, most specific first (all lower case). */
export function overrideKeys(rawModel: string, rawProvider: string | null): string[] {
  const model = rawModel.trim().toLowerCase();
  const provider = rawProvider?.trim().toLowerCase();
  const keys: string[] = [];
  const add = (k: string) => {
    if (k && !keys.includes(k)) keys.push(k);
  };
  const bases = [model, model.replace(BRACKET_SUFFIX, '')];
  for (const b of bases) {
    if (provider && !b.startsWith(`${provider}/`)) add(`${provider}/${b}`);
    add(b);
    const parts = b.split('/');
    for (let i = 1; i < parts.length; i++) add(parts.slice(i).join('/'));
  }
  // Dated snapshots priced like their undated model: `…-20250929`, `…-2025-09-29`, `…@20250929`.
  for (const k of [...keys]) {
    const undated = k.replace(/[-@]20\d{2}-?\d{2}-?\d{2}$/, '');
    if (undated !== k) add(undated);
  }
  return keys;
}

/** A dated snapshot suffix (`-20250929`, `-2025-09-29`, `@20250929`) or `-latest`. */
const SNAPSHOT_SUFFIX = /(?:[-@]20\d{2}-?\d{2}-?\d{2}|-latest)$/;

/** The forms of a model name that name the same model: as written, without a display tag, snapshot date, Bedrock region and version. */
function sameModelForms(name: string): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    if (!s) return;
    out.add(s);
    out.add(s.replace(SNAPSHOT_SUFFIX, ''));
  };
  const n = name.trim().toLowerCase();
  for (const base of [n, n.replace(BRACKET_SUFFIX, '')]) {
    add(base);
    // Bedrock: `us.anthropic.claude-…-v1:0`.
    const bedrock = base.replace(/^(?:[a-z]{2,6}\.)?anthropic\./, '').replace(/-v\d+(?::\d+)?$/, '');
    if (bedrock !== base) add(bedrock);
  }
  return [...out];
}

type MatchClause = Record<string, unknown>;

/**
 * Whether `name` names the price entry it matched (its id, an alias the entry
 * lists, or one of those with a snapshot date) rather than merely beginning
 * like one: `claude-sonnet-5-5` matches the `claude-sonnet-5` entry through
 * its `starts_with` rule, but is another model, priced by a near match.
 */
export function namesEntry(name: string, entry: { id: string; match?: unknown }): boolean {
  const forms = sameModelForms(name);
  const same = (v: string) => {
    const w = v.toLowerCase();
    return forms.some((f) => f === w || f.replace(/\./g, '-') === w.replace(/\./g, '-'));
  };
  if (same(entry.id) || same(entry.id.replace(/-latest$/, ''))) return true;
  const exact = (c: unknown): boolean => {
    if (!c || typeof c !== 'object') return false;
    const m = c as MatchClause;
    if (Array.isArray(m.or)) return m.or.some(exact);
    if (Array.isArray(m.and)) return false; // a combination of partial rules: never the name itself
    for (const k of ['equals', 'starts_with', 'ends_with', 'contains'] as const)
      if (typeof m[k] === 'string' && same(m[k] as string)) return true;
    if (typeof m.regex === 'string') {
      try {
        const re = new RegExp(m.regex, 'i');
        return forms.some((f) => re.test(f) && (re.exec(f)?.[0] ?? '') === f);
      } catch {
        return false;
      }
    }
    return false;
  };
  return exact(entry.match);
}
