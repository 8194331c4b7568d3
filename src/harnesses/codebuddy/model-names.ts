// CodeBuddy's spellings of models, turned into names the price data knows
// (README.md "Model"). `providerData.model` is Tencent's MaaS slug
// (`MaaS_Cl_Opus_4.7_20260416_cache`); `requestModelId` the product's alias
// (`claude-opus-4.7-1m`). Both are reduced to the vendor's model name.
const FAMILY: Record<string, string> = {
  cl: 'claude',
  ds: 'deepseek',
  gm: 'gemini',
  gpt: 'gpt',
  glm: 'glm',
  kimi: 'kimi',
  qw: 'qwen',
};

export function codebuddyModelNames(name: string): string[] {
  const out: string[] = [];
  const add = (m: string) => {
    if (m && m !== name && !out.includes(m)) out.push(m);
  };
  let n = name.trim();
  const maas = /^MaaS_([A-Za-z]+)_(.+)$/i.exec(n);
  if (maas) {
    // MaaS_<family>_<model>[_<yyyymmdd>][_cache]
    const family = FAMILY[maas[1]!.toLowerCase()] ?? maas[1]!.toLowerCase();
    n = `${family}_${maas[2]!}`.replace(/_\d{8}(?=_|$)/g, '').replace(/_cache$/i, '');
  }
  n = n.toLowerCase().replace(/[_\s]+/g, '-');
  // A context-window variant ("-1m") is the same model.
  n = n.replace(/-(1m|200k)$/, '');
  add(n);
  if (n.startsWith('claude-')) add(n.replace(/(\d)\.(\d)/g, '$1-$2'));
  return out;
}
