// Shared by the export / roll-up tests: the three machines exported once,
// and the arithmetic that sums local reports independently of tx-usage.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildTeam, type TeamMachine } from '../../fixtures/team.js';
import { cleanEnv, reportJson, runCli, tempDir } from './cli.js';

export const RANGE = ['--since', '2025-12-01', '--until', '2026-12-31', '--tz', 'UTC'];

export const TOKEN_FIELDS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
] as const;
export const COST_FIELDS = ['cost_usd', 'computed_cost_usd', 'recorded_cost_usd'] as const;

export interface Team {
  base: string;
  machines: TeamMachine[];
  /** An empty HOME: roll-ups run there, so nothing local can leak into them. */
  nobody: NodeJS.ProcessEnv;
}

export function envOf(m: TeamMachine, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv(m.home, extra);
}

export function buildTeamFixture(): Team {
  const base = tempDir('txu-team-');
  return { base, machines: buildTeam(base), nobody: cleanEnv(join(base, 'nobody')) };
}

export function cli(args: string[], env: NodeJS.ProcessEnv): string {
  const r = runCli(args, env);
  if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export function exportJson(m: TeamMachine, out: string, extra: string[] = [], env = envOf(m)): any {
  return JSON.parse(cli(['export', '--out', out, '--machine', m.name, '--format', 'json', ...extra], env));
}

// Rows in the order of their keys (--sort name), so that a roll-up's rows can be
// compared with the local reports' side by side and with sums per key.
export function localReport(m: TeamMachine, args: string[]): any {
  return reportJson([...args, '--sort', 'name', '--machine', m.name], envOf(m));
}

export function rollupReport(team: Team, from: string[], args: string[]): any {
  return reportJson([...args, '--sort', 'name', ...from.flatMap((f) => ['--from', f])], team.nobody);
}

/** USD (as tx-usage prints it: exact to 1e-10) to integer 1e-10 units, so sums are exact. */
export const e10 = (usd: number | null | undefined): bigint | null =>
  usd === null || usd === undefined ? null : BigInt(Math.round(usd * 1e10));

/** Rows of several reports summed per key, as a roll-up must show them (cost_source left out: it is not additive). */
export function sumRows(lists: Record<string, any>[][], keys: string[]): Record<string, unknown>[] {
  const groups = new Map<string, Record<string, any>>();
  for (const rows of lists) {
    for (const r of rows) {
      const id = JSON.stringify(keys.map((k) => r[k]));
      let g = groups.get(id);
      if (!g) {
        g = Object.fromEntries(keys.map((k) => [k, r[k]]));
        for (const f of TOKEN_FIELDS) g[f] = 0;
        for (const f of COST_FIELDS) g[f] = null;
        groups.set(id, g);
      }
      for (const f of TOKEN_FIELDS) g[f] += r[f];
      for (const f of COST_FIELDS) {
        const v = e10(r[f]);
        if (v !== null) g[f] = (g[f] ?? 0n) + v;
      }
    }
  }
  return [...groups.values()].sort((a, b) => {
    for (const k of keys) if (a[k] !== b[k]) return String(a[k]) < String(b[k]) ? -1 : 1;
    return 0;
  });
}

/** A report row's additive fields with costs in exact units, to compare with sumRows. */
export function additive(r: Record<string, any>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, r[k]]));
  for (const f of TOKEN_FIELDS) out[f] = r[f];
  for (const f of COST_FIELDS) out[f] = e10(r[f]);
  return out;
}

/** Every file under `dir` (relative path -> bytes). */
export function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}
