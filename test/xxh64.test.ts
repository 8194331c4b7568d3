// The digests of src/io/xxh64.ts (WebAssembly, xxh64.wat) must be XXH64 as
// specified: published answers for short inputs, and a reference written
// here from the specification (BigInt arithmetic, one step per spec line)
// for every length from 0 to 300 bytes at several alignments and for larger
// inputs; digest128 is the two seeded hashes, and any change of the input
// changes it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { digest128, xxh64 } from '../src/io/xxh64.js';

const M = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M;
const read64 = (b: Uint8Array, i: number) => {
  let v = 0n;
  for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]!);
  return v;
};
const read32 = (b: Uint8Array, i: number) => BigInt(b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)) + (BigInt(b[i + 3]!) << 24n);
const round = (acc: bigint, input: bigint) => (rotl((acc + input * P2) & M, 31n) * P1) & M;
const merge = (acc: bigint, val: bigint) => (((acc ^ round(0n, val)) * P1) & M) + P4 & M;

function reference(b: Uint8Array, seed: bigint): bigint {
  const len = b.length;
  let p = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & M;
    let v2 = (seed + P2) & M;
    let v3 = seed & M;
    let v4 = (seed - P1) & M;
    for (; p + 32 <= len; p += 32) {
      v1 = round(v1, read64(b, p));
      v2 = round(v2, read64(b, p + 8));
      v3 = round(v3, read64(b, p + 16));
      v4 = round(v4, read64(b, p + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M;
    for (const v of [v1, v2, v3, v4]) h = merge(h, v);
  } else h = (seed + P5) & M;
  h = (h + BigInt(len)) & M;
  for (; p + 8 <= len; p += 8) h = ((rotl(h ^ round(0n, read64(b, p)), 27n) * P1) & M) + P4 & M;
  if (p + 4 <= len) {
    h = ((rotl(h ^ ((read32(b, p) * P1) & M), 23n) * P2) & M) + P3 & M;
    p += 4;
  }
  for (; p < len; p++) h = (rotl(h ^ ((BigInt(b[p]!) * P5) & M), 11n) * P1) & M;
  h = ((h ^ (h >> 33n)) * P2) & M;
  h = ((h ^ (h >> 29n)) * P3) & M;
  return h ^ (h >> 32n);
}

function bytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

describe('xxh64 (WebAssembly)', () => {
  it('gives the published answers', () => {
    expect(xxh64('')).toBe(0xef46db3751d8e999n);
    expect(xxh64('abc')).toBe(0x44bc2cf5ad770999n);
    expect(reference(new TextEncoder().encode(''), 0n)).toBe(0xef46db3751d8e999n);
    expect(reference(new TextEncoder().encode('abc'), 0n)).toBe(0x44bc2cf5ad770999n);
  });

  it('agrees with the specification at every length to 300 bytes, any alignment, and on large inputs', () => {
    for (let n = 0; n <= 300; n++) {
      const b = bytes(n + 3, n + 1);
      for (const off of [0, 1, 3]) {
        const part = b.subarray(off, off + n);
        expect(xxh64(part), `length ${n}, offset ${off}`).toBe(reference(part, 0n));
        expect(xxh64(part, P1), `length ${n}, seed P1`).toBe(reference(part, P1));
      }
    }
    const big = bytes(300_001, 7);
    expect(xxh64(big)).toBe(reference(big, 0n));
    // Text is hashed as its UTF-8 bytes.
    const text = 'naïve 日本 \u{1F600} ' + 'x'.repeat(1000);
    expect(xxh64(text)).toBe(reference(new TextEncoder().encode(text), 0n));
  });

  it('digest128: both seeded hashes, little-endian, and any change of the input changes it', () => {
    const b = bytes(5000, 3);
    const d = digest128(b);
    const le = (x: bigint) => Buffer.from(BigInt.asUintN(64, x).toString(16).padStart(16, '0'), 'hex').reverse().toString('hex');
    expect(d).toBe(le(reference(b, 0n)) + le(reference(b, P1)));
    const seen = new Set([d]);
    for (let i = 0; i < b.length; i += 97) {
      const c = b.slice();
      c[i]! ^= 1 << (i % 8);
      seen.add(digest128(c));
    }
    expect(seen.size).toBe(1 + Math.ceil(b.length / 97));
    expect(digest128('a')).not.toBe(digest128('b'));
    expect(digest128('')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is assembled from the checked-in .wat (src/io/xxh64.wasm.ts is not stale)', () => {
    expect(() => execFileSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
