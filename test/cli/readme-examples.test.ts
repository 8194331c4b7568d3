// The README is a user's guide: every command example it shows (the quick
// start's, the guide's `sh` blocks, the sample-output block's `$ tx-usage ...`
// line) and every example in `tx-usage --help` runs, as written, on a
// generated home, and exits 0. The README's config-file example is that
// home's config, so it is checked too (a key the code does not accept fails
// `tx-usage check` with exit 2). Also the quick start's promise for a machine
// with no harness data: the report exits 0, lists where it looked and points
// to --demo.
//
// Each line runs in bash (globs, `~`, quotes and pipes as a user's shell
// reads them) with a `tx-usage` on PATH that runs the built bin. Not run:
// `npm ...` (installing; `npm test` would run this suite again), and
// `npx tx-usage` is run as `tx-usage` (the same bin, without npm's start-up).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageCsv } from '../../fixtures/cursor-usage/build.js';
import { writeDemoHome } from '../../fixtures/demo.js';
import { CLI, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The command lines of the README's sh blocks and `$ ` lines, comments removed, `&&` chains split. */
function readmeCommands(): string[] {
  const lines: string[] = [];
  for (const m of README.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (m[1] !== 'sh' && m[1] !== '') continue;
    for (const raw of m[2]!.split('\n')) {
      let line = raw;
      if (m[1] === '') {
        if (!line.startsWith('$ ')) continue; // sample output: only its command line
        line = line.slice(2);
      }
      line = line.replace(/\s+#\s.*$/, '').trim();
      if (!line) continue;
      for (const part of line.split(/\s+&&\s+/)) lines.push(part.trim());
    }
  }
  return lines;
}

/** The `.example('$0 ...')` lines of the yargs help. */
function helpExamples(): string[] {
  const src = readFileSync(join(ROOT, 'src/cli/main.ts'), 'utf8');
  return [...src.matchAll(/\.example\('\$0 ([^']*)'/g)].map((m) => `tx-usage ${m[1]}`);
}

/** The README's config-file example (the JSON block with "budgets" and "machine"). */
function readmeConfig(): Record<string, unknown> {
  const block = [...README.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes('"machine"') && b.includes('"budgets"'));
  if (!block) throw new Error('README: no config-file example (a json block with "machine" and "budgets")');
  return JSON.parse(block);
}

let dir: string;
let home: string;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = tempDir('txu-readme-');
  home = join(dir, 'home');
  work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  await writeDemoHome(home, new Date());
  mkdirSync(join(home, 'Downloads'), { recursive: true });
  writeFileSync(join(home, 'Downloads', 'usage-events-2026-11-05.csv'), usageCsv('v3'));
  const config = readmeConfig();
  mkdirSync(join(home, '.config', 'tx-usage'), { recursive: true });
  writeFileSync(join(home, '.config', 'tx-usage', 'config.json'), JSON.stringify(config));
  // The example names a prices file: an empty override set (LiteLLM format) beside it.
  if (typeof config.prices === 'string') writeFileSync(join(home, '.config', 'tx-usage', config.prices), '{}');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'tx-usage'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'tx-usage'), 0o755);
  env = cleanEnv(home, { PATH: `${bin}:${process.env.PATH}`, COLUMNS: '80' });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function shell(line: string): { status: number; stdout: string; stderr: string } {
  // `watch` is full-screen until `q` (test/live-watch.test.ts drives it in tmux): its example runs with --once.
  const cmd = line
    .replace(/^npx (--no-install )?tx-usage\b/, 'tx-usage')
    .replace(/^tx-usage watch\b(?!.*--once)/, 'tx-usage watch --once');
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', cmd], {
    env,
    cwd: work,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 60_000,
    input: '',
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('README and --help examples', () => {
  it('the README shows the two quick-start commands, npm test being what CI runs', () => {
    const quick = README.slice(README.indexOf('## Quick start'));
    const block = /```sh\n([\s\S]*?)```/.exec(quick)![1]!.trim().split('\n');
    expect(block).toHaveLength(2);
    expect(block[0]).toMatch(/^npm ci && npx tx-usage report\b/);
    expect(block[1]).toMatch(/^npm test\b/);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
  });

  it('every tx-usage example exits 0 on a generated home', () => {
    const commands = [...readmeCommands().filter((l) => !/^npm\s/.test(l)), ...helpExamples()];
    // Enough of the guide is covered that losing a section would show.
    for (const c of [
      'report',
      'report monthly',
      'report compare',
      'report blocks',
      'limits',
      'statusline',
      'check',
      'import cursor-usage',
      'import --list',
      'export',
      'sql',
      'demo',
      'ingest',
      'sources',
      'explain',
      'prices show',
    ]) {
      expect(
        commands.some((l) => l.includes(`tx-usage ${c}`)),
        c,
      ).toBe(true);
    }
    const failed: string[] = [];
    for (const line of commands) {
      expect(line, 'an example that is not a tx-usage command').toMatch(/(^|\|\s*)(npx (--no-install )?)?tx-usage\b/);
      const r = shell(line);
      if (r.status !== 0)
        failed.push(`${line}\n  exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
    }
    expect(failed, failed.join('\n')).toEqual([]);
    // ~55 CLI runs one after another: 167 s on the shared 2-core machine under a load of 14 before
    // `explain`'s two examples were added, so 180 s was at its edge.
  }, 300_000);

  it('on a machine with no harness data, the report exits 0, says where to look (sources) and suggests --demo', () => {
    const empty = join(dir, 'empty-home');
    mkdirSync(empty);
    const r = runCli(['report'], cleanEnv(empty));
    expect(r.status).toBe(0);
    const text = r.stdout + r.stderr;
    expect(text).toContain('No harness data found');
    expect(text).toContain('tx-usage sources');
    expect(text).toContain('tx-usage report --demo');
  });
});
