// 128-bit digests of text, for telling whether anything changed since the
// last run (memo keys, source fingerprints, discovery records): two XXH64 of
// the text's UTF-8 bytes with different seeds, computed by the WebAssembly
// module of xxh64.wat. Not for secrets or adversaries, only for change:
// node:crypto's SHA-2 did the same job, but loading node:crypto cost a warm
// run ~2.7 ms of its ~66 (and a hash in JavaScript runs in V8's interpreter
// for the whole of such a short run: ~8 ms for the 240 KB of stamps).
import { XXH64_WASM } from './xxh64.wasm.js';

interface Hasher {
  memory: WebAssembly.Memory;
  bytes: Buffer;
  xxh64: (ptr: number, len: number, seed: bigint) => bigint;
  hash128: (ptr: number, len: number, out: number) => void;
}

/** Where the 16 output bytes go, and where the input starts. */
const OUT = 0;
const IN = 16;
const PAGE = 65_536;

let hasher: Hasher | null = null;

function instance(): Hasher {
  if (hasher) return hasher;
  const inst = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(XXH64_WASM, 'base64')), {});
  const memory = inst.exports.memory as WebAssembly.Memory;
  hasher = {
    memory,
    bytes: Buffer.from(memory.buffer),
    xxh64: inst.exports.xxh64 as Hasher['xxh64'],
    hash128: inst.exports.hash128 as Hasher['hash128'],
  };
  return hasher;
}

/** Writes `data` (text as UTF-8) at IN; returns its length in bytes. */
function put(h: Hasher, data: string | Uint8Array): number {
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const most = IN + (typeof data === 'string' ? data.length * 3 : data.length);
  if (most > h.memory.buffer.byteLength) {
    h.memory.grow(Math.ceil((most - h.memory.buffer.byteLength) / PAGE));
    h.bytes = Buffer.from(h.memory.buffer); // the old view is detached by grow
  }
  if (typeof data === 'string') return h.bytes.write(data, IN, 'utf8');
  h.bytes.set(data, IN);
  return data.length;
}

/** The 128-bit digest of `data` (text as UTF-8), as 32 hex digits. */
export function digest128(data: string | Uint8Array): string {
  const h = instance();
  const len = put(h, data);
  h.hash128(IN, len, OUT);
  return h.bytes.toString('hex', OUT, OUT + 16);
}

/** XXH64 of `data` (text as UTF-8) with `seed`: the reference algorithm, for the tests' known answers. */
export function xxh64(data: string | Uint8Array, seed = 0n): bigint {
  const h = instance();
  const len = put(h, data);
  return BigInt.asUintN(64, h.xxh64(IN, len, BigInt.asIntN(64, seed)));
}
