// OpenClaw session transcript → usage events. OpenClaw writes its transcripts
// with pi's own SessionManager, so pi's reader does the work (its rules, keys
// and model tree); this dialect says what OpenClaw adds (README.md beside this
// file, each rule with its evidence).
import { extractPiSession, type PiDialect } from '../pi/extract.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export const OPENCLAW_DIALECT: PiDialect = {
  harness: 'openclaw',
  markers: ['"model-snapshot"'],
  // README "Model": `custom` entries with customType "model-snapshot" record the
  // model a run switched to (data.modelId / data.provider), as model_change does.
  namesModel(rec) {
    if (
      rec.type !== 'custom' ||
      rec.customType !== 'model-snapshot' ||
      rec.data === null ||
      typeof rec.data !== 'object'
    )
      return null;
    const model = str(rec.data.modelId) ?? str(rec.data.model);
    return model && model !== 'delivery-mirror' ? [model, str(rec.data.provider)] : null;
  },
  notBilled(m) {
    // README "Not billed: delivery mirrors": a reply OpenClaw sent to a channel,
    // appended as an assistant message with model "delivery-mirror" and zero usage.
    if (m.model === 'delivery-mirror' || m.openclawDeliveryMirror !== undefined)
      return 'delivery mirror (a sent reply copied into the transcript, no model call)';
    // README "Not billed here: CLI backends": a turn run by a local CLI
    // (claude-cli, codex-cli); that CLI's own transcript holds its billed responses.
    if (m.api === 'cli' || (typeof m.provider === 'string' && m.provider.endsWith('-cli')))
      return 'CLI backend turn (billed in that CLI’s own transcripts)';
    return null;
  },
  // README "Archives and copies": backups and checkpoint twins repeat records of the transcript.
  copyOf: (source) => source.meta?.role === 'copy',
};

export function extractOpenclaw(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  return extractPiSession(source, sink, opts, OPENCLAW_DIALECT);
}
