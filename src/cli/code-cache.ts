// CommonJS bundles run with the code V8 compiled for them on an earlier run
// (vm.Script cachedData), so that most of their functions are not parsed and
// compiled again: main.cjs is 1.9 MB (half of it the bundled price data),
// ~20 ms of a cold run's main thread to compile lazily, more as its
// functions are first called; its code deserializes in ~10 ms. V8 checks
// the code against its own version and flags, but checks the source by its
// length only: a bundle changed in place (an upgrade, a rebuild) with the
// same length would run the old code. So every
// code file starts with the digest of the source it was made from, and code
// made from other text is never handed to V8.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { digest128 } from '../core/digest.js';

/** 32 hex digits of the source's digest, then a newline, then V8's code. */
const HEADER_BYTES = 33;

export interface LoadedBundle<T> {
  exports: T;
  /** V8 used the code file's code. */
  usedCode: boolean;
  /**
   * Writes the code V8 holds for the bundle now (with every function compiled
   * so far) to `codePath` unless it used that file's code already. Only speed:
   * a failed write is ignored.
   */
  keepCode(codePath: string, opts?: { force?: boolean }): void;
}

const IMPORT_HOOK = Symbol.for('tx-usage.import');

/**
 * `import()` for code that may run from a bundle loaded here. V8 keeps a
 * script's host-defined options (which say how its `import()` resolves) in
 * the code it caches, and Node 20 cannot use them from deserialized code:
 * an `import()` in such a script fails with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING
 * (nodejs/node#35375, v8:10284). So the bundles import through a function
 * compiled by Node's own loader (this module, inside fast.cjs, which sits
 * beside the bundles: specifiers resolve the same); unbundled, this is a
 * plain `import()`.
 */
export function importModule<T>(specifier: string): Promise<T> {
  const hook = (globalThis as Record<symbol, unknown>)[IMPORT_HOOK] as ((s: string) => Promise<T>) | undefined;
  return hook ? hook(specifier) : import(specifier);
}

/** The code in `codePath` when it was made from `digest`'s source. */
function codeFor(codePath: string | null, digest: string): Buffer | undefined {
  if (!codePath) return undefined;
  let file: Buffer;
  try {
    file = readFileSync(codePath);
  } catch {
    return undefined;
  }
  if (file.length <= HEADER_BYTES || file.toString('latin1', 0, HEADER_BYTES) !== `${digest}\n`) return undefined;
  return file.subarray(HEADER_BYTES);
}

/**
 * Runs the CommonJS file `file` as `require` would (its own require,
 * module, __filename, __dirname; `importModule` for `import()`) and
 * returns its exports, compiled with the code in `codePath` when that was
 * made from this very source.
 */
export function loadBundle<T>(file: string, codePath: string | null): LoadedBundle<T> {
  const bytes = readFileSync(file);
  const digest = digest128(bytes);
  const source = bytes.toString('utf8');
  const cached = codeFor(codePath, digest);
  // A hashbang is only allowed at the very start of a script: made a comment (lines keep their numbers).
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  (globalThis as Record<symbol, unknown>)[IMPORT_HOOK] ??= (specifier: string) => import(specifier);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`, {
    filename: file,
    cachedData: cached,
  });
  const mod = { exports: {} as T };
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
  const usedCode = cached !== undefined && !script.cachedDataRejected;
  return {
    exports: mod.exports,
    usedCode,
    keepCode(to, opts = {}) {
      if (usedCode && !opts.force) return;
      const tmp = `${to}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, Buffer.concat([Buffer.from(`${digest}\n`, 'latin1'), script.createCachedData()]));
        renameSync(tmp, to);
      } catch {
        /* only speed */
      }
    },
  };
}
