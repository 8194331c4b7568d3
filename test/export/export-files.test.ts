// The exported files themselves: byte-identical re-exports, periods that add
// files, superseded files, and --anonymize leaving no path or session id.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import {
  buildTeamFixture,
  cli,
  envOf,
  exportJson,
  localReport,
  RANGE,
  rollupReport,
  tree,
  type Team,
} from '../helpers/export-helpers.js';

let team: Team;
beforeAll(() => {
  team = buildTeamFixture();
});

const statuses = (r: any) => r.files.map((f: any) => `${f.dataset}/${f.month}:${f.status}`);

describe('re-exporting', () => {
  it('is byte-identical: same names, same bytes, nothing rewritten; also from a rebuilt store', () => {
    for (const m of team.machines) {
      const dir = join(team.base, `idem-${m.name}`);
      const first = exportJson(m, dir);
      const before = tree(dir);
      expect(before.size).toBeGreaterThan(1);
      expect(first.files.every((f: any) => f.status === 'written')).toBe(true);
      const second = exportJson(m, dir);
      expect(second.files.every((f: any) => f.status === 'unchanged' && f.superseded.length === 0)).toBe(true);
      expect(tree(dir)).toEqual(before);
      // A store rebuilt from the sources exports the same bytes.
      const rebuilt = join(team.base, `idem-${m.name}-rebuilt`);
      exportJson(m, rebuilt, ['--rebuild']);
      expect(tree(rebuilt)).toEqual(before);
    }
  });

  it('a new period adds files and leaves the others alone', () => {
    const alice = team.machines[0]!;
    const dir = join(team.base, 'periods');
    const sept = exportJson(alice, dir, ['--since', '2026-09-01', '--until', '2026-09-30', '--tz', 'UTC']);
    // Sessions go whole, in the month of their last activity: the one active in September and October is in October's folder.
    expect(statuses(sept)).toEqual(['events/2026-09:written', 'estimates/undated:written', 'sessions/2026-10:written']);
    const septFiles = tree(dir);
    const oct = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-31', '--tz', 'UTC']);
    // The shared-project session's estimate goes with October too (that session has October usage): same row, same bytes.
    // That session again (whole, the same row, the same bytes), and a session last active in November in its own month.
    expect(statuses(oct)).toEqual([
      'events/2026-10:written',
      'estimates/undated:unchanged',
      'sessions/2026-10:unchanged',
      'sessions/2026-11:written',
    ]);
    const after = tree(dir);
    for (const [k, v] of septFiles) expect(after.get(k)).toEqual(v);
    expect(after.size).toBe(septFiles.size + 2);
  });

  it("a later export holding all of an earlier one's rows supersedes it; one holding fewer does not", () => {
    const alice = team.machines[0]!;
    const dir = join(team.base, 'supersede');
    const half = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-15', '--tz', 'UTC']);
    const halfFile = half.files.find((f: any) => f.dataset === 'events').path;
    // The events dataset: the export root's own month folders (the side datasets are in _context/, _estimates/).
    const events = () => [...tree(dir).keys()].filter((k) => k.startsWith('month='));
    const full = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-31', '--tz', 'UTC']);
    const fullEvents = full.files.find((f: any) => f.dataset === 'events');
    expect(fullEvents.superseded).toEqual([halfFile]);
    expect(events()).toEqual([relative(dir, fullEvents.path)]);
    // The side datasets' files are where their dataset lives, and superseding never crosses datasets.
    for (const f of full.files)
      expect(relative(dir, f.path).split('/')[0]).toBe(f.dataset === 'events' ? `month=${f.month}` : `_${f.dataset}`);
    expect(
      full.files.every((f: any) =>
        f.superseded.every((s: string) => relative(dir, s).split('/')[0] === relative(dir, f.path).split('/')[0]),
      ),
    ).toBe(true);
    // The narrower export again: written beside the full one, which it does not replace.
    const again = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-15', '--tz', 'UTC']);
    expect(again.files.find((f: any) => f.dataset === 'events').superseded).toEqual([]);
    expect(events()).toHaveLength(2);
    // Other machines' files in the same folder are never touched.
    exportJson(team.machines[2]!, dir);
    exportJson(alice, dir);
    expect(events().filter((f) => f.includes('part-carol-')).length).toBeGreaterThan(0);
  });
});

