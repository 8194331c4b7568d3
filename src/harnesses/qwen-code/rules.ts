// The rules that count a Qwen Code response, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`).
import { RULE as GEMINI_RULE } from '../gemini-cli/rules.js';

export const RULE = {
  apiResponse: 'api_response record',
  withoutApiResponse: 'assistant usage without its api_response',
  legacy: GEMINI_RULE.legacy,
} as const;
