// `tx-usage watch`: a full-screen live view, refreshed when a source grows.
// Orchestration only: each refresh is the status line's (live-refresh.ts:
// the incremental ingest reads the appended bytes only, then the live
// snapshot is made from the store, which is opened for it and closed again
// so that other tx-usage commands are not kept waiting); the screen is
// src/live/watch-screen.ts.
//
// Changes are noticed as src/live/change-loop.ts says (fs.watch on every
// harness root, or polling every 2 s; a refresh at most once a second). `q`
// or Ctrl-C quits and restores the terminal; a resize redraws; the
// clock-driven figures (time left) are redrawn every 15 s.
//
// A store that cannot be written is shown as it holds it, as `report` answers
// from it (runtime.ts answerReadOnly): the footer says so and why, and so
// does stderr with --once (exit 0). A refresh that fails with nothing to show
// (no store, none can be created, a busy store) is the footer of a live
// screen, which tries again on the next change; with --once it is the error
// (exit 1), as for any other command that cannot answer.
import { writeSync } from 'node:fs';
import { isValidTimeZone, systemTimeZone, UsageError } from '../report/period.js';
import { liveConfig } from '../live/config.js';
import { claudeSnapshots } from '../live/claude-limits.js';
import { evaluateBudgets, snapshotSpend } from '../live/budgets.js';
import { currentLimits } from '../live/limits.js';
import { mergeAppended } from '../live/merge.js';
import { renderScreen } from '../live/watch-screen.js';
import type { LiveSnapshot } from '../live/snapshot.js';
import { periodBounds } from '../live/budgets.js';
import { liveView } from '../live/view.js';
import { nowMs } from '../live/clock.js';
import { isHarnessId, HARNESS_IDS } from '../core/types.js';
import { refreshSnapshot } from './live-refresh.js';
import { ChangeLoop, watchedFolders } from '../live/change-loop.js';
import { cacheDir, type Runtime } from './runtime.js';
import { printable, warningLines } from '../render/terminal-text.js';

export interface WatchArgs {
  tz?: string;
  harness?: string;
  /** Draw once and exit (for scripts and tests of the screen). */
  once?: boolean;
  /** Poll instead of fs.watch (file systems whose change notifications do not arrive, e.g. some network mounts). */
  poll?: boolean;
}

const REDRAW_MS = 15_000;

export async function watchCommand(rt: Runtime, a: WatchArgs): Promise<void> {
  const cfg = liveConfig(rt.env, rt.home);
  // A bad statusline.tz (the config file's problem, named by file and key) unless --tz overrides it.
  const badZone = cfg.problems.find((p) => p.includes('"statusline.tz"'));
  if (a.tz === undefined && badZone) throw new UsageError(badZone);
  // A config file that cannot be used at all (not JSON, not an object, a FIFO…) stops it, as it stops reports.
  if (cfg.fileProblem) throw new UsageError(cfg.fileProblem);
  const tz = a.tz ?? cfg.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz))
    throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const families =
    a.harness === undefined
      ? cfg.harnesses
      : a.harness
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  for (const h of families)
    if (!isHarnessId(h))
      throw new UsageError(`--harness ${JSON.stringify(h)}: expected a comma list of ${HARNESS_IDS.join(', ')}`);
  const out = process.stdout;
  if (!a.once && out.isTTY !== true) {
    // Redrawn into a pipe or a file, the screen would pile up until the run
    // is killed (watch(1) and top refuse, or need a batch flag): printed once.
    process.stderr.write(
      'tx-usage watch: standard output is not a terminal, so the screen is printed once (as with --once); run it in a terminal for the live view\n',
    );
    a = { ...a, once: true };
  }
  const tty = out.isTTY === true && !a.once;
  const write = (s: string) => {
    try {
      writeSync(1, s);
    } catch {
      /* the terminal went away */
    }
  };

  let snap: LiveSnapshot | null = null;
  let status = 'reading…';

  const draw = () => {
    const width = Math.max(20, out.columns ?? 80);
    const height = Math.max(5, out.rows ?? 40);
    const now = nowMs(rt.env);
    let lines: string[];
    if (!snap) lines = ['tx-usage watch', '', printable(status)];
    else {
      const view = liveView(snap, mergeAppended(snap, []), { now, tz, families });
      const limits = currentLimits([...snap.limits, ...claudeSnapshots(cacheDir(rt.env, rt.home))]);
      const budgets = evaluateBudgets(cfg.budgets, {
        now,
        tz,
        activeBlocks: view.activeBlocks,
        spent: snapshotSpend(snap, view.events),
      });
      lines = renderScreen({
        view,
        limits,
        budgets,
        width,
        height: tty ? height : 1000,
        color: rt.color,
        status,
        interactive: tty,
      });
    }
    if (tty) write(`\x1b[H\x1b[2J${lines.join('\r\n')}`);
    else write(lines.join('\n') + '\n');
  };

  /** The store's warnings of the last refresh (a read-only store's). */
  let storeWarnings: string[] = [];
  /** The last refresh's error, when it failed. */
  let failure: unknown = null;

  const refresh = async () => {
    const t0 = performance.now();
    const now = nowMs(rt.env);
    failure = null;
    try {
      const r = await refreshSnapshot(
        { ...rt, quiet: true },
        { now, lineHarnesses: ['claude-code'], monthStart: periodBounds('month', now, tz).start },
        snap,
        true,
      );
      snap = r.snapshot;
      storeWarnings = r.storeWarnings;
      if (!a.once) loop.watch(watchedFolders(r.ingest.scans));
      status = storeWarnings.length
        ? `${storeWarnings.join('; ')} · ${loop.mode}`
        : `updated ${new Date().toTimeString().slice(0, 8)} in ${Math.round(performance.now() - t0)} ms (${r.ingest.appended} grew, ${r.ingest.rewritten} read${r.incremental ? '' : ', snapshot from the store'}) · ${loop.mode}`;
    } catch (e) {
      failure = e;
      status = `not updated: ${(e as Error).message}`;
    }
  };

  /** A refresh, then the screen; changes noticed meanwhile make one more (change-loop.ts). */
  const loop = new ChangeLoop(
    async () => {
      await refresh();
      draw();
    },
    { poll: a.poll },
  );

  if (a.once) {
    await refresh();
    // Nothing to show: the error, exit 1 (main.ts), not a screen that only says it.
    if (failure) throw failure;
    draw();
    if (!rt.quiet) process.stderr.write(warningLines(storeWarnings));
    return;
  }

  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const quit = () => {
    loop.close();
    clearInterval(redraw);
    if (tty) {
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
      write('\x1b[?25h\x1b[?1049l');
    }
    process.stdin.pause();
    done();
    // Now, even while a refresh waits for a busy store or is mid-ingest: its
    // transaction is not committed, so the store keeps what it had. The
    // terminal was restored with synchronous writes above.
    process.exit(0);
  };
  if (tty) {
    write('\x1b[?1049h\x1b[?25l');
    out.on('resize', draw);
  }
  if (process.stdin.isTTY) {
    process.stdin.setRawMode(true);
    process.stdin.resume();
    process.stdin.on('data', (d: Buffer) => {
      const k = d.toString('utf8');
      if (k === 'q' || k === 'Q' || k.includes('\x03')) quit();
    });
  }
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  const redraw = setInterval(draw, REDRAW_MS);
  draw();
  void loop.runNow();
  await finished;
}
