// The small-history scenario of `npm run bench` (issue 41): what a typical
// new user has, ~10 MB of Claude Code, Codex, OpenCode, Pi, Gemini CLI and
// the other harnesses' files (corpus/small-home.ts). Every report asked for
// the first time of an up-to-date store (the memo holds none of them):
// summaries by several keys, compare, monthly, --by session, blocks, limits,
// each beside ccusage's nearest command, and `node -e 0` measured in the same
// rounds with the same environment: the target is Node's own start plus
// 100 ms, at most 100 MB.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureSmallHome } from './corpus/small-home.js';
import { measure, median, type Measured } from './measure.js';

export interface SmallBenchOptions {
  dir: string;
  cli: string;
  runs: number;
  ccusage: { cmd: string; version: string } | null;
  log: (s: string) => void;
}

interface Question {
  name: string;
  tx: string[];
  cc: string[] | null;
}

/** Reports asked for the first time, each with ccusage's nearest command. */
export const SMALL_QUESTIONS: Question[] = [
  { name: 'report --by week', tx: ['report', '--by', 'week'], cc: ['weekly'] },
  { name: 'report --by model,day', tx: ['report', '--by', 'model,day'], cc: ['daily', '--breakdown'] },
  { name: 'report --by harness,project', tx: ['report', '--by', 'harness,project'], cc: ['daily', '--by-agent'] },
  { name: 'report compare', tx: ['report', 'compare'], cc: ['monthly', '--by-agent'] },
  { name: 'report monthly', tx: ['report', 'monthly'], cc: ['monthly'] },
  { name: 'report --since 7d --by session', tx: ['report', '--since', '7d', '--by', 'session'], cc: ['session'] },
  { name: 'report blocks', tx: ['report', 'blocks'], cc: ['blocks'] },
  { name: 'limits', tx: ['limits'], cc: ['blocks', '--active'] },
];

export interface SmallBenchResult {
  node: { wall: number; cpu: number | null; rss: number | null };
  questions: {
    name: string;
    wall: number;
    cpu: number | null;
    rss: number | null;
    ccusage: { cmd: string; wall: number; rss: number | null } | null;
    met: boolean;
  }[];
  lines: string[];
  problems: string[];
}

const cpuOf = (rs: Measured[]) => (rs.every((r) => r.cpuMs !== null) ? median(rs.map((r) => r.cpuMs!)) : null);
const rssOf = (rs: Measured[]) => (rs.every((r) => r.rssMb !== null) ? Math.max(...rs.map((r) => r.rssMb!)) : null);

export function benchSmallHome(o: SmallBenchOptions): SmallBenchResult {
  const { home, manifest, generated } = ensureSmallHome(join(o.dir, 'small-home-s1'));
  o.log(
    `small home ${home}: ${generated ? 'written' : 'reused'}; Claude Code + Codex part ${manifest.shape.files} files, ${(manifest.shape.bytes / 2 ** 20).toFixed(1)} MiB, and the all-harness fixture`,
  );
  const work = join(o.dir, `small-run-${process.pid}`);
  const cache = join(work, 'cache');
  rmSync(work, { recursive: true, force: true });
  const statsFile = join(work, 'stats.json');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TZ: 'UTC',
    NO_COLOR: '1',
    XDG_CACHE_HOME: cache,
    XDG_CONFIG_HOME: join(work, 'config'),
    TX_USAGE_STATS: statsFile,
  };
  const ccEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, TZ: 'UTC', NO_COLOR: '1' };
  const problems: string[] = [];
  const tx = (args: string[]) => {
    const r = measure(o.cli, args, env);
    if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r;
  };
  // The store brought up to date (twice: a home just written may still settle, e.g. a SQLite
  // database's companions after its writers closed), the discovery record written by a first report.
  tx(['ingest']);
  tx(['ingest']);
  tx(['report', '--format', 'json']);
  const node: Measured[] = [];
  const runs = new Map(SMALL_QUESTIONS.map((q) => [q.name, { tx: [] as Measured[], cc: [] as Measured[] }]));
  for (let i = 0; i < o.runs; i++) {
    node.push(measure(process.execPath, ['-e', '0'], env));
    for (const q of SMALL_QUESTIONS) {
      // Asked for the first time: no memo entry answers it.
      rmSync(join(cache, 'tx-usage', 'report-memo.json'), { force: true });
      rmSync(statsFile, { force: true });
      const r = tx([...q.tx, '--format', 'json']);
      runs.get(q.name)!.tx.push(r);
      let stats: { current?: boolean } | null = null;
      try {
        stats = JSON.parse(readFileSync(statsFile, 'utf8'));
      } catch {
        stats = null;
      }
      if (stats?.current !== true)
        problems.push(
          `small home, ${q.name}, run ${i + 1}: the store was not found current (stats ${JSON.stringify(stats)})`,
        );
      if (o.ccusage && q.cc) {
        const c = measure(o.ccusage.cmd, [...q.cc, '--offline', '--json'], ccEnv);
        if (c.status !== 0) problems.push(`ccusage ${q.cc.join(' ')} exited ${c.status}: ${c.stderr.slice(0, 300)}`);
        else runs.get(q.name)!.cc.push(c);
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
  const n = { wall: median(node.map((r) => r.wallMs)), cpu: cpuOf(node), rss: rssOf(node) };
  const fmt = (ms: number | null) => (ms === null ? 'n/a' : `${ms.toFixed(0)} ms`);
  const mb = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(0)} MB`);
  const lines: string[] = [];
  lines.push(
    `small history (the fixture homes, ~10 MB, ${o.runs} rounds, medians): every report asked for the first time of an up-to-date store, \`node -e 0\` in the same rounds: ${fmt(n.wall)} wall, ${fmt(n.cpu)} CPU`,
  );
  lines.push('');
  lines.push(
    '| report | tx-usage wall | CPU | peak RSS | minus `node -e 0` | ccusage command | ccusage | ccusage RSS | target: ≤ node + 100 ms, ≤ 100 MB | met |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  const questions: SmallBenchResult['questions'] = [];
  for (const q of SMALL_QUESTIONS) {
    const r = runs.get(q.name)!;
    const wall = median(r.tx.map((x) => x.wallMs));
    const cpu = cpuOf(r.tx);
    const rss = rssOf(r.tx);
    const cc = r.cc.length
      ? { cmd: `ccusage ${q.cc!.join(' ')}`, wall: median(r.cc.map((x) => x.wallMs)), rss: rssOf(r.cc) }
      : null;
    const met = wall <= n.wall + 100 && (rss === null || rss <= 100);
    questions.push({ name: q.name, wall, cpu, rss, ccusage: cc, met });
    lines.push(
      `| ${q.name} | ${fmt(wall)} | ${fmt(cpu)} | ${mb(rss)} | ${fmt(wall - n.wall)} | ${cc?.cmd ?? 'n/a'} | ${cc ? fmt(cc.wall) : 'n/a'} | ${mb(cc?.rss ?? null)} | | ${met ? 'yes' : `no${wall > n.wall + 100 ? `, by ${(wall - n.wall - 100).toFixed(0)} ms` : ''}${rss !== null && rss > 100 ? `, ${(rss - 100).toFixed(0)} MB over` : ''}`} |`,
    );
  }
  return { node: n, questions, lines, problems };
}
