// The CLI's answers for processes that keep running and ask many questions
// (`serve`, `mcp`): each question is the command's own function (report.ts
// answerReport, limits.ts answerLimits, explain.ts answerExplain, sql.ts
// answerSql), so a figure on the dashboard or in an agent's answer is the one
// `--format json` prints. Questions asked together share one opening of the
// store; every opening brings it up to date as `watch` does (the incremental
// ingest, every source read) and closes it again, so the store's lock is held
// only while questions are answered and a CLI run beside it still works.
// Everything goes through one queue: never two ingests at once.
import { serial } from '../core/serial.js';
import { watchedFolders } from '../live/change-loop.js';
import type { ExplainDocument } from '../explain/explain.js';
import type { LimitsReport } from '../live/limits-view.js';
import type { ExplainArgs } from './explain.js';
import type { LimitsArgs } from './limits.js';
import type { ReportAnswer, ReportArgs, ReportStore } from './report.js';
import type { Runtime } from './runtime.js';

/** The questions that can be asked of one opened store. */
export interface Asker {
  /** `report [name] ... --format json`: the JSON document it prints. */
  report(a: ReportArgs): Promise<Record<string, unknown>>;
  /** The same, whole: JSON, tables and (with `charts`) the chart data sets. */
  reportAnswer(a: ReportArgs, charts?: boolean): Promise<ReportAnswer>;
  /** `limits --format json`. */
  limits(a: LimitsArgs): Promise<LimitsReport>;
  /** `explain ... --format json`. */
  explain(a: ExplainArgs): Promise<ExplainDocument>;
}

export interface Refresh {
  /** The store now reflects sources other than it did after the last opening (ingest digest changed). */
  changed: boolean;
  /** The folders to watch for changes: each harness root found, and the real folders of sources reached through links. */
  folders: string[];
}

export class Answers {
  private readonly queue = serial();
  private digest: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly rt: Runtime) {}

  /** Called after an opening found the sources changed (a transcript grew, a file came or went). */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Questions on one opening of the store, after every question queued before. */
  ask<T>(fn: (q: Asker) => Promise<T>): Promise<T> {
    return this.queue(async () => {
      const s = await this.open();
      try {
        return await fn(this.asker(s.store));
      } finally {
        await s.store.store.close();
      }
    });
  }

  /** The ingest alone (after a change was noticed): whether it changed the store, and what to watch. */
  refresh(): Promise<Refresh> {
    return this.queue(async () => {
      const s = await this.open();
      await s.store.store.close();
      return { changed: s.changed, folders: watchedFolders(s.store.scans) };
    });
  }

  /** `sql --format json` (its own read-only instance in the sandbox, after the store is brought up to date). */
  sql(query: string): Promise<{ names: string[]; rows: Record<string, unknown>[] }> {
    return this.queue(async () => (await import('./sql.js')).answerSql(this.rt, query));
  }

  private async open(): Promise<{ store: ReportStore; changed: boolean }> {
    const { openReportStore } = await import('./report.js');
    const store = await openReportStore(this.rt, null);
    const changed = this.digest !== null && store.digest !== this.digest;
    this.digest = store.digest;
    if (changed) for (const fn of this.listeners) fn();
    return { store, changed };
  }

  private asker(use: ReportStore): Asker {
    const rt = this.rt;
    return {
      async reportAnswer(a, charts = false) {
        const { answerReport } = await import('./report.js');
        return answerReport(rt, { ...a, format: 'json' }, { use, charts });
      },
      async report(a) {
        const r = await this.reportAnswer(a);
        return r.out!.json;
      },
      async limits(a) {
        const { answerLimits } = await import('./limits.js');
        return (await answerLimits(rt, { ...a, format: 'json' }, use)).report;
      },
      async explain(a) {
        const { answerExplain } = await import('./explain.js');
        return answerExplain(rt, { ...a, format: 'json' }, use);
      },
    };
  }
}
