// Usage objects on Claude Code records that are not billed responses: each
// is named in `tx-usage sources` by a reason the README's "What counts"
// states, never left out without a word (no silent zeros).
import { usageObjectPath } from '../../core/usage-object.js';

/** A user record with a usage object: an Agent tool result's summary (toolUseResult.usage) of the subagent's last response. */
export const SKIP_USER_RECORD_USAGE =
  "usage summary on a tool result (the subagent's responses count in its own transcript)";
/** attachment/queued_command.attachment.usage {totalTokens, toolUses, durationMs} (contract `claude-code`, usage). */
export const SKIP_TASK_SUMMARY =
  'background task usage summary on an attachment (its responses count in its own transcript)';
/** progress records of older versions nest the subagent's assistant records (data.message.message.usage). */
export const SKIP_PROGRESS_COPY = "subagent progress copy of a response (counted in the subagent's transcript)";

/**
 * Why a parsed record other than `assistant` that holds a usage object is
 * not counted; null when it holds none. Its type is named when it is a plain
 * identifier (never text from the record otherwise).
 */
export function notBilledUsageReason(rec: Record<string, unknown>): string | null {
  const where = usageObjectPath(rec);
  if (where === null) return null;
  if (rec.type === 'attachment') return SKIP_TASK_SUMMARY;
  if (rec.type === 'progress') return SKIP_PROGRESS_COPY;
  if (rec.type === 'user') return SKIP_USER_RECORD_USAGE;
  const type = typeof rec.type === 'string' && /^[a-z][a-z0-9_-]{0,39}$/i.test(rec.type) ? `"${rec.type}"` : 'untyped';
  return `usage on a ${type} record, not an assistant response (only assistant responses are billed)`;
}
