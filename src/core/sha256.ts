// SHA-256 through node:crypto, loaded on first use (~3 ms): a report on the
// bundled prices hashes nothing with it (its digests are XXH64,
// io/xxh64.ts); a downloaded price file and an HTML page do.
import { createRequire } from 'node:module';

export function sha256(data: string | Uint8Array, encoding: 'hex' | 'base64'): string {
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const h = createHash('sha256');
  if (typeof data === 'string') h.update(data, 'utf8');
  else h.update(data);
  return h.digest(encoding);
}