describe('files in the export folder that tx-usage did not write', () => {
  it('are never removed or replaced: a foreign part-looking Parquet, a text file, a file in the way; --out at a file is refused', async () => {
    const alice = team.machines[0]!;
    const dir = join(team.base, 'foreign-files');
    const half = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-15', '--tz', 'UTC']);
    const halfFile: string = half.files.find((f: any) => f.dataset === 'events').path;
    const monthDir = join(halfFile, '..');
    // A copy of our half file without the marker (same name pattern, same rows): what the old superseding rule would remove.
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const lookalike = join(monthDir, 'part-' + alice.name + '-0123456789abcdef.parquet');
    await conn.run(
      `COPY (SELECT * FROM read_parquet('${halfFile}', hive_partitioning = false)) TO '${lookalike}' (FORMAT parquet)`,
    );
    conn.closeSync();
    inst.closeSync();
    const notes = join(monthDir, 'notes.txt');
    writeFileSync(notes, 'keep me');
    const lookBytes = readFileSync(lookalike);
    const full = exportJson(alice, dir, ['--since', '2026-10-01', '--until', '2026-10-31', '--tz', 'UTC']);
    const events = full.files.find((f: any) => f.dataset === 'events');
    // Our own half file is superseded; the look-alike and the notes stay.
    expect(events.superseded).toEqual([halfFile]);
    expect(readFileSync(lookalike).equals(lookBytes)).toBe(true);
    expect(readFileSync(notes, 'utf8')).toBe('keep me');
    // A foreign file at the very name the next export would write: left as it is, the export stops with a message.
    const target: string = events.path;
    rmSync(target);
    writeFileSync(target, "someone else's file");
    const r = runCli(
      [
        'export',
        '--out',
        dir,
        '--machine',
        alice.name,
        '--since',
        '2026-10-01',
        '--until',
        '2026-10-31',
        '--tz',
        'UTC',
      ],
      envOf(alice),
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is in the way and was not written by tx-usage export: left as it is/);
    expect(readFileSync(target, 'utf8')).toBe("someone else's file");
    expect(readdirSync(monthDir).filter((f) => f.startsWith('.tmp-') || f.startsWith('.tx-usage-export-'))).toEqual([]);
    // --out naming a file: exit 2, the file untouched.
    const file = join(team.base, 'not-a-folder.txt');
    writeFileSync(file, 'x');
    const f = runCli(['export', '--out', file, '--machine', alice.name], envOf(alice));
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/^tx-usage: --out .*not-a-folder\.txt: not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });
});

describe('what a killed export leaves', () => {
  it('never breaks a glob over the folder: temporaries do not end in .parquet, and the next export removes those of dead runs', async () => {
    const alice = team.machines[0]!;
    const dir = join(team.base, 'killed');
    const first = exportJson(alice, dir);
    const events = first.files.find((f: any) => f.dataset === 'events');
    const monthDir = join(events.path, '..');
    // What SIGKILL during COPY left: half a Parquet file under the name older versions gave it, and one under
    // today's name, each of a process that is gone; and the temporary file of an export still running (this one).
    const dead = spawnSync('true').pid!;
    const half = readFileSync(events.path).subarray(0, 200);
    const legacy = join(monthDir, `.tmp-${alice.name}-${dead}.parquet`);
    const current = join(monthDir, `.tx-usage-export-${alice.name}-${dead}.partial`);
    const running = join(monthDir, `.tx-usage-export-${alice.name}-${process.pid}.partial`);
    const otherMachine = join(monthDir, `.tx-usage-export-bob-${dead}.partial`);
    for (const f of [legacy, current, running, otherMachine]) writeFileSync(f, half);
    const glob = `SELECT count(*) AS n FROM read_parquet('${join(dir, '**', '*.parquet')}')`;
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      // The half-written legacy file breaks any engine's glob over the folder (DuckDB lists dot-files).
      await expect(conn.runAndReadAll(glob)).rejects.toThrow();
      const again = exportJson(alice, dir);
      expect(again.files.every((f: any) => f.status === 'unchanged')).toBe(true);
      const left = readdirSync(monthDir).filter((f) => f.startsWith('.'));
      // This machine's leftovers of dead runs are gone; a running export's file and another machine's are not ours to remove.
      expect(left.sort()).toEqual(
        [`.tx-usage-export-${alice.name}-${process.pid}.partial`, `.tx-usage-export-bob-${dead}.partial`].sort(),
      );
      // With half-written .partial files still there, the glob reads every exported row (the side datasets' too: `**`).
      const n = Number(((await conn.runAndReadAll(glob)).getRowObjectsJson()[0] as { n: string }).n);
      expect(n).toBe(first.files.reduce((a: number, f: any) => a + f.rows, 0));
    } finally {
      conn.closeSync();
      inst.closeSync();
      rmSync(running, { force: true });
      rmSync(otherMachine, { force: true });
    }
  });
});

