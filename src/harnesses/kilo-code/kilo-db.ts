// Kilo CLI's kilo.db is OpenCode's database (Kilo CLI is an OpenCode fork;
// README.md "Kilo CLI"): OpenCode's reader reads it, and what it finds is
// Kilo Code's.
import type { SessionFact, SourceLocation, UsageEvent, WorkUnit } from '../../core/types.js';
import { extractOpencode } from '../opencode/extract.js';
import { RULE as OPENCODE_RULE } from '../opencode/rules.js';
import { RULE } from './rules.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';

export function extractKiloDb(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint | null> {
  const harness = 'kilo-code' as const;
  const mine: ExtractSink = {
    ...sink,
    event: (e: UsageEvent) =>
      sink.event({
        ...e,
        harness,
        rule: e.rule === OPENCODE_RULE.fork1x ? RULE.dbFork : e.requests === 0 ? RULE.dbResidual : RULE.dbMessage,
      }),
    unit: (u: WorkUnit) => sink.unit({ ...u, harness }),
    sessionFact: (f: SessionFact) => sink.sessionFact({ ...f, harness }),
    sessionEstimate: (e) => sink.sessionEstimate({ ...e, harness }),
    context: (c) => sink.context({ ...c, harness }),
    // Named, as the spread above leaves out a class sink's methods (explain's TraceSink).
    warn: (m, at, o) => sink.warn(m, at, o),
    skip: (reason, at) => sink.skip(reason, at),
    count: (name, n) => sink.count(name, n),
    ...(sink.unparsable ? { unparsable: (at: SourceLocation) => sink.unparsable!(at) } : {}),
  };
  return extractOpencode({ ...source, harness: 'opencode' }, mine, opts);
}
