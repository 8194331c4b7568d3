// The checked-in `.proto` schemas (top-level `proto/`, shipped via
// package.json "files"), loaded with protobufjs. A file is found by walking
// up from this module, so the same code works from src/ (tests) and from
// dist/src/ (the compiled CLI).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The path of `proto/<name>`, found above `from`. */
export function findProtoFile(name: string, from = dirname(fileURLToPath(import.meta.url))): string {
  const rel = join('proto', name);
  for (let dir = from; ; dir = dirname(dir)) {
    const p = join(dir, rel);
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) throw new Error(`cannot find ${rel} above ${from}`);
  }
}

const loaded = new Map<string, protobuf.Root>();

/** The parsed schema `proto/<name>` (loaded once, snake_case field names kept). */
export function loadProto(name: string): protobuf.Root {
  let root = loaded.get(name);
  if (!root) {
    root = new protobuf.Root().loadSync(findProtoFile(name), { keepCase: true });
    loaded.set(name, root);
  }
  return root;
}

/** A uint64/uint32 as decoded by protobufjs (number, or Long when `long` is installed) to a JS number. */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'toNumber' in v && typeof (v as { toNumber: unknown }).toNumber === 'function') {
    return (v as { toNumber(): number }).toNumber();
  }
  return 0;
}