/** Every project path, session id and dedupe key a machine's store holds, read back with `tx-usage sql`. */
function storedSecrets(m: Team['machines'][number]): string[] {
  const q = `SELECT DISTINCT v FROM (
      SELECT project AS v FROM usage_events UNION ALL SELECT session_id FROM usage_events UNION ALL SELECT dedupe_key FROM usage_events
      UNION ALL SELECT session FROM context_rows UNION ALL SELECT project FROM context_rows UNION ALL SELECT session_id FROM session_estimates
      UNION ALL SELECT path FROM sources) WHERE v IS NOT NULL`;
  return (JSON.parse(cli(['sql', q, '--format', 'json'], envOf(m))) as { v: string }[]).map((r) => r.v);
}

async function allValues(files: string[]): Promise<string> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    const parts: string[] = [];
    for (const f of files)
      parts.push(
        JSON.stringify(
          (
            await conn.runAndReadAll(`SELECT * FROM read_parquet('${f}', hive_partitioning = false)`)
          ).getRowObjectsJson(),
        ),
      );
    return parts.join('\n');
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

describe('--anonymize', () => {
  const SALT = 'team-salt-42';
  let anon: string;
  let plain: string;
  beforeAll(() => {
    anon = join(team.base, 'anon');
    plain = join(team.base, 'plain');
    for (const m of team.machines) {
      exportJson(m, anon, ['--anonymize', '--salt', SALT]);
      exportJson(m, plain);
    }
  });

  it('leaves no project path, session id or source path in the files (values or bytes)', async () => {
    const files = [...tree(anon).keys()].map((k) => join(anon, k));
    const text = await allValues(files);
    const bytes = files.map((f) => readFileSync(f));
    let checked = 0;
    for (const m of team.machines) {
      const secrets = [...new Set([...storedSecrets(m), ...m.secrets])].filter((s) => s.length >= 8);
      expect(secrets.length).toBeGreaterThan(10);
      for (const s of secrets) {
        expect(text.includes(s), `${m.name}: ${s} in the values`).toBe(false);
        for (const b of bytes) expect(b.includes(s), `${m.name}: ${s} in the bytes`).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    // The same check finds them in a plain export (so it can fail).
    const plainText = await allValues([...tree(plain).keys()].map((k) => join(plain, k)));
    expect(plainText).toContain('/home/dev/shared-repo');
    expect(plainText).toContain('a11ce000-0000-4000-8000-000000000001');
  });

  it('keeps every figure: the roll-up matches the plain one by machine, model, day and harness', () => {
    for (const by of ['machine,model,day', 'machine,harness,month']) {
      const a = rollupReport(team, [anon], [...RANGE, '--by', by]);
      const p = rollupReport(team, [plain], [...RANGE, '--by', by]);
      expect({ ...a, context: undefined }).toEqual({ ...p, context: undefined });
      expect(a.context.map((c: any) => c.turns).sort()).toEqual(p.context.map((c: any) => c.turns).sort());
    }
    // Projects and sessions become hashes, one per original value (none merged).
    const ap = rollupReport(team, [anon], [...RANGE, '--by', 'machine,project']).rows;
    const pp = rollupReport(team, [plain], [...RANGE, '--by', 'machine,project']).rows;
    expect(ap.length).toBe(pp.length);
    expect(ap.every((r: any) => /^(p_[0-9a-f]{16}|unknown)$/.test(r.project))).toBe(true);
    const as = rollupReport(team, [anon], [...RANGE, '--by', 'machine,session']).rows;
    expect(as.every((r: any) => /^s_[0-9a-f]{16}$/.test(r.session))).toBe(true);
    expect(as.length).toBe(rollupReport(team, [plain], [...RANGE, '--by', 'machine,session']).rows.length);
    // The same project on two machines is the same hash (a team still sees a shared repo), as docs/team.md defines it.
    const hash =
      'p_' + createHash('sha256').update(`${SALT}\x1fproject\x1f/home/dev/shared-repo`).digest('hex').slice(0, 16);
    expect(pp.filter((r: any) => r.project === '/home/dev/shared-repo').map((r: any) => r.machine)).toEqual([
      'alice',
      'bob',
    ]);
    expect(
      ap.filter((r: any) => r.project === hash).map((r: any) => ({ ...r, project: '/home/dev/shared-repo' })),
    ).toEqual(pp.filter((r: any) => r.project === '/home/dev/shared-repo'));
  });

  it('takes the salt from the config file, and a different salt gives different hashes', () => {
    const carol = team.machines[2]!;
    const cfgDir = join(carol.home, '.config', 'tx-usage');
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, 'config.json'), JSON.stringify({ machine: 'carol', export: { salt: SALT } }));
    const viaConfig = join(team.base, 'anon-config');
    // No --machine, no --salt: both from the config.
    cli(['export', '--out', viaConfig, '--anonymize'], envOf(carol));
    const carolAnon = new Map([...tree(anon)].filter(([k]) => k.includes('part-carol-')));
    expect(tree(viaConfig)).toEqual(carolAnon);
    // The local store's rows are labelled with the config's machine name too.
    expect(
      JSON.parse(runCli(['report', ...RANGE, '--by', 'machine', '--format', 'json'], envOf(carol)).stdout).rows.map(
        (r: any) => r.machine,
      ),
    ).toEqual(['carol']);
    const other = join(team.base, 'anon-other-salt');
    exportJson(carol, other, ['--anonymize', '--salt', 'another']);
    const names = (d: string) => [...tree(d).keys()].sort();
    expect(names(other)).not.toEqual(names(viaConfig));
    writeFileSync(join(cfgDir, 'config.json'), '{ not json');
    const r = runCli(['export', '--out', other], envOf(carol));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/config\.json: not valid JSON/);
    rmSync(cfgDir, { recursive: true });
  });

  it('a roll-up mixing plain and anonymized exports of one machine warns that it counts them twice', () => {
    const r = rollupReport(team, [anon, join(plain, 'month=*', 'part-alice-*')], [...RANGE, '--by', 'machine']);
    expect(
      r.warnings.filter((w: string) => /machine alice: events exported with different key schemes/.test(w)),
    ).toHaveLength(1);
    expect(r.warnings.some((w: string) => /machine bob/.test(w))).toBe(false);
    expect(
      r.warnings.filter((w: string) =>
        /^the files use 2 key schemes \(salted:[0-9a-f]{8}: alice, bob, carol; sha256: alice\)/.test(w),
      ),
    ).toHaveLength(1);
    // Machines exported under different schemes: no machine has two, but nothing matches across them.
    const mixed = rollupReport(
      team,
      [join(anon, '**', 'part-bob-*'), join(plain, '**', 'part-alice-*')],
      [...RANGE, '--by', 'machine'],
    );
    expect(mixed.warnings.filter((w: string) => /key schemes/.test(w))).toEqual([
      expect.stringMatching(/^the files use 2 key schemes \(salted:[0-9a-f]{8}: bob; sha256: alice\)/),
    ]);
    expect(
      rollupReport(team, [plain], [...RANGE, '--by', 'machine']).warnings.filter((w: string) => /key schemes/.test(w)),
    ).toEqual([]);
    const alice = localReport(team.machines[0]!, [...RANGE, '--by', 'machine']).rows[0];
    expect(r.rows.find((x: any) => x.machine === 'alice').requests).toBe(2 * alice.requests);
  });
});

