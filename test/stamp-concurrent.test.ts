// The stat pass in a thread of its own (src/ingest/stamp.ts
// stampAllConcurrently, issue 37) gives exactly the stamps of the stat pass
// in this thread: sizes, times, inodes, companions (present, missing) and
// sources that cannot be stat'ed, whatever the number of sources.
import { chmodSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampAll, stampAllConcurrently, statThreads, UNREADABLE, type ScanFacts } from '../src/ingest/stamp.js';
import { openUp, runModuleAsNobody } from './helpers/unprivileged.js';
import type { SourceRef } from '../src/harnesses/types.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('txu-stamps-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stampAllConcurrently', () => {
  it('stamps every source as stampAll does, in a worker thread and below its threshold', async () => {
    mkdirSync(join(dir, 'a'), { recursive: true });
    const sources: SourceRef[] = [];
    for (let i = 0; i < 300; i++) {
      const path = join(dir, 'a', `f${i}.jsonl`);
      writeFileSync(path, 'x'.repeat(i));
      // Fractional modification times, as file systems with ns clocks give them.
      utimesSync(path, 1_700_000_000.123 + i, 1_700_000_000.456789 + i * 1.5);
      sources.push({ harness: 'claude-code', key: path, path, kind: 'jsonl' });
    }
    // A database with its -wal (present) and -shm (missing), a missing source, a dangling link, a folder.
    const db = join(dir, 'a', 'opencode.db');
    writeFileSync(db, 'db');
    writeFileSync(`${db}-wal`, 'wal bytes');
    sources.push({ harness: 'opencode', key: `${db}#x`, path: db, kind: 'sqlite', companions: [`${db}-wal`, `${db}-shm`] });
    sources.push({ harness: 'codex', key: join(dir, 'gone.jsonl'), path: join(dir, 'gone.jsonl'), kind: 'jsonl' });
    symlinkSync(join(dir, 'nowhere'), join(dir, 'a', 'dangling.jsonl'));
    sources.push({ harness: 'codex', key: join(dir, 'a', 'dangling.jsonl'), path: join(dir, 'a', 'dangling.jsonl'), kind: 'jsonl' });
    sources.push({ harness: 'pi', key: join(dir, 'a'), path: join(dir, 'a'), kind: 'jsonl' });
    const scans: ScanFacts[] = [
      { harness: { id: 'claude-code' }, roots: [], sources: sources.slice(0, 150) },
      { harness: { id: 'codex' }, roots: [], sources: sources.slice(150) },
    ];
    const here = stampAll(scans);
    const answered = statThreads.answered;
    const inWorker = await stampAllConcurrently(scans, 0);
    expect(statThreads.answered).toBe(answered + 1);
    expect([...inWorker.entries()]).toEqual([...here.entries()]);
    expect(inWorker.get(join(dir, 'gone.jsonl'))).toBeNull();
    expect(inWorker.get(`${db}#x`)!.fingerprint).toMatch(/\|9:[\d.]+\|-$/);
    expect(inWorker.size).toBe(sources.length);
    // Few sources: the pass runs here (no worker), with the same result.
    expect([...(await stampAllConcurrently(scans)).entries()]).toEqual([...here.entries()]);
    expect(statThreads.answered).toBe(answered + 1);
  });
});

describe.skipIf(process.platform === 'win32')('a source this process may not read', () => {
  // As root (CI) file modes bind no one: the stat passes run as uid 65534 then.
  const asRoot = process.getuid?.() === 0;

  it('is marked unreadable by the stat worker as by stampAll, and only it', async () => {
    const here = tempDir('txu-stamp-modes-');
    const paths = ['open.jsonl', 'closed.jsonl', 'owner-only.jsonl'].map((n) => join(here, n));
    for (const p of paths) writeFileSync(p, '{}\n');
    openUp(here);
    chmodSync(paths[1]!, 0o000);
    chmodSync(paths[2]!, 0o600); // the owner's (root's, or this user's) only
    const scans: ScanFacts[] = [{ harness: { id: 'codex' }, roots: [], sources: paths.map((p) => ({ harness: 'codex', key: p, path: p, kind: 'jsonl' })) }];
    let both: [string, string | null][][];
    if (asRoot) {
      const code = `
        const { stampAll, stampAllConcurrently } = await import(process.argv[1] + '/dist/src/ingest/stamp.js');
        const scans = JSON.parse(process.env.SCANS);
        const fp = (m) => [...m.entries()].map(([k, v]) => [k, v && v.fingerprint]);
        console.log(JSON.stringify([fp(stampAll(scans)), fp(await stampAllConcurrently(scans, 0))]));`;
      const r = runModuleAsNobody(code, { PATH: process.env.PATH, SCANS: JSON.stringify(scans) }, here);
      expect(r.status, r.stderr).toBe(0);
      both = JSON.parse(r.stdout);
    } else {
      const fp = (m: Map<string, { fingerprint: string } | null>) => [...m.entries()].map(([k, v]) => [k, v && v.fingerprint] as [string, string | null]);
      both = [fp(stampAll(scans)), fp(await stampAllConcurrently(scans, 0))];
    }
    const [main, worker] = both;
    expect(worker).toEqual(main);
    const marked = (i: number) => main![i]![1]!.endsWith(UNREADABLE);
    expect([marked(0), marked(1), marked(2)]).toEqual([false, true, asRoot]);
  });
});

describe('the stat pass of a run with many sources, through the bundled bin', () => {
  it('gives the ledger totals on a memo miss, cold and with the discovery record', async () => {
    const { buildBulkHome } = await import('../fixtures/bulk-home.js');
    const { ALL_RANGE, pickMetrics } = await import('../fixtures/all-harnesses.js');
    const { cleanEnv, runCli } = await import('./helpers/cli.js');
    const fx = buildBulkHome(join(dir, 'bulk'));
    fx.close();
    expect(fx.files).toBeGreaterThan(1000); // over stampAllConcurrently's threshold
    const env = cleanEnv(fx.home);
    for (const by of ['harness', 'model']) {
      const r = runCli(['report', ...ALL_RANGE, '--by', by, '--format', 'json'], env);
      expect(r.status, r.stderr).toBe(0);
      expect(pickMetrics(JSON.parse(r.stdout).totals), by).toEqual(fx.total);
    }
  });
});
