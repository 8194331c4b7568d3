// The package as a user gets it: `npm pack` makes the tarball (only the
// files package.json lists), npm installs it globally into a temporary
// prefix (its dependencies are this checkout's node_modules, linked in, so
// nothing is fetched), and the bin link npm made is executed directly: the
// kernel reads its `#!/usr/bin/env node` line, no shell is involved. Every
// argument reaches the CLI unchanged, NODE_EXTRA_CA_CERTS is Node's own
// business (`prices update` trusts the certificate it names), and a report
// runs on a fixture home.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForUpdate } from '@pydantic/genai-prices';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const work = tempDir('txu-installed-');
const prefix = join(work, 'prefix');
const bin = join(prefix, 'bin', 'tx-usage');
afterAll(() => rmSync(work, { recursive: true, force: true }));
let homes = 0;
const freshHome = (): string => {
  const d = join(work, `home-${++homes}`);
  mkdirSync(d);
  return d;
};

/**
 * npm with no scripts, no network, no user config of the outer npm, and a
 * temp dir of its own inside `work` (npm on Node 22 keeps Node's module
 * compile cache in the temp dir: npm's files, not tx-usage's, removed with
 * `work`).
 */
function npm(args: string[], cwd: string): string {
  const tmp = join(work, 'npm-tmp');
  mkdirSync(tmp, { recursive: true });
  return execFileSync('npm', [...args, '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_prefix: undefined, TMPDIR: tmp },
  });
}

beforeAll(() => {
  const packDir = join(work, 'pack');
  mkdirSync(packDir);
  const name = npm(['pack', '--pack-destination', packDir, '--silent'], ROOT).trim().split('\n').pop()!;
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', join(packDir, name), '-C', unpacked]);
  const pkg = join(unpacked, 'package');
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  npm(['install', '--global', '--prefix', prefix, pkg], work);
}, 120_000);

/** The environment of a user whose PATH has the prefix's bin and this Node. */
function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(home, extra);
  env.PATH = [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH].join(delimiter);
  return env;
}

function runBin(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(bin, args, { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the installed bin', () => {
  it("is npm's link to the bundled entry, which starts with #!/usr/bin/env node", () => {
    expect(existsSync(bin)).toBe(true);
    expect(readlinkSync(bin)).toMatch(/dist\/src\/cli\/fast\.cjs$/);
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect(runBin(['--version'], userEnv(freshHome()))).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('reports on a fixture home, with arguments passed unchanged (spaces, quotes, globs)', () => {
    const home = join(work, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/home/user/proj' });
    s.user('2026-06-10T09:00:00.000Z');
    s.response({ ts: '2026-06-10T09:01:00.000Z', usage: { input: 120, output: 340, cacheRead: 5000 } });
    const db = join(home, 'a dir', "it's [*] here", 'usage.duckdb');
    mkdirSync(dirname(db), { recursive: true });
    const r = runBin(
      ['report', '--db', db, '--since', '2026-06-01', '--until', '2026-06-30', '--by', 'harness', '--format', 'json'],
      userEnv(home),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
    const j = JSON.parse(r.stdout);
    expect(j.rows).toHaveLength(1);
    expect(j.rows[0]).toMatchObject({
      harness: 'claude-code',
      requests: 1,
      input_tokens: 120,
      output_tokens: 340,
      cache_read_tokens: 5000,
    });
    // An empty argument stays an argument: refused as an empty --since, not dropped.
    const empty = runBin(['report', '--db', db, '--since', '', '--format', 'json'], userEnv(home));
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/--since/);
  });

  it('`prices update` trusts the certificate NODE_EXTRA_CA_CERTS names', async () => {
    const dir = freshHome();
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const data = JSON.stringify(await waitForUpdate());
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(data);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    // Not spawnSync: this process's server must answer meanwhile.
    const runAsync = (env: NodeJS.ProcessEnv) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
        const c = spawn(bin, ['prices', 'update'], { env });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.on('close', (status) => ok({ status, stdout, stderr }));
      });
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/data.json`;
      const untrusted = await runAsync(userEnv(freshHome(), { TX_USAGE_PRICES_URL: url }));
      expect(untrusted.status).toBe(1);
      expect(untrusted.stderr).toMatch(/could not download price data/);
      const home = freshHome();
      const r = await runAsync(userEnv(home, { TX_USAGE_PRICES_URL: url, NODE_EXTRA_CA_CERTS: cert }));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/price data updated from https:\/\/127\.0\.0\.1/);
      expect(existsSync(join(home, '.cache', 'tx-usage', 'prices', 'genai-prices-data.json'))).toBe(true);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});
