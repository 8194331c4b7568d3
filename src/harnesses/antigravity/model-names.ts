// Antigravity's spellings of models, turned into names the price data knows
// (README.md "Model"). Antigravity records an effort-qualified slug
// (`gemini-3.1-pro-low`), a display label (`Gemini 3.1 Pro (High)`) or a
// placeholder (`MODEL_PLACEHOLDER_M26`); the placeholders' meanings are
// ccusage's (ccusage/ccusage@fb4ce58 adapter/antigravity/parser.rs
// `resolve_model_name`), checked against what those ids ran in its users' files.
const PLACEHOLDERS: Record<string, string> = {
  model_placeholder_m26: 'claude-opus-4-6',
  model_placeholder_m35: 'claude-sonnet-4-6',
  model_placeholder_m36: 'gemini-3.1-pro',
  model_placeholder_m37: 'gemini-3.1-pro',
  model_placeholder_m16: 'gemini-3.1-pro',
  model_placeholder_m18: 'gemini-3-flash-preview',
  model_placeholder_m84: 'gemini-3-flash-preview',
  model_placeholder_m47: 'gemini-3-flash-preview',
  model_placeholder_m132: 'gemini-3.5-flash',
  model_placeholder_m133: 'gemini-3.5-flash',
  model_placeholder_m187: 'gemini-3.5-flash',
  model_placeholder_m20: 'gemini-3.5-flash',
  model_openai_gpt_oss_120b_medium: 'gpt-oss-120b',
  'gemini-pro-default': 'gemini-3.1-pro',
  'gemini-pro-agent': 'gemini-3.1-pro',
  'gemini-3-flash-agent': 'gemini-3.5-flash',
  'gemini-3-flash-a': 'gemini-3.5-flash',
  'gemini-3-flash-b': 'gemini-3.5-flash',
  'gemini-3-flash-c': 'gemini-3-flash-preview',
  'gemini-3-flash': 'gemini-3-flash-preview',
};

/** An effort or mode the slug or label adds to the model's name: not part of its price. */
const QUALIFIER = /[-\s]\(?(extra[-\s]low|low|medium|high|thinking)\)?$/;

export function antigravityModelNames(name: string): string[] {
  const out: string[] = [];
  const add = (m: string) => {
    if (m && m !== name && !out.includes(m)) out.push(m);
  };
  let n = name.trim().toLowerCase().replace(/\s+/g, ' ');
  n = PLACEHOLDERS[n] ?? n;
  // A display label: "Gemini 3.1 Pro (High)" -> "gemini-3.1-pro".
  for (let i = 0; i < 3 && QUALIFIER.test(n); i++) n = n.replace(QUALIFIER, '');
  n = n.replace(/ /g, '-');
  add(n);
  // Google lists a Gemini model as "-preview" until it is generally available.
  if (n.startsWith('gemini-') && !n.endsWith('-preview')) add(`${n}-preview`);
  // Claude's version with dots as Anthropic spells it with dashes ("claude-sonnet-4.6" -> "claude-sonnet-4-6").
  if (n.startsWith('claude-')) add(n.replace(/(\d)\.(\d)/g, '$1-$2'));
  return out;
}
