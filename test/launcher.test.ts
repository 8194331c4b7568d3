// The bin's launcher line (src/cli/launcher.ts): run as npm's bin link runs
// it, the bin starts Node without NODE_EXTRA_CA_CERTS and passes every
// argument through unchanged; `prices update`, the only command on the
// network, still trusts the certificates that variable names. A real HTTPS
// server with a certificate made by openssl stands in for the remote URL.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitForUpdate } from '@pydantic/genai-prices';
import { LAUNCHER } from '../src/cli/launcher.js';
import { CLI, cleanEnv, tempDir } from './helpers/cli.js';

/** Runs the bin file itself (through its first line), or `node` on it. */
function run(how: 'bin' | 'node', args: string[], env: NodeJS.ProcessEnv) {
  const [file, argv] = how === 'bin' ? [CLI, args] : [process.execPath, [CLI, ...args]];
  const r = spawnSync(file, argv, { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Same, without blocking this process (whose HTTPS server must answer meanwhile). */
function runAsync(how: 'bin' | 'node', args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const [file, argv] = how === 'bin' ? [CLI, args] : [process.execPath, [CLI, ...args]];
  const c = spawn(file, argv, { env });
  let stdout = '';
  let stderr = '';
  c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((ok) => c.on('close', (status) => ok({ status, stdout, stderr })));
}

describe('bin launcher', () => {
  it('is the first two lines of the bin, which runs through them', () => {
    expect(readFileSync(CLI, 'utf8').startsWith(LAUNCHER)).toBe(true);
    const env = cleanEnv(tempDir('txu-launch-'));
    const version = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
    expect(run('bin', ['--version'], env)).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('starts Node without NODE_EXTRA_CA_CERTS (which Node otherwise loads, and warns about, before any JavaScript)', () => {
    const env = cleanEnv(tempDir('txu-launch-'), { NODE_EXTRA_CA_CERTS: '/nonexistent/extra-ca.pem' });
    const direct = run('node', ['--version'], env);
    expect(direct.status).toBe(0);
    expect(direct.stderr).toMatch(/Ignoring extra certs from `\/nonexistent\/extra-ca.pem`/);
    expect(run('bin', ['--version'], env)).toMatchObject({ status: 0, stderr: '' });
  });

  it('passes arguments through unchanged: spaces, quotes, globs, empty ones', () => {
    const home = tempDir('txu-launch-');
    const env = cleanEnv(home);
    const db = join(home, 'a dir', "it's [*] here", 'usage.duckdb');
    const args = ['report', '--db', db, '--since', '2026-06-01', '--until', '2026-06-30', '--format', 'json'];
    const viaBin = run('bin', args, env);
    expect(viaBin.status, viaBin.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
    const viaNode = run('node', args, env);
    expect(JSON.parse(viaBin.stdout)).toEqual(JSON.parse(viaNode.stdout));
    // An empty argument stays an argument (yargs refuses an empty --since).
    const empty = run('bin', ['report', '--since', '', '--format', 'json'], env);
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toBe(run('node', ['report', '--since', '', '--format', 'json'], env).stderr);
  });

  it('`prices update` through the bin trusts the certificates NODE_EXTRA_CA_CERTS names', async () => {
    const dir = tempDir('txu-launch-tls-');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const data = JSON.stringify(await waitForUpdate());
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(data);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/data.json`;
      const env = (home: string, ca: string) => cleanEnv(home, { TX_USAGE_PRICES_URL: url, NODE_EXTRA_CA_CERTS: ca });
      // Without the certificate the server is not trusted: the update fails.
      const untrusted = await runAsync('node', ['prices', 'update'], env(tempDir('txu-launch-'), ''));
      expect(untrusted.status).toBe(1);
      expect(untrusted.stderr).toMatch(/could not download price data/);
      // Through the bin, whose Node was started without it: the update runs again with it, and succeeds.
      const home = tempDir('txu-launch-');
      const r = await runAsync('bin', ['prices', 'update'], env(home, cert));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/price data updated from https:\/\/127\.0\.0\.1/);
      expect(existsSync(join(home, '.cache', 'tx-usage', 'prices', 'genai-prices-data.json'))).toBe(true);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});
