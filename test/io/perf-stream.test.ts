// A 2 GB-class Claude Code transcript through the real CLI: it must stream.
// Memory is measured by counters, not timers: the kernel's peak-RSS
// high-water mark of the CLI process (all threads) and the splitter's own
// count of bytes held for an unfinished line; completeness by the bytes the
// scanner read and totals from the builder's ledger, scaled by the number of
// copies written. (TX_USAGE_PERF_BYTES picks another size.)
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const TARGET = Number(process.env.TX_USAGE_PERF_BYTES ?? 2 * 1024 ** 3);
const MB = 1 << 20;
const ID = 'msg_01PERF000000000000';
const DIGITS = 12;

describe('a 2 GB transcript', () => {
  const home = tempDir('txu-perf-');
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('streams under 400 MB of peak RSS, never holding a long line, and counts every response', () => {
    // One unit written by the fixture builder: a prompt, a response, a 60 KB screenshot.
    const scratch = new ClaudeHome(join(home, 'scratch', '.claude'));
    const s = scratch.session({ cwd: '/w/big', sessionId: 'cccccccc-0000-4000-8000-00000000000c' });
    s.user('2026-06-10T10:00:00.000Z');
    s.response({
      ts: '2026-06-10T10:00:01.000Z',
      msgId: ID,
      requestId: 'req_011PERF',
      usage: { input: 3, output: 50, cacheRead: 7000, cacheWrite5m: 20 },
    });
    s.imageResult('2026-06-10T10:00:02.000Z', 60_000);
    const unit = readFileSync(s.file);
    expect(scratch.ledger.responses).toHaveLength(1);
    const one = scratch.ledger.responses[0]!;
    const at = unit.indexOf(ID) + ID.length - DIGITS;
    expect(unit.indexOf(ID, at + 1)).toBe(-1);

    // The real file: copies of the unit, each response with its own id, and
    // one 64 MB screenshot line in the middle.
    const claude = new ClaudeHome(join(home, '.claude'));
    const file = claude.session({ cwd: '/w/big', sessionId: 'cccccccc-0000-4000-8000-00000000000c' }).file;
    mkdirSync(join(home, '.claude', 'projects'), { recursive: true });
    const perBlock = Math.max(1, Math.floor(MB / unit.length));
    const block = Buffer.concat(Array.from({ length: perBlock }, () => unit));
    const huge = Buffer.from(
      `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":[{"type":"image","source":{"type":"base64","data":"${'iVBORw0KGgo'.repeat((64 * MB) / 11)}"}}]}]}}\n`,
    );
    const fd = openSync(file, 'w');
    let copies = 0;
    let written = 0;
    try {
      while (written < TARGET) {
        for (let k = 0; k < perBlock; k++)
          block.write(String(copies++).padStart(DIGITS, '0'), k * unit.length + at, 'latin1');
        written += writeSync(fd, block);
        if (copies === perBlock * 1000) written += writeSync(fd, huge);
      }
    } finally {
      closeSync(fd);
    }
    const size = statSync(file).size;
    expect(size).toBeGreaterThanOrEqual(TARGET);

    const statsFile = join(home, 'stats.json');
    const r = runCli(
      ['report', '--since', '2026-06-01', '--until', '2026-06-30', '--by', 'harness', '--format', 'json'],
      cleanEnv(home, { TX_USAGE_STATS: statsFile }),
    );
    expect(r.status, r.stderr).toBe(0);
    const stats = JSON.parse(readFileSync(statsFile, 'utf8'));
    expect(stats.bytesRead).toBe(size);
    expect(stats.peakHeldBytes).toBeLessThanOrEqual(2 * MB);
    expect(stats.maxRssKb).toBeLessThan(400 * 1024);
    const row = JSON.parse(r.stdout).rows[0];
    expect(row).toMatchObject({
      harness: 'claude-code',
      requests: copies,
      input_tokens: copies * one.input_tokens,
      cache_read_tokens: copies * one.cache_read_tokens,
      cache_write_tokens: copies * one.cache_write_tokens,
      output_tokens: copies * one.output_tokens,
    });
  }, 300_000);
});
