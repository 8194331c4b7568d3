// `node dist/bench/many-files.js [--files 100000] [--projects 100] [--home DIR] [--cli PATH]... [--runs 1]`:
// a first ingest of many small Claude Code transcripts (issue 47: 100k files
// peaked at 991 MB). Builds the home with the fixture builders (a few
// responses per file, spread over `--projects` project folders), or reuses
// `--home` when it was built before (a `many-files.json` beside it says what
// it holds), then runs a cold `ingest` with each CLI given (default: this
// build's bin), interleaved, and prints CPU time (user + sys), peak RSS and
// wall time, and checks the totals against the builders' ledger.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pickMetrics } from '../fixtures/all-harnesses.js';
import { buildManyFiles, type ManyFiles } from '../fixtures/many-files.js';
import { measure, median } from './measure.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const THIS_CLI = join(ROOT, 'dist/src/cli/fast.cjs');

type Built = ManyFiles;

/** The home, with `many-files.json` beside it saying what it holds. */
function buildHome(home: string, files: number, projects: number): Built {
  const built = buildManyFiles(home, files, projects);
  writeFileSync(join(home, 'many-files.json'), JSON.stringify(built));
  return built;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '100000' },
      projects: { type: 'string', default: '100' },
      home: { type: 'string' },
      cli: { type: 'string', multiple: true },
      runs: { type: 'string', default: '1' },
    },
  });
  const files = Number(values.files);
  const projects = Number(values.projects);
  const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), 'txu-many-'));
  const clis = (values.cli ?? [THIS_CLI]).map((c) => resolve(c));
  let built: Built;
  const info = join(home, 'many-files.json');
  if (existsSync(info)) built = JSON.parse(readFileSync(info, 'utf8')) as Built;
  else {
    mkdirSync(home, { recursive: true });
    const t = Date.now();
    built = buildHome(home, files, projects);
    process.stderr.write(
      `built ${files} files in ${projects} project folders in ${((Date.now() - t) / 1000).toFixed(1)} s: ${home}\n`,
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'txu-many-work-'));
  const results = new Map<string, { cpu: number[]; rss: number[]; wall: number[] }>(
    clis.map((c) => [c, { cpu: [], rss: [], wall: [] }]),
  );
  const problems: string[] = [];
  try {
    for (let r = 0; r < Number(values.runs); r++) {
      for (const cli of clis) {
        const cache = join(work, 'cache');
        rmSync(cache, { recursive: true, force: true });
        const env = {
          PATH: process.env.PATH,
          HOME: home,
          XDG_CACHE_HOME: cache,
          XDG_CONFIG_HOME: join(work, 'config'),
          TZ: 'UTC',
          NO_COLOR: '1',
        };
        const m = measure(cli, ['ingest'], env);
        if (m.status !== 0) throw new Error(`${cli} ingest exited ${m.status}: ${m.stderr.slice(0, 500)}`);
        const x = results.get(cli)!;
        x.cpu.push(m.cpuMs ?? NaN);
        x.rss.push(m.rssMb ?? NaN);
        x.wall.push(m.wallMs);
        process.stderr.write(
          `${cli}: ${((m.cpuMs ?? NaN) / 1000).toFixed(2)} s CPU, ${(m.rssMb ?? NaN).toFixed(0)} MB, ${(m.wallMs / 1000).toFixed(2)} s wall\n`,
        );
        const rep = measure(cli, ['report', '--since', '2026-09-01', '--until', '2026-09-30', '--format', 'json'], env);
        const totals = (JSON.parse(rep.stdout) as { totals: Record<string, unknown> }).totals;
        const got = pickMetrics(totals);
        if (JSON.stringify(got) !== JSON.stringify(built.expected))
          problems.push(`${cli}: totals ${JSON.stringify(got)}, expected ${JSON.stringify(built.expected)}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!values.home) rmSync(home, { recursive: true, force: true });
  }
  process.stdout.write(
    `first ingest of ${built.files} Claude Code files in ${built.projects} project folders (medians of ${values.runs}):\n`,
  );
  for (const [cli, x] of results) {
    process.stdout.write(
      `  ${cli}: ${(median(x.cpu) / 1000).toFixed(2)} s CPU, peak RSS ${median(x.rss).toFixed(0)} MB, ${(median(x.wall) / 1000).toFixed(2)} s wall\n`,
    );
  }
  process.stdout.write(problems.length ? `totals differ:\n  ${problems.join('\n  ')}\n` : 'totals equal the ledger\n');
  process.exit(problems.length ? 1 : 0);
}

void main();
