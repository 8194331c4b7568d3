// The parts of the Gemini CLI and Qwen Code readers that decide numbers on
// their own: how a Gemini-shaped usage record becomes tx-usage's counts
// (README "Tokens"), how Qwen Code's two records of one call are paired
// (README "One call, two records"), and the last-line times the horizon uses.
import { describe, expect, it } from 'vitest';
import { normalizeGeminiCounts } from '../../src/harnesses/gemini-cli/usage.js';
import { CallPairs, figures, PAIR_WINDOW_LINES } from '../../src/harnesses/qwen-code/pairing.js';
import { geminiCli } from '../../src/harnesses/gemini-cli/index.js';
import { qwenCode } from '../../src/harnesses/qwen-code/index.js';

describe('Gemini-shaped usage', () => {
  it("Gemini's own shape: cached inside the prompt, thoughts and tool-use prompt beside", () => {
    // total 1000 + 100 + 40 + 10 = 1150: uncached 1000 - 600 + 10 = 410, output 100 + 40.
    expect(
      normalizeGeminiCounts({ prompt: 1000, cached: 600, candidates: 100, thoughts: 40, tool: 10, total: 1150 }),
    ).toEqual({
      input: 410,
      cacheRead: 600,
      output: 140,
      reasoning: 40,
      shape: null,
      cachedOverPrompt: false,
    });
  });

  it('an OpenAI-style total (prompt + candidates) puts the reasoning inside the output', () => {
    expect(
      normalizeGeminiCounts({ prompt: 1000, cached: 600, candidates: 100, thoughts: 40, tool: 0, total: 1100 }),
    ).toMatchObject({ input: 400, output: 100, reasoning: 40, shape: 'reasoning inside output' });
  });

  it('a total that adds the cached tokens again says the prompt left them out', () => {
    // 400 uncached + 600 cached + 100 + 40 = 1140.
    expect(
      normalizeGeminiCounts({ prompt: 400, cached: 600, candidates: 100, thoughts: 40, tool: 0, total: 1140 }),
    ).toMatchObject({ input: 400, cacheRead: 600, output: 140, shape: 'net input', cachedOverPrompt: false });
    expect(
      normalizeGeminiCounts({ prompt: 400, cached: 600, candidates: 100, thoughts: 40, tool: 0, total: 1100 }),
    ).toMatchObject({ input: 400, output: 100, shape: 'net input' });
  });

  it('no total, or one that fits no shape: Gemini’s shape; cached over the prompt is clamped and said', () => {
    for (const total of [null, 0, 99999]) {
      expect(
        normalizeGeminiCounts({ prompt: 1000, cached: 600, candidates: 100, thoughts: 40, tool: 0, total }),
      ).toMatchObject({ input: 400, output: 140, shape: null });
    }
    expect(
      normalizeGeminiCounts({ prompt: 100, cached: 300, candidates: 5, thoughts: 0, tool: 0, total: null }),
    ).toMatchObject({ input: 0, cacheRead: 300, cachedOverPrompt: true });
  });
});

describe("Qwen Code's two records of one call", () => {
  const f = figures(500, 20, 0, 0);
  it('the api_response first: its assistant record is the same call', () => {
    const p = new CallPairs(null);
    expect(p.telemetrySeen(f, 3)).toBe(false); // counted
    expect(p.assistantSeen(f, 4)).toBe(true); // the same call
    expect(p.assistantSeen(f, 9)).toBe(false); // a later call with the same figures: counted
  });

  it('the assistant record first, then its api_response; across a read (the state)', () => {
    const p = new CallPairs(null);
    expect(p.assistantSeen(f, 10)).toBe(false);
    const resumed = new CallPairs(JSON.parse(JSON.stringify(p.toState())));
    expect(resumed.telemetrySeen(f, 11)).toBe(true);
  });

  it('other figures, or a twin too far away, are another call', () => {
    const p = new CallPairs(null);
    p.telemetrySeen(f, 1);
    expect(p.assistantSeen(figures(500, 21, 0, 0), 2)).toBe(false);
    const q = new CallPairs(null);
    q.telemetrySeen(f, 1);
    expect(q.assistantSeen(f, 2 + PAIR_WINDOW_LINES)).toBe(false);
  });

  it('a side call (an api_response never followed by its assistant record) stays open only within the window, and the state stays small', () => {
    const p = new CallPairs(null);
    for (let i = 0; i < 100; i++) p.telemetrySeen(figures(i, 1, 0, 0), i);
    expect(p.toState().telemetry.length).toBeLessThanOrEqual(32);
  });
});

describe('last-line times (horizon)', () => {
  it('Gemini CLI: the latest timestamp or lastUpdated on the line', () => {
    const t = (s: string) => geminiCli.lastLineTime!(Buffer.from(s));
    expect(t('{"$set":{"lastUpdated":"2026-03-01T10:00:00.000Z"}}')).toBe(Date.parse('2026-03-01T10:00:00.000Z'));
    expect(
      t(
        '{"id":"a","timestamp":"2026-03-01T10:00:00.000Z","type":"gemini","toolCalls":[{"timestamp":"2026-03-01T10:00:05.000Z"}]}',
      ),
    ).toBe(Date.parse('2026-03-01T10:00:05.000Z'));
    expect(t('{"$rewindTo":"a"}')).toBeNull();
  });

  it("Qwen Code: the record's timestamp", () => {
    expect(
      qwenCode.lastLineTime!(Buffer.from('{"uuid":"u","timestamp":"2026-08-01T09:00:00.000Z","type":"system"}')),
    ).toBe(Date.parse('2026-08-01T09:00:00.000Z'));
  });
});
