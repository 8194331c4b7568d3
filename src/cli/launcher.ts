// The bin's first two lines (written over the bundle's `#!/usr/bin/env node`
// by scripts/bundle.mjs): a shell line that starts Node on the same file,
// and that JavaScript reads as a string and a comment.
//
// Why: with NODE_EXTRA_CA_CERTS set, Node 20 parses its own ~140 root
// certificates and the extra file before it runs any JavaScript: ~32 ms
// here (`node -e 0`: 51 ms with it, 18 ms without), two thirds of a report
// answered from its memo, for certificates only `prices update` could use.
// The launcher hands Node an empty NODE_EXTRA_CA_CERTS (which Node ignores)
// and keeps the value in DEFERRED_CA_CERTS; `prices update`, the only
// command that goes on the network, runs itself again with it restored
// (rerunWithCaCerts). Run as `node dist/src/cli/fast.cjs`, the line is a
// no-op and nothing changes.
import { spawnSync } from 'node:child_process';

export const DEFERRED_CA_CERTS = 'TX_USAGE_NODE_EXTRA_CA_CERTS';

/** `':'` is the shell's no-op command given `//` to ignore; to JavaScript a string, then a comment. */
export const LAUNCHER =
  '#!/bin/sh\n' +
  `':' //; [ -z "$NODE_EXTRA_CA_CERTS" ] || export ${DEFERRED_CA_CERTS}="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS=; exec node "$0" "$@"\n`;

/** The NODE_EXTRA_CA_CERTS the launcher kept from Node, or null when Node was started with the user's own. */
export function deferredCaCerts(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = env[DEFERRED_CA_CERTS];
  return file && !env.NODE_EXTRA_CA_CERTS ? file : null;
}

/** Runs this same command line again in a Node given `file` as NODE_EXTRA_CA_CERTS; returns its exit status. */
export function rerunWithCaCerts(file: string): number {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_EXTRA_CA_CERTS: file };
  delete env[DEFERRED_CA_CERTS];
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  return r.status ?? 1;
}
