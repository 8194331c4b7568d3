// A reader that goes away early (`tx-usage report | head`) ends the output,
// not the run with an unhandled EPIPE error and its stack trace. What was
// written to the store before stays; the run exits 0, as the reader asked for
// no more.
let installed = false;

export function exitQuietlyWhenStdoutCloses(): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