describe('home paths', () => {
  it('a plain export writes project paths under the home folder as ~/…, others as they are (a shared output shows no home path)', async () => {
    const home = tempDir('txu-export-home-');
    const claude = new ClaudeHome(join(home, '.claude'));
    claude
      .session({ cwd: join(home, 'src', 'app') })
      .response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 10, output: 20 } });
    claude.session({ cwd: home }).response({ ts: '2026-10-03T11:00:00.000Z', usage: { input: 1, output: 2 } });
    claude
      .session({ cwd: `${home}2/elsewhere` })
      .response({ ts: '2026-10-03T12:00:00.000Z', usage: { input: 3, output: 4 } });
    const out = join(home, 'out');
    const r = runCli(['export', '--out', out, '--machine', 'm1', ...RANGE, '--format', 'json'], cleanEnv(home));
    expect(r.status, r.stderr).toBe(0);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      for (const [dataset, glob] of [
        ['events', `${out}/month=*/*.parquet`],
        ['sessions', `${out}/_sessions/**/*.parquet`],
      ]) {
        const rows = (
          await conn.runAndReadAll(
            `SELECT DISTINCT project FROM read_parquet('${glob}', hive_partitioning = false) ORDER BY project`,
          )
        ).getRowObjectsJson();
        expect(
          rows.map((x) => x.project),
          dataset,
        ).toEqual(['~', `${home}2/elsewhere`, '~/src/app'].sort());
      }
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});
