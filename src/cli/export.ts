// `tx-usage export --out DIR`: refresh the store, write it as Parquet for
// team roll-ups (`report --from`) and warehouses (docs/team.md).
import { anonymizeSalt, machineName, readTeamConfig } from '../export/config.js';
import { checkOutDir, exportParquet, type ExportedFile } from '../export/write.js';
import { isValidTimeZone, parseDay, systemTimeZone, todayIn, UsageError } from '../report/period.js';
import { costFunction } from './pricing.js';
import { statSync } from 'node:fs';
import { fsProblem } from '../core/fs-problem.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { counted } from '../core/plural.js';
import { printable } from '../render/terminal-text.js';
import { renderJson } from '../render/json.js';

export interface ExportArgs {
  out: string;
  since?: string;
  until?: string;
  tz?: string;
  machine?: string;
  anonymize?: boolean;
  salt?: string;
  format?: string;
}

/** `--out` must name a folder (made when missing), not a file. */
function checkExportFolder(out: string): void {
  let st;
  try {
    st = statSync(out, { throwIfNoEntry: false });
  } catch (e) {
    throw new UsageError(`--out ${out}: ${fsProblem(e)}`);
  }
  if (st && !st.isDirectory())
    throw new UsageError(`--out ${out}: not a folder; export writes a folder of Parquet files (docs/team.md)`);
}

export async function exportCommand(rt: Runtime, a: ExportArgs): Promise<void> {
  const format = a.format ?? 'table';
  if (!['table', 'json'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table or json`);
  const tz = a.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz))
    throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const today = todayIn(tz);
  // No --since: everything the store holds.
  const since = a.since === undefined ? null : parseDay(a.since, '--since', today, true);
  const until = a.until === undefined ? (since === null ? null : today) : parseDay(a.until, '--until', today);
  if (since && until && since > until) throw new UsageError(`--since ${since} is after --until ${until}`);
  checkExportFolder(a.out);
  const cfg = readTeamConfig(rt.env, rt.home);
  const machine = machineName(a.machine, cfg);
  const salt = anonymizeSalt(a.anonymize === true, a.salt, cfg);

  checkOutDir(a.out); // before the store is refreshed: a wrong --out costs nothing
  const cost = await costFunction(rt);
  const { store } = await openAndRefresh(rt, cost.fn);
  let files: ExportedFile[];
  try {
    files = await exportParquet(store.conn, { outDir: a.out, machine, since, until, tz, salt, home: rt.home });
  } finally {
    await store.close();
  }
  if (format === 'json') {
    process.stdout.write(renderJson({ machine, since, until, timezone: tz, anonymized: salt !== null, files }));
    return;
  }
  if (!files.length) {
    process.stdout.write(
      `nothing to export${since ? ` from ${since} to ${until}` : ''}: the store holds no usage there\n`,
    );
    return;
  }
  for (const f of files) {
    process.stdout.write(
      `${f.status.padEnd(9)} ${printable(f.path)}  (${counted(f.rows, f.dataset === 'events' ? 'event' : 'row')})\n`,
    );
    for (const s of f.superseded)
      process.stdout.write(`removed   ${printable(s)}  (all its rows are in the file above)\n`);
  }
}
