// Copilot CLI spells Claude versions with a dot (`claude-sonnet-4.6`,
// `claude-haiku-4.5`; agentsview#577) where the price data has a hyphen
// (`claude-sonnet-4-6`). Other vendors' dots are their own (`gpt-5.1`).
import type { PriceName } from '../types.js';

export function copilotModelNames(name: string): PriceName[] {
  if (!/^claude-/i.test(name) || !/\d\.\d/.test(name)) return [];
  return [
    { model: name.replace(/(\d)\.(\d)/g, '$1-$2'), how: "Anthropic's spelling of the version (Copilot writes a dot)" },
  ];
}
