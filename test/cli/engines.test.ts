// The project declares the Node versions it runs on (package.json `engines`);
// every package it installs must declare that it runs there too. vega-lite
// 6.5 declared Node >= 22 while the project says >= 20: a user on Node 20 got
// an unsupported-engine warning for a library the HTML report loads.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/core/package-root.js';

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  intersects(a: string, b: string): boolean;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<
    string,
    { version?: string; engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }
  >;
};

const nodeRange = (e: unknown): string | undefined =>
  e && typeof e === 'object' && !Array.isArray(e) ? (e as { node?: string }).node : undefined;

it('every installed package runs on the oldest Node the project declares, and on Node 20', () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  expect(semver.satisfies(oldest, '20.x')).toBe(true); // the project is for Node 20 (GUIDE.md)
  const excluded: string[] = [];
  for (const [path, p] of Object.entries(lock.packages)) {
    const range = nodeRange(p.engines);
    if (!path || !range) continue;
    if (!semver.satisfies(oldest, range)) excluded.push(`${path}@${p.version}: node ${range}`);
  }
  expect(excluded).toEqual([]);
});

it('the HTML libraries in the lock file are the versions package.json pins', () => {
  const deps = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  ).dependencies;
  for (const name of ['vega', 'vega-lite', 'vega-embed']) {
    expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(deps[name]);
    const range = nodeRange(lock.packages[`node_modules/${name}`]?.engines);
    if (range) expect(semver.intersects(range, '20.x'), `${name}: node ${range}`).toBe(true);
  }
});
