// `tx-usage serve`: the local dashboard (src/serve/). Prints the URL to open
// (with its token) and opens nothing; Ctrl-C stops it.
import { UsageError } from '../report/period.js';
import { startDashboard } from '../serve/server.js';
import { Answers } from './answers.js';
import type { Runtime } from './runtime.js';

export async function serveCommand(rt: Runtime, a: { port?: number; poll?: boolean }): Promise<void> {
  if (a.port !== undefined && (!Number.isInteger(a.port) || a.port < 1 || a.port > 65535))
    throw new UsageError(`--port ${JSON.stringify(a.port)}: expected a port number from 1 to 65535`);
  // The store kept open 1.5 s after the last question: a live update's ingest and the pages' reloads that follow share one opening (cli/answers.ts).
  const answers = new Answers({ ...rt, quiet: true }, { lingerMs: 1500 });
  const d = await startDashboard(answers, { port: a.port, home: rt.home, poll: a.poll });
  process.stdout.write(`tx-usage dashboard: ${d.url}\n(open it in a browser; Ctrl-C stops it)\n`);
  await new Promise<void>((resolve) => {
    const stop = () =>
      void d
        .close()
        .then(() => answers.close())
        .then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
