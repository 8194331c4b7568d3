// A model priced by another model's entry (the price data's prefix rules
// match `claude-sonnet-5-5` to `claude-sonnet-5`) is a near match; a name
// that is the entry's own id, one of its listed aliases, or either with a
// snapshot date, a display tag or Bedrock's wrapping is not.
import { rmSync } from 'node:fs';
import { waitForUpdate, type Provider } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPricer, type Pricer } from '../../src/pricing/index.js';
import { namesEntry } from '../../src/pricing/names.js';
import { tempDir } from '../helpers/temp.js';

let pricer: Pricer;
let dir: string;
beforeAll(async () => {
  dir = tempDir('txu-near-');
  pricer = await loadPricer({ cacheDir: dir });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('near matches', () => {
  it('names the entry a near match is priced by', () => {
    expect(pricer.nearMatch('claude-sonnet-5-5', null, 'claude-code')).toEqual({
      entry: 'claude-sonnet-5',
      provider: 'anthropic',
    });
  });

  it.each([
    ['claude-opus-5-5', 'claude-code'],
    ['claude-haiku-4-5-20251001', 'claude-code'],
    ['claude-sonnet-4-20250514', 'claude-code'],
    ['claude-3-5-sonnet-20241022', 'claude-code'],
    ['claude-opus-4-6[1m]', 'claude-code'],
    ['claude-sonnet-5', 'claude-code'],
    ['gpt-5-codex', 'codex'],
    ['gpt-5-2025-08-07', 'codex'],
    ['gpt-5.1-codex-max', 'codex'],
    ['gemini-2.5-pro', 'gemini-cli'],
    ['gemini-3-flash-preview', 'gemini-cli'],
    ['qwen/qwen3-coder', 'qwen-code'],
    ['gemini-2.5-flash', 'qwen-code'],
  ] as const)('%s (%s) is priced by its own entry', (model, harness) => {
    expect(pricer.nearMatch(model, null, harness)).toBeNull();
  });

  it("a bare Qwen model name (DashScope's) is priced at OpenRouter's qwen/ listing, as a near match", () => {
    // genai-prices has no Alibaba provider: without this rule the name has no price at all.
    expect(pricer.nearMatch('qwen3-coder-plus', null, 'qwen-code')).toEqual({
      entry: 'qwen/qwen3-coder-plus',
      provider: 'openrouter',
    });
    // The same name from another harness is not looked up there.
    expect(pricer.nearMatch('qwen3-coder-plus', null, 'pi')).toBeNull();
    // Qwen OAuth's alias names no model: no price (unknown), no near match.
    expect(pricer.nearMatch('coder-model', null, 'qwen-code')).toBeNull();
  });

  it('nothing is a near match when nothing matched, or an override priced it', async () => {
    expect(pricer.nearMatch('acme-experimental-1', null, 'claude-code')).toBeNull();
  });

  it('every entry of the bundled price data is named by its own id and by each alias it lists', async () => {
    const data = (await waitForUpdate()) as Provider[];
    const misses: string[] = [];
    for (const p of data) {
      for (const m of p.models) {
        if (!namesEntry(m.id, m)) misses.push(`${p.id}/${m.id}`);
        const walk = (c: unknown): void => {
          if (!c || typeof c !== 'object') return;
          const o = c as Record<string, unknown>;
          if (Array.isArray(o.or)) o.or.forEach(walk);
          if (typeof o.equals === 'string' && !namesEntry(o.equals, m)) misses.push(`${p.id}/${m.id} = ${o.equals}`);
        };
        walk(m.match);
      }
    }
    expect(misses).toEqual([]);
  });
});
