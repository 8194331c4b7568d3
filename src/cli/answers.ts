// The CLI's answers for processes that keep running and ask many questions
// (`serve`, `mcp`): each question is the command's own function (report.ts
// answerReport, limits.ts answerLimits, explain.ts answerExplain, sql.ts
// answerSql), so a figure on the dashboard or in an agent's answer is the one
// `--format json` prints. Questions asked together share one opening of the
// store; every opening brings it up to date as `watch` does (the incremental
// ingest, every source read). Everything goes through one queue: never two
// ingests at once.
//
// What the process keeps between openings: the cost function (the price
// table, made once as `watch` makes it, and again only when a file or
// variable it was made from changes), and, with `lingerMs`, the store itself
// for that long after the last question (a live update is an ingest, then the
// page's reload asking at once: one opening of the store instead of two, see
// docs/internals.md). The store is then closed, so that its lock is held only
// while questions come and a CLI run beside it waits at most that long; it is
// opened anew when the file at the store's path is another (its device and
// inode changed) or gone.
import { statSync } from 'node:fs';
import { serial } from '../core/serial.js';
import { mark } from '../core/trace.js';
import { inputsHold } from '../core/inputs.js';
import { todayIn } from '../report/period.js';
import type { Store } from '../store/store.js';
import type { CostSetup } from './pricing.js';
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

/** The identity of the file at `path` (device and inode), or null when there is none. */
function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

export class Answers {
  private readonly queue = serial();
  private digest: string | null = null;
  private readonly listeners = new Set<() => void>();
  private prices: CostSetup | null = null;
  private held: { store: Store; identity: string | null } | null = null;
  private linger: NodeJS.Timeout | null = null;

  /** `lingerMs`: how long the store stays open after the last question (0: closed after each). */
  constructor(
    private readonly rt: Runtime,
    private readonly o: { lingerMs?: number } = {},
  ) {}

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
        await this.release(s.store.store);
      }
    });
  }

  /** The ingest alone (after a change was noticed): whether it changed the store, and what to watch. */
  refresh(): Promise<Refresh> {
    return this.queue(async () => {
      const s = await this.open();
      await this.release(s.store.store);
      return { changed: s.changed, folders: watchedFolders(s.store.scans) };
    });
  }

  /** `sql --format json` (its own read-only instance in the sandbox, after the store is brought up to date). */
  sql(query: string): Promise<{ names: string[]; rows: Record<string, unknown>[] }> {
    return this.queue(async () => {
      await this.closeHeld(); // the sandbox opens the store itself
      return (await import('./sql.js')).answerSql(this.rt, query);
    });
  }

  /** Closes the store if it is held open (at the end of the process's life). */
  close(): Promise<void> {
    return this.queue(() => this.closeHeld());
  }

  /** The cost function made once, and again when an input it was made from (config, price files, variables) changed. */
  private async costSetup(): Promise<CostSetup> {
    if (this.prices && inputsHold(this.prices.record.inputs, todayIn)) return this.prices;
    const { costFunction } = await import('./pricing.js');
    this.prices = await costFunction(this.rt);
    mark('prices loaded');
    return this.prices;
  }

  private async open(): Promise<{ store: ReportStore; changed: boolean }> {
    if (this.linger) clearTimeout(this.linger);
    this.linger = null;
    const { openReportStore } = await import('./report.js');
    if (this.held && this.held.identity !== fileIdentity(this.rt.dbPath)) await this.closeHeld();
    const held = this.held?.store;
    this.held = null; // the opening owns it now: it answers on it or closes it
    const store = await openReportStore(this.rt, null, { held, prices: () => this.costSetup() });
    const changed = this.digest !== null && store.digest !== this.digest;
    this.digest = store.digest;
    if (changed) for (const fn of this.listeners) fn();
    return { store, changed };
  }

  /** After the questions of an opening: the store kept open for `lingerMs`, or closed now. */
  private async release(store: Store): Promise<void> {
    const ms = this.o.lingerMs ?? 0;
    if (ms <= 0) return store.close();
    this.held = { store, identity: fileIdentity(this.rt.dbPath) };
    this.linger = setTimeout(() => void this.queue(() => this.closeHeld()), ms);
    this.linger.unref();
  }

  private async closeHeld(): Promise<void> {
    if (this.linger) clearTimeout(this.linger);
    this.linger = null;
    const h = this.held;
    this.held = null;
    await h?.store.close();
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
