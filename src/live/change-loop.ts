// Refreshes when a harness's files change: what `watch` and `serve` share.
// Changes are noticed with fs.watch on every harness root (recursive), or,
// where that is not available (or with `poll`), by a refresh every 2 s; a
// refresh starts at most once a second, one at a time, and changes noticed
// during one make exactly one more after it.
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { ScanFacts } from '../ingest/stamp.js';

const MIN_REFRESH_MS = 1000;
const POLL_MS = 2000;

/**
 * The roots, and the real folders of sources reached through a linked
 * folder (a recursive watch does not follow links into them).
 */
export function watchedFolders(scans: readonly ScanFacts[]): string[] {
  const out = new Set<string>();
  for (const s of scans) {
    for (const x of s.roots) if (x.exists) out.add(x.path);
    for (const src of s.sources) if (src.key !== src.path && isAbsolute(src.key)) out.add(dirname(src.key));
  }
  return [...out];
}

export class ChangeLoop {
  /** How changes are noticed, for a status line: `fs.watch` or `polling every 2 s`. */
  mode: string;
  private readonly watchers: FSWatcher[] = [];
  private polling: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private last = 0;

  /** `refresh`: one refresh (it should not throw: what failed is its to show). */
  constructor(
    private readonly refresh: () => Promise<void>,
    private readonly o: { poll?: boolean } = {},
  ) {
    this.mode = o.poll ? 'polling every 2 s' : 'fs.watch';
  }

  /** A refresh now (or, while one runs, one more after it). */
  runNow(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = this.refresh()
      .catch(() => undefined)
      .then(() => {
        this.last = Date.now();
        this.running = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    this.running = run;
    return run;
  }

  /** A refresh soon: now, or when the last one is a second old. */
  schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.runNow();
      },
      Math.max(0, this.last + MIN_REFRESH_MS - Date.now()),
    );
  }

  /** Starts noticing changes under `folders` (once; later calls do nothing). */
  watch(folders: string[]): void {
    if (this.watchers.length || this.polling) return;
    if (this.o.poll) return this.fallback();
    try {
      for (const r of folders) {
        const w = fsWatch(r, { recursive: true, persistent: true }, () => this.schedule());
        w.on('error', () => this.fallback());
        this.watchers.push(w);
      }
    } catch {
      this.fallback();
    }
  }

  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
    if (this.polling) clearInterval(this.polling);
    if (this.timer) clearTimeout(this.timer);
    this.polling = this.timer = null;
  }

  private fallback(): void {
    for (const w of this.watchers.splice(0)) w.close();
    if (this.polling) return;
    this.mode = 'polling every 2 s';
    this.polling = setInterval(() => this.schedule(), POLL_MS);
  }
}
