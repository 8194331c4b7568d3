// Phase marks for performance work: with TX_USAGE_TRACE set, each mark is
// printed to stderr with the milliseconds since the process started and the
// process's resident memory at that moment (what each phase holds).
const on = !!process.env.TX_USAGE_TRACE;

export function mark(label: string): void {
  if (on)
    process.stderr.write(
      `trace ${performance.now().toFixed(1).padStart(7)} ms ${(process.memoryUsage.rss() / 1048576).toFixed(0).padStart(4)} MB  ${label}\n`,
    );
}
