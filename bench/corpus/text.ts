// Deterministic filler for the benchmark corpus: prose-like text for prompts
// and tool output, and base64 image payloads. Cut from fixed pools so that a
// gigabyte of lines costs string slicing, not per-character randomness.
import { rng } from '../../fixtures/codex/rollout.js';

const WORDS = (
  'the parser function returns a value when input token stream buffer file path module test case error ' +
  'handler config option default const let import export async await promise result index offset line ' +
  'count total cache read write output model session project branch commit diff patch review refactor'
).split(' ');

/** A text pool of `bytes` characters (ASCII words, some newlines and quotes to escape). */
function textPool(seed: number, bytes: number): string {
  const r = rng(seed);
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    const sep = r() < 0.08 ? '\n' : r() < 0.02 ? ' "' : ' ';
    parts.push(w, sep);
    n += w.length + sep.length;
  }
  return parts.join('');
}

export class Filler {
  private readonly pool: string;
  private readonly b64: string;

  constructor(
    private readonly rand: () => number,
    seed: number,
  ) {
    this.pool = textPool(seed, 1 << 20);
    // Base64 of deterministic pseudo-random bytes (as a PNG's would look).
    const r = rng(seed ^ 0x5eed);
    const raw = Buffer.alloc(6 << 20);
    for (let i = 0; i < raw.length; i += 4) raw.writeUInt32LE(Math.floor(r() * 0x100000000), i);
    this.b64 = raw.toString('base64');
  }

  /** About `n` characters of text from a random place in the pool. */
  text(n: number): string {
    const len = Math.max(1, Math.min(n, this.pool.length - 1));
    const at = Math.floor(this.rand() * (this.pool.length - len));
    return this.pool.slice(at, at + len);
  }

  /** Base64 payload of `n` characters (at most 8 MB). */
  base64(n: number): string {
    const len = Math.min(n, this.b64.length - 4) & ~3;
    const at = Math.floor(this.rand() * ((this.b64.length - len) / 4)) * 4;
    return this.b64.slice(at, at + len);
  }
}
