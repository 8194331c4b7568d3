#!/usr/bin/env node
// The bin entry (built into dist/src/cli/fast.cjs by scripts/bundle.mjs). A
// well-formed command line is read here (args.ts) and its command run; only
// help, completion and what args.ts leaves (usage errors among it) load yargs
// (main.ts). Each command's code is loaded when it runs.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mark } from '../core/trace.js';
import { parseLine } from './args.js';
import { runCommand, shortForms } from './commands.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';
import { UsageError } from '../report/period.js';
import { messageLine, printableLines } from '../render/terminal-text.js';

/** `tx-usage statusline`: its own bundle, without DuckDB (see statusline-entry.ts); --refresh and --help go the usual way. */
async function statusline(argv: string[]): Promise<boolean> {
  if (argv.some((a) => a === '--refresh' || a === '--help' || a === '-h')) return false;
  const bundled = fileURLToPath(new URL('./statusline.cjs', import.meta.url));
  const entry: typeof import('./statusline-entry.js') = existsSync(bundled)
    ? createRequire(import.meta.url)(bundled)
    : await import('./statusline-entry.js');
  try {
    await entry.runStatusline(argv.slice(1));
  } catch {
    /* statuslineCommand prints a line whatever happens; nothing may reach stderr */
  }
  return true;
}

async function run(typed: string[]): Promise<void> {
  mark('bin entry loaded');
  const argv = shortForms(typed);
  if (argv[0] === 'statusline' && (await statusline(argv))) return;
  const line = parseLine(argv);
  mark(line ? 'command line read' : 'command line left to yargs');
  exitQuietlyWhenStdoutCloses();
  if (line) return runCommand(line.spec, line.args, argv);
  const { runWithYargs } = await import('./main.js');
  await runWithYargs(argv);
}

/** A command that failed: one line on stderr, exit 2 for a usage error, the store's own code for a store error, else 1. */
async function failed(e: unknown): Promise<void> {
  if (e instanceof UsageError) {
    process.stderr.write(messageLine(e.message));
    process.exit(2);
  }
  const { StoreError } = await import('../store/errors.js');
  const msg = e instanceof StoreError ? e.message : ((e as Error)?.message ?? String(e));
  process.stderr.write(messageLine(msg));
  if (process.env.TX_USAGE_DEBUG) process.stderr.write(`${printableLines(String((e as Error)?.stack))}\n`);
  process.exit(e instanceof StoreError ? e.exitCode : 1);
}

// What yargs' hideBin returns under Node, without loading yargs for it.
run(process.argv.slice(2)).catch(failed);
