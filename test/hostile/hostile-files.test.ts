// Issue 47: files that are not what their names say. A transcript or
// database that is a FIFO, a link to /dev/zero or /dev/urandom, or a
// database whose -wal is one of those, is refused at open (non-blocking open,
// fstat through the descriptor: src/io/regular-file.ts openRegular), named in
// the warnings and in `sources`, and never read; what the store held of it
// stays. Each run is bounded by that design: the CLI below would be killed
// (and the test fail) only if it hung.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { buildCursorHome } from '../../fixtures/cursor-agent/home.js';
import { globalStorage } from '../../fixtures/cline/home.js';
import { buildMainDb } from '../../fixtures/opencode/scenarios.js';
import type { OpenCodeDb } from '../../fixtures/opencode/builder.js';
import { CLI, cleanEnv, runBounded, tempDir, type BoundedRun } from '../helpers/cli.js';

type Run = BoundedRun;
const run = (args: string[], env: NodeJS.ProcessEnv): Run => runBounded(args, env);

function ok(r: Run): Run {
  expect(r.signal, `killed after ${r.ms} ms (hung or ran out of memory); stderr: ${r.stderr.slice(0, 500)}`).toBeNull();
  expect(r.status, r.stderr).toBe(0);
  return r;
}

const mkfifo = (p: string) => expect(spawnSync('mkfifo', [p]).status).toBe(0);

/** A Claude Code home under `home` with one response of `input` tokens (2026-05-04) in project `/w/app`. */
function oneResponse(home: string, input = 1000): ClaudeHome {
  const claude = new ClaudeHome(join(home, '.claude'));
  claude
    .session({ cwd: '/w/app' })
    .response({ ts: '2026-05-04T10:00:05.000Z', model: 'claude-sonnet-4-5', usage: { input, output: 200 } });
  return claude;
}

