// Incremental reads of plain .jsonl rollouts, and files moving between
// .jsonl / .jsonl.zst / archived_sessions: the union of what the runs emit,
// deduplicated the way the store does, must be exactly one whole read.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { buildCodexHome, zstdCompress } from '../../fixtures/codex/home.js';
import { byModelDay, collect, collectAll, discover, sorted, storeLike } from '../helpers/codex-helpers.js';
import type { UsageEvent } from '../../src/core/types.js';
import type { SourceRef } from '../../src/harnesses/types.js';
import { tempDir } from '../helpers/temp.js';

const dirs: string[] = [];
const tmp = () => {
  const d = tempDir('txu-codex-res-');
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const keys = (events: UsageEvent[]) => events.map((e) => e.dedupe_key).sort();

describe('codex: incremental reads of a growing .jsonl', () => {
  it('cut at every line boundary and inside every line, the two runs together equal one whole read', async () => {
    const home = buildCodexHome(tmp());
    const plain = home.written.filter((w) => w.path.endsWith('.jsonl'));
    expect(plain.length).toBeGreaterThanOrEqual(8);
    let cuts = 0;
    for (const w of plain) {
      const full = readFileSync(w.path);
      const ref = (await discover(home.codexHome)).find((r) => r.path === w.path)!;
      const whole = storeLike((await collect(ref)).events);
      // Cut points: every line start, and the middle of every line.
      const points: number[] = [];
      let start = 0;
      for (let i = 0; i < full.length; i++) {
        if (full[i] === 10) {
          points.push(start + Math.floor((i - start) / 2), i + 1);
          start = i + 1;
        }
      }
      const scratch = join(tmp(), 'sessions', basename(w.path));
      mkdirSync(dirname(scratch), { recursive: true });
      const sref: SourceRef = { ...ref, path: scratch, key: scratch };
      for (const p of points) {
        writeFileSync(scratch, full.subarray(0, p));
        const first = await collect(sref);
        expect(first.failed).toBe(false);
        writeFileSync(scratch, full);
        const second = await collect(sref, first.resume);
        const union = storeLike([...first.events, ...second.events]);
        expect(keys(union), `${w.label} cut at byte ${p}`).toEqual(keys(whole));
        expect(sorted(byModelDay(union)), `${w.label} cut at byte ${p}`).toEqual(sorted(byModelDay(whole)));
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(500);
  });

  it('three runs (two appends) on the paginated and sub-agent rollouts', async () => {
    const home = buildCodexHome(tmp());
    for (const label of ['paginated', 'subagent', 'revert-new', 'legacy-fork', 'migrated']) {
      const w = home.written.find((x) => x.label === label)!;
      const full = readFileSync(w.path);
      const ref = (await discover(home.codexHome)).find((r) => r.path === w.path)!;
      const whole = storeLike((await collect(ref)).events);
      const lineEnds = [...full.keys()].filter((i) => full[i] === 10).map((i) => i + 1);
      for (let a = 0; a < lineEnds.length; a += 3) {
        for (let b = a + 1; b < lineEnds.length; b += 4) {
          writeFileSync(w.path, full.subarray(0, lineEnds[a]));
          const r1 = await collect(ref);
          writeFileSync(w.path, full.subarray(0, lineEnds[b]));
          const r2 = await collect(ref, r1.resume);
          writeFileSync(w.path, full);
          const r3 = await collect(ref, r2.resume);
          const union = storeLike([...r1.events, ...r2.events, ...r3.events]);
          expect(keys(union), `${label} cuts ${a}/${b}`).toEqual(keys(whole));
          expect(sorted(byModelDay(union))).toEqual(sorted(byModelDay(whole)));
        }
      }
    }
  });

  it('a resume point without codex state re-reads the file from the start (same keys, nothing twice)', async () => {
    const home = buildCodexHome(tmp());
    const w = home.written.find((x) => x.label === 'legacy')!;
    const ref = (await discover(home.codexHome)).find((r) => r.path === w.path)!;
    const whole = await collect(ref);
    const again = await collect(ref, { offset: whole.resume!.offset, lines: whole.resume!.lines });
    expect(keys(again.events)).toEqual(keys(whole.events));
    expect(keys(storeLike([...whole.events, ...again.events]))).toEqual(keys(whole.events));
  });

  it('a resumed run returns its state and reads nothing twice when nothing was appended', async () => {
    const home = buildCodexHome(tmp());
    const w = home.written.find((x) => x.label === 'paginated')!;
    const ref = (await discover(home.codexHome)).find((r) => r.path === w.path)!;
    const first = await collect(ref);
    expect(first.resume?.state).toBeTruthy();
    expect(JSON.parse(JSON.stringify(first.resume!.state))).toEqual(first.resume!.state);
    expect(JSON.stringify(first.resume!.state).length).toBeLessThan(16_000);
    const second = await collect(ref, first.resume);
    expect(second.events).toEqual([]);
    expect(second.resume!.offset).toBe(first.resume!.offset);
  });
});

describe('codex: rollouts that move or get compressed', () => {
  it('the same rollout as .jsonl, .jsonl.zst and in archived_sessions has the same dedupe keys and totals', async () => {
    const home = buildCodexHome(tmp());
    const before = await collectAll(home.codexHome);
    const beforeEvents = before.flatMap((c) => c.events);
    // Compress every plain file in sessions/ in place; archive every other one.
    let i = 0;
    for (const w of home.written) {
      if (!w.path.endsWith('.jsonl') || w.path.includes('archived_sessions')) continue;
      const text = readFileSync(w.path, 'utf8');
      if (i++ % 2 === 0) {
        writeFileSync(w.path + '.zst', zstdCompress(text));
        unlinkSync(w.path);
      } else {
        const dest = join(home.codexHome, 'archived_sessions', basename(w.path));
        mkdirSync(dirname(dest), { recursive: true });
        renameSync(w.path, dest);
      }
    }
    const after = await collectAll(home.codexHome);
    expect(after.filter((c) => c.source.kind === 'jsonl.zst').length).toBeGreaterThan(3);
    const afterEvents = after.flatMap((c) => c.events);
    expect(keys(afterEvents)).toEqual(keys(beforeEvents));
    // Old rows and new rows side by side (e.g. both copies present for a moment): still counted once.
    const union = storeLike([...beforeEvents, ...afterEvents]);
    expect(sorted(byModelDay(union))).toEqual(sorted(home.ledger.byModelDay()));
  });
});
