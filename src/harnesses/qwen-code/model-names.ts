// How the price data is asked about a Qwen model. Qwen Code's default
// endpoint is Alibaba's DashScope, which the price data has no provider for;
// OpenRouter lists the same Qwen models (`qwen/qwen3-coder-plus`), at its own
// prices: a near match, named as such in a report's warnings. A name already
// in OpenRouter's `qwen/<model>` form is OpenRouter's own id (DashScope's ids
// have no prefix).
import type { PriceName } from '../types.js';

export function qwenModelNames(name: string): PriceName[] {
  if (/^qwen\//i.test(name))
    return [{ model: name, provider: 'openrouter', how: "OpenRouter's id for the Qwen model" }];
  if (/^qwen/i.test(name))
    return [
      { model: `qwen/${name}`, provider: 'openrouter', how: 'the Qwen model as OpenRouter lists it', near: true },
    ];
  return [];
}
