// The rules that count a Claude Code response, by the names its README states
// under "Rule names" (billing.ts RULE: UsageEvent.rule, ExtractSink.merged;
// `tx-usage explain`), and the order that picks a response's counted line
// among its split lines and copies, in this extractor and in the store alike.
import { LARGEST_USAGE_FIRST } from '../dedupe.js';

export { RULE } from './billing.js';

export const WINNER_ORDER = LARGEST_USAGE_FIRST;