describe('transcripts and databases that are FIFOs or device links', () => {
  let dir: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let claudeProject: string;
  let oc: OpenCodeDb;
  let ocPath: string;
  let oz: OpenCodeDb;
  let ozPath: string;

  beforeAll(() => {
    dir = tempDir('txu-hostile-files-');
    home = join(dir, 'home');
    oneResponse(home);
    claudeProject = join(home, '.claude', 'projects', '-w-app');
    const ocDir = join(home, '.local', 'share', 'opencode');
    mkdirSync(ocDir, { recursive: true });
    ocPath = join(ocDir, 'opencode.db');
    oc = buildMainDb(ocPath); // its writer stays open: rows live in the -wal
    ozPath = join(ocDir, 'opencode-z.db');
    oz = buildMainDb(ozPath);
    env = cleanEnv(home);
  });
  afterAll(() => {
    oc.close();
    oz.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('named in the warnings and in `sources`, never read; every other file counted; what the store held stays', () => {
    // First a good read of the OpenCode database (its rows partly in the -wal).
    const before = JSON.parse(ok(run(['report', '--since', '2020-01-01', '--format', 'json'], env)).stdout);
    const ocBefore = before.rows.length ? before.totals : null;
    expect(ocBefore).not.toBeNull();

    // Claude Code: a FIFO, a link to /dev/zero and one to /dev/urandom named like transcripts.
    mkfifo(join(claudeProject, 'fifo.jsonl'));
    symlinkSync('/dev/zero', join(claudeProject, 'zero.jsonl'));
    symlinkSync('/dev/urandom', join(claudeProject, 'random.jsonl'));
    // Gemini CLI: a session file linked to /dev/zero.
    const chats = join(home, '.gemini', 'tmp', 'proj', 'chats');
    mkdirSync(chats, { recursive: true });
    symlinkSync('/dev/zero', join(chats, 'session-x.json'));
    // Cline: a task's ui_messages.json that is a plain FIFO.
    const task = join(globalStorage(home, 'Code', 'saoudrizwan.claude-dev'), 'tasks', '1772355600000');
    mkdirSync(task, { recursive: true });
    mkfifo(join(task, 'ui_messages.json'));
    // Cursor: a chat's meta.json that is a FIFO.
    buildCursorHome(home);
    const chatsDir = join(home, '.cursor', 'chats');
    const ws = readdirSync(chatsDir)[0]!;
    const chat = readdirSync(join(chatsDir, ws))[0]!;
    const meta = join(chatsDir, ws, chat, 'meta.json');
    rmSync(meta, { force: true });
    mkfifo(meta);
    // OpenCode: the -wal replaced by a FIFO (the writer keeps its own), and a second database that is a FIFO.
    renameSync(`${ocPath}-wal`, join(dir, 'kept-wal'));
    mkfifo(`${ocPath}-wal`);
    mkfifo(join(home, '.local', 'share', 'opencode', 'opencode-dev.db'));
    // And another database's -wal replaced by a link to /dev/zero (read as an empty WAL, its requests were dropped).
    renameSync(`${ozPath}-wal`, join(dir, 'kept-wal-z'));
    symlinkSync('/dev/zero', `${ozPath}-wal`);

    const r = ok(run(['report', '--since', '2020-01-01', '--format', 'json'], env));
    const rep = JSON.parse(r.stdout);
    const warnings: string[] = rep.warnings;
    const says = (file: string, what: RegExp) =>
      expect(
        warnings.some((w) => w.includes(file) && what.test(w)),
        `${file} ${what}: ${warnings.join('\n')}`,
      ).toBe(true);
    says('fifo.jsonl', /not a regular file \(a FIFO/);
    says('zero.jsonl', /not a regular file \(a character device\); never read/);
    says('random.jsonl', /not a regular file \(a character device\)/);
    says('session-x.json', /character device/);
    says('ui_messages.json', /FIFO/);
    says('meta.json', /FIFO/);
    says('opencode.db', /its wal file .*opencode\.db-wal is not a regular file \(a FIFO/);
    says('opencode-dev.db', /FIFO/);
    says(
      'opencode-z.db',
      /its wal file .*opencode-z\.db-wal is not a regular file \(a character device\); database never read/,
    );
    // The Claude session still counts; OpenCode's rows from the good read are kept, not dropped.
    expect(rep.totals).toEqual(ocBefore);

    const src = JSON.parse(ok(run(['sources', '--format', 'json'], env)).stdout);
    const all = src.harnesses.flatMap((h: any) => h.sources.map((s: any) => ({ ...s, harness: h.harness })));
    for (const name of [
      'fifo.jsonl',
      'zero.jsonl',
      'random.jsonl',
      'session-x.json',
      'ui_messages.json',
      'opencode.db',
      'opencode-dev.db',
      'opencode-z.db',
    ]) {
      const s = all.find((x: any) => x.path.endsWith(`/${name}`));
      expect(s, name).toBeDefined();
      expect(s.warnings.join('\n'), name).toMatch(/not a regular file|never read/);
    }
    renameSync(join(dir, 'kept-wal'), `${ocPath}-wal`);
    rmSync(`${ozPath}-wal`);
    renameSync(join(dir, 'kept-wal-z'), `${ozPath}-wal`);
  });
});

describe('--out naming the store or one of its files', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let db: string;

  beforeAll(() => {
    dir = tempDir('txu-hostile-out-');
    const home = join(dir, 'home');
    oneResponse(home);
    env = cleanEnv(home);
    db = join(dir, 'store', 'u.duckdb');
    mkdirSync(join(dir, 'store'));
    ok(run(['ingest', '--db', db], env));
    ok(run(['ingest'], env)); // the default store in the cache dir
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused even with --force (exit 2, naming it), by real path, links included; the store is unchanged', () => {
    const cache = join(env.XDG_CACHE_HOME!, 'tx-usage');
    const defaultStore = join(cache, 'usage.duckdb');
    symlinkSync(db, join(dir, 'link-to-store.csv'));
    symlinkSync(join(dir, 'store'), join(dir, 'linked-folder'));
    const cases: [string[], string][] = [
      [['--db', db], db],
      [['--db', db], `${db}.wal`],
      [['--db', db], `${db}.lock`],
      [['--db', db], `${db}.sources.json`],
      [['--db', db], join(dir, 'link-to-store.csv')],
      [['--db', db], join(dir, 'linked-folder', 'u.duckdb')],
      [[], defaultStore],
      [
        [],
        join(
          cache,
          readdirSync(cache).find((f) => f.endsWith('.json'))!,
        ),
      ],
    ];
    const size = (p: string) => spawnSync('stat', ['-c', '%s', p], { encoding: 'utf8' }).stdout.trim();
    const before = [size(db), size(defaultStore)];
    for (const [flags, out] of cases) {
      const r = run(['report', ...flags, '--since', '2026-05-01', '--format', 'csv', '--out', out, '--force'], env);
      expect(r.status, `${out}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`--out ${out}`);
      expect(r.stderr).toMatch(
        /tx-usage's (store|own files|store \()|a file of tx-usage's store|one of tx-usage's own files/,
      );
      expect(r.stderr).toMatch(/never replaced, even with --force/);
    }
    expect([size(db), size(defaultStore)]).toEqual(before);
    // The store still answers with what it held.
    const rep = JSON.parse(ok(run(['report', '--db', db, '--since', '2026-05-01', '--format', 'json'], env)).stdout);
    expect(rep.totals.input_tokens).toBe(1000);
  });
});

describe('report --from with Parquet files that are not what they claim', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = tempDir('txu-hostile-parquet-');
    env = cleanEnv(join(dir, 'home'));
    const month = join(dir, 'bad', 'month=2026-05');
    mkdirSync(month, { recursive: true });
    writeFileSync(join(month, 'empty.parquet'), '');
    writeFileSync(join(month, 'text.parquet'), 'this is not parquet\n');
    const { DuckDBInstance } = await import('../../src/store/duckdb.js');
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    // A Parquet file with the events' columns, input_tokens as text.
    await conn.run(
      `COPY (SELECT 1 AS schema_version, 'm' AS machine, 'claude-code' AS harness, 'abc' AS input_tokens) TO '${join(month, 'typed.parquet')}' (FORMAT parquet)`,
    );
    conn.closeSync();
    inst.closeSync();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the file and what is wrong, exit 2', () => {
    const month = join(dir, 'bad', 'month=2026-05');
    for (const [name, why] of [
      ['empty.parquet', /an empty file/],
      ['text.parquet', /not a Parquet file/],
      ['typed.parquet', /column input_tokens is VARCHAR, expected BIGINT/],
    ] as const) {
      const r = run(['report', '--from', join(month, name), '--since', '2026-05-01', '--until', '2026-05-31'], env);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(join(month, name));
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('the environment: an unknown system zone, XDG_CACHE_HOME a file or relative', () => {
  let dir: string;
  let home: string;

  beforeAll(() => {
    dir = tempDir('txu-hostile-env-');
    home = join(dir, 'home');
    oneResponse(home);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('TZ empty or unknown: report, export, limits and check use UTC and say so once', () => {
    for (const tz of ['', 'Nowhere/Zone']) {
      const env = cleanEnv(home, { TZ: tz });
      for (const args of [
        ['report', '--since', '2026-05-01', '--format', 'json'],
        ['export', '--out', join(dir, 'export')],
        ['limits'],
        ['check'],
      ]) {
        const r = ok(run(args, env));
        const notices = r.stderr.split('\n').filter((l) => l.includes('the system time zone is unknown'));
        expect(notices, `${tz} ${args[0]}: ${r.stderr}`).toHaveLength(1);
        expect(notices[0]).toContain(`TZ=${JSON.stringify(tz)}`);
        expect(r.stderr).not.toContain('not an IANA time zone');
        if (args[0] === 'report') expect(JSON.parse(r.stdout).timezone ?? 'UTC').toBe('UTC');
      }
    }
  });

  it('XDG_CACHE_HOME naming a file: exit 2 naming it; relative: ignored (the default cache folder is used)', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = run(['report', '--since', '2026-05-01'], cleanEnv(home, { XDG_CACHE_HOME: file }));
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`XDG_CACHE_HOME=${file}: ${file} is not a folder`);
    expect(r.stderr).not.toMatch(/ENOTDIR|mkdir/);
    const work = join(dir, 'work');
    mkdirSync(work);
    const t = Date.now();
    const rel = spawnSync(process.execPath, [CLI, 'report', '--since', '2026-05-01', '--format', 'json'], {
      cwd: work,
      env: cleanEnv(home, { XDG_CACHE_HOME: 'relative-cache' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(rel.status, `${rel.stderr} after ${Date.now() - t} ms`).toBe(0);
    expect(JSON.parse(rel.stdout).totals.input_tokens).toBe(1000);
    expect(readdirSync(work)).toEqual([]);
    expect(readdirSync(join(home, '.cache', 'tx-usage'))).toContain('usage.duckdb');
  });
});

describe('the status line with a writer that keeps its end open', () => {
  let dir: string;
  afterAll(async () => {
    const { refreshesDone } = await import('../helpers/live.js');
    await refreshesDone(join(dir, 'home'));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the status line, writes `input` (if any) and never closes its stdin; resolves when it exits on its own. */
  function statusline(
    env: NodeJS.ProcessEnv,
    input: string | null,
  ): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    return new Promise((done) => {
      const t = Date.now();
      const child = spawn(process.execPath, [CLI, 'statusline'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      if (input !== null) child.stdin.write(input);
      // Only so a hang fails the test instead of stalling it: the design ends the run long before.
      const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(guard);
        child.stdin.destroy();
        done({ code, stdout, stderr, ms: Date.now() - t });
      });
    });
  }

  it('prints its line once one JSON value is in, or gives up after a short wait with the short line', async () => {
    dir = tempDir('txu-hostile-statusline-');
    const env = cleanEnv(join(dir, 'home'));
    const full = await statusline(
      env,
      JSON.stringify({ session_id: 's1', model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet' } }) + '\n',
    );
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toMatch(/claude-sonnet-4-5|Sonnet/);
    expect(full.ms).toBeLessThan(15_000);
    const none = await statusline(env, null);
    expect(none.code).toBe(0);
    expect(none.stdout + none.stderr).toMatch(/tx-usage: (no|unreadable) status input/);
    const half = await statusline(env, '{"session_id": "s1", "model": ');
    expect(half.code).toBe(0);
    expect(half.stdout + half.stderr).toMatch(/unreadable status input/);
  });
});

describe('linked folders into system folders; many warnings', () => {
  let dir: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const FILES = 200;

  beforeAll(() => {
    dir = tempDir('txu-hostile-walk-');
    home = join(dir, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    for (let i = 0; i < FILES; i++) {
      const s = claude.session({ cwd: `/w/p${i % 7}` });
      s.response({ ts: '2026-05-04T10:00:05.000Z', model: 'claude-sonnet-4-5', usage: { input: 10, output: 2 } });
      s.garbage();
    }
    const projects = join(home, '.claude', 'projects');
    symlinkSync('/', join(projects, '-root'));
    symlinkSync('/proc', join(projects, '-proc'));
    symlinkSync('/sys/kernel', join(projects, '-sys'));
    mkfifo(join(projects, '-w-p0', 'fifo.jsonl'));
    env = cleanEnv(home);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never walks /, /proc, /sys or /dev (says where each walk was cut); warnings above a few are summarised by kind', () => {
    const r = ok(run(['report', '--since', '2026-05-01', '--format', 'json'], env));
    const rep = JSON.parse(r.stdout);
    expect(rep.totals.input_tokens).toBe(FILES * 10);
    // JSON keeps every warning; stderr summarises.
    expect(rep.warnings.filter((w: string) => /unparsable line/.test(w))).toHaveLength(FILES);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines.length, r.stderr).toBeLessThan(20);
    expect(r.stderr).toMatch(/-root: linked folder not followed: it is the root of the file system \(\/\)/);
    expect(r.stderr).toMatch(/-proc: linked folder not followed: it is in \/proc/);
    expect(r.stderr).toMatch(/-sys: linked folder not followed: it is in \/sys/);
    expect(r.stderr).toMatch(/fifo\.jsonl: cannot read: not a regular file/);
    expect(lines.filter((l) => /unparsable line/.test(l))).toHaveLength(3);
    expect(r.stderr).toContain(`… and ${FILES - 3} more like the ones above`);
    expect(r.stderr).toMatch(/\d+ warnings in all; `tx-usage sources` lists every one by file/);
    // --root at a system folder: not searched, said so.
    const p = ok(run(['report', '--root', 'claude-code=/proc', '--since', '2026-05-01'], env));
    expect(p.stderr).toMatch(/\/proc: not searched: it is in \/proc/);
    expect(p.ms).toBeLessThan(30_000);
  });
});

describe('transcripts in other encodings and line ends', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let files: Record<string, string>;

  beforeAll(() => {
    dir = tempDir('txu-hostile-enc-');
    const home = join(dir, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    files = {};
    const make = (name: string, input: number) => {
      const s = claude.session({ cwd: `/w/${name}` });
      s.response({ ts: '2026-05-04T10:00:05.000Z', model: 'claude-sonnet-4-5', usage: { input, output: 1 } });
      s.response({ ts: '2026-05-04T10:01:05.000Z', model: 'claude-sonnet-4-5', usage: { input, output: 1 } });
      files[name] = s.file;
      return readFileSync(s.file);
    };
    const bom = make('bom', 100);
    writeFileSync(files.bom!, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bom]));
    const cr = make('cr', 1000);
    writeFileSync(files.cr!, Buffer.from(cr.toString('latin1').replace(/\n/g, '\r'), 'latin1'));
    const crlf = make('crlf', 10000);
    writeFileSync(files.crlf!, Buffer.from(crlf.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'));
    const u16 = make('utf16', 100000);
    writeFileSync(
      files.utf16!,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(u16.toString('utf8'), 'utf16le')]),
    );
    const u16nobom = make('utf16nobom', 1000000);
    writeFileSync(files.utf16nobom!, Buffer.from(u16nobom.toString('utf8'), 'utf16le'));
    env = cleanEnv(home);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a UTF-8 byte order mark is skipped, lone-CR and CRLF line ends are read, UTF-16 is named as unreadable: never a silent 0', () => {
    const r = ok(run(['report', '--since', '2026-05-01', '--format', 'json'], env));
    const rep = JSON.parse(r.stdout);
    // Both responses of the BOM, CR and CRLF files: 2 × (100 + 1000 + 10000).
    expect(rep.totals.input_tokens).toBe(2 * 11100);
    const warnings: string[] = rep.warnings;
    for (const f of [files.utf16!, files.utf16nobom!]) {
      expect(
        warnings.filter((w) => w.startsWith(f)),
        warnings.join('\n'),
      ).toEqual([expect.stringMatching(/the file is UTF-16 text; .*nothing read from it/)]);
    }
    expect(
      warnings.filter((w) => !w.includes('utf16')),
      warnings.join('\n'),
    ).toEqual([]);
    // Appending to the lone-CR file is read from where the last read stopped.
    appendFileSync(
      files.cr!,
      Buffer.from(
        `${JSON.stringify({ type: 'assistant', timestamp: '2026-05-04T10:02:05.000Z', sessionId: 'x', cwd: '/w/cr', message: { id: 'msg_cr_3', model: 'claude-sonnet-4-5', usage: { input_tokens: 1000, output_tokens: 1 } }, requestId: 'req_cr_3' })}\r`,
      ),
    );
    const again = JSON.parse(ok(run(['report', '--since', '2026-05-01', '--format', 'json'], env)).stdout);
    expect(again.totals.input_tokens).toBe(2 * 11100 + 1000);
  });
});

describe('timestamps without a zone, dates that do not exist', () => {
  let dir: string;
  let home: string;

  beforeAll(() => {
    dir = tempDir('txu-hostile-ts-');
    home = join(dir, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/ts' });
    s.response({ ts: '2026-05-04T23:30:00', model: 'claude-sonnet-4-5', usage: { input: 100, output: 1 } });
    s.response({ ts: '2026-02-30T10:00:00Z', model: 'claude-sonnet-4-5', usage: { input: 5000, output: 1 } });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a zone-less time is UTC whatever the machine zone at ingest; an impossible date is warned about, not rolled over', () => {
    const day = (tz: string, cache: string, d: string) =>
      JSON.parse(
        ok(
          run(
            ['report', '--since', d, '--until', d, '--tz', 'UTC', '--format', 'json'],
            cleanEnv(home, { TZ: tz, XDG_CACHE_HOME: join(dir, cache) }),
          ),
        ).stdout,
      );
    for (const [tz, cache] of [
      ['Pacific/Auckland', 'c1'],
      ['America/Los_Angeles', 'c2'],
    ] as const) {
      const r = day(tz, cache, '2026-05-04');
      expect(r.totals.input_tokens, tz).toBe(100);
      expect(
        r.warnings.some((w: string) => /:2: .*without a usable timestamp/.test(w)),
        r.warnings.join('\n'),
      ).toBe(true);
      expect(day(tz, cache, '2026-03-02').totals.input_tokens).toBe(0);
    }
  });
});

describe('responses dated in the future', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let file: string;
  const NOW = '2026-06-01T12:00:00.000Z';

  beforeAll(() => {
    dir = tempDir('txu-hostile-future-');
    const home = join(dir, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/future' });
    s.response({ ts: '2026-06-01T11:30:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 100, output: 1 } });
    s.response({ ts: '2026-06-01T13:30:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 1000, output: 1 } });
    s.response({ ts: '2028-01-01T00:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 10000, output: 1 } });
    s.response({ ts: '2099-01-01T00:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 100000, output: 1 } });
    file = s.file;
    env = cleanEnv(home, { TX_USAGE_NOW: NOW });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('only the block holding now is active; future rows are named once and kept out of the live views', () => {
    const j = JSON.parse(
      ok(
        run(
          ['report', 'blocks', '--since', '2026-05-30', '--until', '2099-12-31', '--tz', 'UTC', '--format', 'json'],
          env,
        ),
      ).stdout,
    );
    const blocks = j.blocks.filter((b: any) => !b.is_gap);
    expect(blocks.filter((b: any) => b.is_active)).toHaveLength(1);
    expect(blocks.map((b: any) => b.start)).toEqual(['2026-06-01T11:00:00+00:00']);
    expect(blocks[0].total_tokens ?? blocks[0].input_tokens + 1).toBeLessThan(1000);
    const warnings: string[] = j.warnings;
    expect(
      warnings.filter((w) => w.includes('dated in the future')),
      warnings.join('\n'),
    ).toEqual([
      `${file}:2: 3 responses dated in the future (the first 2026-06-01T13:30:00.000Z); counted on their dates in reports, left out of the live views (blocks, watch, status line, budgets, limits)`,
    ]);
    // A report counts them on their dates.
    const all = JSON.parse(
      ok(run(['report', '--since', '2026-05-30', '--until', '2099-12-31', '--format', 'json'], env)).stdout,
    );
    expect(all.totals.input_tokens).toBe(111100);
  });
});

describe('the store held by a process that does not let go', () => {
  let dir: string;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a later run says what it waits for and on which process, then gives up naming it', async () => {
    dir = tempDir('txu-hostile-lock-');
    const home = join(dir, 'home');
    oneResponse(home, 1);
    const db = join(dir, 'store.duckdb');
    const env = cleanEnv(home, { TX_USAGE_LOCK_WAIT_MS: '2500' });
    ok(run(['ingest', '--db', db], env));
    // A stuck tx-usage: it took the store's lock and never ends (until this test ends it).
    const lockModule = resolve(__dirname, '../../dist/src/store/lock.js');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const {lockStore}=await import(${JSON.stringify(lockModule)});await lockStore(${JSON.stringify(db)},'exclusive');console.log('held');setInterval(()=>{},1000)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((done) => holder.stdout!.once('data', () => done()));
      const r = run(['ingest', '--db', db], env);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`tx-usage: waiting for the store ${db}: process ${holder.pid} (`);
      expect(r.stderr).toMatch(/this run writes to it\); giving up after 3 s/);
      expect(r.stderr).toContain(`the store ${db} is in use by process ${holder.pid}`);
      expect(r.stderr).toContain(`or end it (kill ${holder.pid}) if it is stuck`);
      expect(r.ms).toBeLessThan(20_000);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('names that are not valid UTF-8', () => {
  let dir: string;
  const B = (s: string) => Buffer.from(s, 'latin1');

  beforeAll(() => {
    dir = tempDir('txu-hostile-bytes-');
    // A home folder /…/caf\xe9, a project folder bad\xffdir and one -caf\xe9, a transcript x\xff.jsonl.
    const home = B(`${dir}/caf\xe9`);
    const at = (rel: string) => Buffer.concat([home, B(rel)]);
    const line = (id: string, input: number) =>
      JSON.stringify({
        type: 'assistant',
        timestamp: '2026-05-04T10:00:05.000Z',
        sessionId: id,
        cwd: '/w',
        message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: input, output_tokens: 1 } },
        requestId: `r${id}`,
      }) + '\n';
    for (const d of ['/.claude/projects/bad\xffdir', '/.claude/projects/-caf\xe9', '/.claude/projects/-w'])
      mkdirSync(at(d), { recursive: true });
    writeFileSync(at('/.claude/projects/bad\xffdir/a.jsonl'), line('m1', 1));
    writeFileSync(at('/.claude/projects/-caf\xe9/b.jsonl'), line('m2', 10));
    writeFileSync(at('/.claude/projects/-w/x\xff.jsonl'), line('m3', 100));
    writeFileSync(at('/.claude/projects/-w/c.jsonl'), line('m4', 1000));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The CLI with HOME set to the raw bytes `<dir>/caf\xe9` (an environment a JS string cannot carry). */
  const withRawHome = (args: string[]) => {
    const r = spawnSync(
      'sh',
      [
        '-c',
        `HOME="$(printf '%s/caf\\351' "$1")"; export HOME; shift; exec "$@"`,
        'sh',
        dir,
        process.execPath,
        CLI,
        ...args,
      ],
      {
        env: {
          ...cleanEnv('/nonexistent', { XDG_CACHE_HOME: join(dir, 'cache') }),
          HOME: undefined,
        } as NodeJS.ProcessEnv,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    return r;
  };

  it('are walked and opened by their bytes, and shown with each invalid byte escaped', () => {
    for (const pass of ['first', 'unchanged']) {
      const r = withRawHome(['report', '--since', '2026-05-01', '--format', 'json']);
      expect(r.status, `${pass}: ${r.stderr}`).toBe(0);
      const rep = JSON.parse(r.stdout);
      expect(rep.totals.input_tokens, pass).toBe(1111);
      expect(rep.warnings, pass).toEqual([]);
    }
    const s = withRawHome(['sources']);
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout).toContain(`${dir}/caf\\xe9/.claude/projects/-w/x\\xff.jsonl: 1 event`);
    expect(s.stdout).toContain(`${dir}/caf\\xe9/.claude/projects/bad\\xffdir/a.jsonl: 1 event`);
    expect(s.stdout).toContain(`${dir}/caf\\xe9/.claude/projects/-caf\\xe9/b.jsonl: 1 event`);
    expect(s.stdout).not.toContain('\uFFFD');
  });
});
