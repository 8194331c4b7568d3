// Digests through node:crypto: `digest128` tells a run whether anything
// changed since the last one (memo keys, source fingerprints, discovery
// records, tail hashes) — only change, no secrets or adversaries; `sha256`
// names content (a downloaded price file, an HTML page's inline scripts).
import { createHash } from 'node:crypto';

/** 128 bits of the SHA-256 of `data` (text as UTF-8), as 32 hex digits. */
export function digest128(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 32);
}

export function sha256(data: string | Uint8Array, encoding: 'hex' | 'base64'): string {
  return (
    typeof data === 'string' ? createHash('sha256').update(data, 'utf8') : createHash('sha256').update(data)
  ).digest(encoding);
}
